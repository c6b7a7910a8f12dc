"""Progress on stderr for long runs, as docs/conventions.md says.

- On a terminal: one line, ``[k/n] ####------ label (12.3 s, ~40 s left)``, redrawn in place at
  most every :attr:`Progress.INTERVAL` seconds and ended when the run is done (or the command
  ends: :meth:`Progress.end_line`).
- Elsewhere (a pipe, a CI log): one line when a long step starts and one when it ends. A step
  announced as it starts (a Verilator build, ``update(0, label, force=True)``) has its line at
  once; a counted run has a line once it has taken :attr:`Progress.LONG` seconds, and then one
  when it is done. A short run prints nothing.
- Nothing at all with ``--quiet`` (:attr:`Progress.silenced`).
"""

import sys
import time

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
    silenced = False        # set by ``--quiet``
    _drawn = None           # the terminal stream whose last line is drawn and not ended
    _announced = []         # the logs' progress objects with a step started and not ended

    def __init__(self, total, stream=None, *, quiet=None):
        self.total, self.done = total, 0
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.quiet = bool(quiet)
        self._started = self._shown = time.perf_counter()
        self._step = None        # a log's announced step: (label, started)
        self._logged = False     # a log has the counted run's start line

    def step(self, label):
        """One more of ``total`` is done: show its line."""
        self.update(self.done + 1, label, force=True)

    def update(self, done, label="", *, force=False):
        """``done`` of ``total`` are done. On a terminal the line is redrawn (``force``: even
        if it was lately); in a log, ``force`` with nothing done announces a step."""
        self.done = done
        if self.quiet or Progress.silenced:
            return
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
        print(line, file=self.stream, flush=True)

    def _draw(self, line):
        # A carriage return and erase-to-end-of-line redraw the line in place.
        self.stream.write(f"\r{line}\x1b[K")
        if self.done >= self.total:
            self.stream.write("\n")
            Progress._drawn = None
        else:
            Progress._drawn = self.stream
        self.stream.flush()

    @classmethod
    def end_line(cls):
        """End what a command leaves open when it ends: a terminal line left drawn (a run
        stopped short, a step announced and never counted), so the next output starts on a
        line of its own; a log's announced steps, with their end lines."""
        now = time.perf_counter()
        for progress in list(cls._announced):
            progress._end_step(now)
        if cls._drawn is not None:
            cls._drawn.write("\n")
            cls._drawn.flush()
            cls._drawn = None
