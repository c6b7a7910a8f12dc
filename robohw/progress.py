"""Progress lines on stderr for long runs: ``[k/n] ####------ label (seconds)``."""

import sys
import time

__all__ = ["Progress"]


class Progress:
    """Counts steps of a known total and prints one line per finished step to ``stream``, with
    a bar of :attr:`BAR` characters (one line per step, so logs stay readable)."""
    BAR = 20

    def __init__(self, total, stream=None):
        self.total, self.done = total, 0
        self.stream = stream if stream is not None else sys.stderr
        self._started = time.perf_counter()

    def step(self, label):
        self.done += 1
        elapsed = time.perf_counter() - self._started
        filled = round(self.BAR * self.done / max(self.total, 1))
        bar = "#" * filled + "-" * (self.BAR - filled)
        print(f"[{self.done}/{self.total}] {bar} {label} ({elapsed:.1f} s)", file=self.stream,
              flush=True)
