"""Progress on stderr for long runs: ``[k/n] ####------ label (12.3 s, ~40 s left)``.

Silent when the stream is not a terminal (logs and pipes get the results alone) or when the
command line's ``--quiet`` set :attr:`Progress.silenced`.
"""

import sys
import time

__all__ = ["Progress"]


class Progress:
    """Counts ``done`` of ``total`` and prints a line with a bar of :attr:`BAR` characters and
    an estimate of the time left: at every :meth:`step`, and at most every
    :attr:`INTERVAL` seconds for :meth:`update` (a simulation reporting each result).

    ``quiet``: ``None`` (the default) prints only to a terminal.
    """
    BAR = 20
    INTERVAL = 2.0
    silenced = False     # set by ``--quiet``

    def __init__(self, total, stream=None, *, quiet=None):
        self.total, self.done = total, 0
        self.stream = stream if stream is not None else sys.stderr
        if quiet is None:
            quiet = not getattr(self.stream, "isatty", lambda: False)()
        self.quiet = quiet
        self._started = self._shown = time.perf_counter()

    def step(self, label):
        """One more of ``total`` is done: print its line."""
        self.update(self.done + 1, label, force=True)

    def update(self, done, label="", *, force=False):
        """``done`` of ``total`` are done: print a line unless one was printed lately."""
        self.done = done
        now = time.perf_counter()
        if self.quiet or Progress.silenced or (not force and now - self._shown < self.INTERVAL):
            return
        self._shown = now
        elapsed = now - self._started
        filled = round(self.BAR * self.done / max(self.total, 1))
        bar = "#" * filled + "-" * (self.BAR - filled)
        left = f", ~{elapsed * (self.total - done) / done:.0f} s left" \
            if 0 < done < self.total else ""
        print(f"[{self.done}/{self.total}] {bar} {label} ({elapsed:.1f} s{left})",
              file=self.stream, flush=True)
