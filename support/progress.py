"""Progress on stderr for long runs, as docs/conventions.md says.

- On a terminal: one line, ``[k/n] ####------ label (12.3 s, ~40 s left)``, redrawn in place at
  most every :attr:`Progress.INTERVAL` seconds and ended when the run is done (or the command
  ends: :meth:`Progress.end_line`).
- Elsewhere (a pipe, a CI log): one line when a long step starts and one when it ends. A step
  announced as it starts (a Verilator build, ``update(0, label, force=True)``) has its line at
  once; a counted run has a line once it has taken :attr:`Progress.LONG` seconds, and then one
  when it is done. A short run prints nothing.
- Never quiet for long: while a run is under way and nothing has been shown for
  :attr:`Progress.HEARTBEAT` seconds, a heartbeat shows it is (on a terminal the line redrawn
  with its elapsed time; in a log ``still running (95 s, 3 of 18 done; last: label)``, or
  ``label: still running (95 s)`` for a step announced as it started), from a
  daemon thread that watches every run under way.
- Nothing at all with ``--quiet`` (:attr:`Progress.silenced`).
"""

import sys
import threading
import time
import weakref

__all__ = ["Progress"]


class Progress:
    """Counts ``done`` of ``total``, reported as the module docstring says: :meth:`step` for one
    more done, :meth:`update` for a count (a simulation reporting each result).

    ``quiet``: ``True`` prints nothing; ``None`` (the default) follows the stream: a terminal
    gets the redrawn line, anything else the start and end lines of long steps.
    """
    BAR = 20
    INTERVAL = 2.0          # seconds between a terminal line's redraws
    LONG = 10.0             # seconds after which a counted run is a long step in a log
    HEARTBEAT = 30.0        # the longest a run under way goes without a line
    silenced = False        # set by ``--quiet``
    _drawn = None           # the terminal stream whose last line is drawn and not ended
    _announced = []         # the logs' progress objects with a step started and not ended
    # The runs under way, which the heartbeat watches (weakly: a run dropped unfinished, by an
    # error, leaves the watch with its last reference).
    _running = weakref.WeakSet()
    _lock = threading.RLock()
    _watcher = None

    def __init__(self, total, stream=None, *, quiet=None):
        self.total, self.done = total, 0
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.quiet = bool(quiet)
        self._started = self._shown = time.perf_counter()
        self._step = None        # a log's announced step: (label, started)
        self._logged = False     # a log has the counted run's start line
        self._label = ""
        self._beat = time.monotonic()   # when this run last showed a line (a real clock)

    def step(self, label):
        """One more of ``total`` is done: show its line."""
        self.update(self.done + 1, label, force=True)

    def update(self, done, label="", *, force=False):
        """``done`` of ``total`` are done. On a terminal the line is redrawn (``force``: even
        if it was lately); in a log, ``force`` with nothing done announces a step."""
        self.done = done
        if self.quiet or Progress.silenced:
            return
        with Progress._lock:
            self._label = label
            if done < self.total:
                self._watch()
            else:
                Progress._running.discard(self)
            self._show(done, label, force)

    def _show(self, done, label, force):
        now = time.perf_counter()
        if self.terminal:
            if force or now - self._shown >= self.INTERVAL or done >= self.total:
                self._shown = now
                self._draw(self._line(label, now))
            return
        finished = done >= self.total
        if force and done == 0:
            self._end_step(now)
            self._step = (label, now)
            Progress._announced.append(self)
            self._print(f"{label} ...")
        elif finished:
            self._end_step(now)
            if self._logged:
                self._print(f"{label}: {self.total} of {self.total} done in "
                            f"{now - self._started:.1f} s")
                self._logged = False
        elif not self._logged and now - self._started >= self.LONG and self._step is None:
            self._logged = True
            self._print(self._line(label, now))

    def _line(self, label, now):
        elapsed = now - self._started
        filled = round(self.BAR * min(self.done, self.total) / max(self.total, 1))
        bar = "#" * filled + "-" * (self.BAR - filled)
        left = f", ~{elapsed * (self.total - self.done) / self.done:.0f} s left" \
            if 0 < self.done < self.total else ""
        return f"[{self.done}/{self.total}] {bar} {label} ({elapsed:.1f} s{left})"

    def _end_step(self, now):
        if self._step is not None:
            label, started = self._step
            self._print(f"{label}: done in {now - started:.1f} s")
            self._step = None
            Progress._announced.remove(self)

    def _print(self, line):
        self._beat = time.monotonic()
        print(line, file=self.stream, flush=True)

    def _watch(self):
        """Put this run under the heartbeat's watch (its thread started on first use)."""
        Progress._running.add(self)
        if Progress._watcher is None or not Progress._watcher.is_alive():
            Progress._watcher = threading.Thread(target=Progress._heartbeats, daemon=True,
                                                 name="progress heartbeat")
            Progress._watcher.start()

    @classmethod
    def _heartbeats(cls):
        while True:
            time.sleep(min(1.0, cls.HEARTBEAT / 4))
            with cls._lock:
                for run in list(cls._running):
                    if time.monotonic() - run._beat >= cls.HEARTBEAT:
                        run._heartbeat()

    def _heartbeat(self):
        now = time.perf_counter()
        if self.terminal:
            self._draw(self._line(self._label, now))
            return
        elapsed = now - self._started
        if self._step is not None:          # an announced step: its own label
            self._print(f"{self._step[0]}: still running ({elapsed:.0f} s)")
        else:                               # a counted run: the label is the last one done
            last = f"; last: {self._label}" if self._label else ""
            self._print(f"still running ({elapsed:.0f} s, {self.done} of {self.total} "
                        f"done{last})")

    def _draw(self, line):
        # A carriage return and erase-to-end-of-line redraw the line in place.
        self._beat = time.monotonic()
        self.stream.write(f"\r{line}\x1b[K")
        if self.done >= self.total:
            self.stream.write("\n")
            Progress._drawn = None
        else:
            Progress._drawn = self.stream
        self.stream.flush()

    @classmethod
    def detach(cls):
        """Forget the runs under way and any line left drawn: for a worker process forked
        from one with runs under way (their owner reports them; the worker's own runs are
        watched as any)."""
        with cls._lock:
            cls._running.clear()
            cls._drawn, cls._announced = None, []

    @classmethod
    def end_line(cls):
        """End what a command leaves open when it ends: a terminal line left drawn (a run
        stopped short, a step announced and never counted), so the next output starts on a
        line of its own; a log's announced steps, with their end lines."""
        with cls._lock:
            cls._running.clear()
            now = time.perf_counter()
            for progress in list(cls._announced):
                progress._end_step(now)
            if cls._drawn is not None:
                cls._drawn.write("\n")
                cls._drawn.flush()
                cls._drawn = None
