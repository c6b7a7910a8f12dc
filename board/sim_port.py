"""A serial port onto a simulated board (:class:`SimulatedPort`): what a
:class:`~robohw.board.driver.Board` writes drives a :class:`~robohw.board.core.BoardCore`'s
line in Amaranth's simulator, bit by bit at its divisor, and what the core sends back is read
from its line; a read returns fewer bytes when the core stays silent for the port's timeout,
as a real port's does. The same driver then runs against the simulation and against a board.
"""

import collections

from amaranth.sim import Simulator

from robohw.hw.checks import check_integer

__all__ = ["SimulatedPort", "line_bytes"]

# Simulated cycles run at a time while a read waits.
_CHUNK = 256


def line_bytes(data, corrupt):
    """The bytes of ``data`` a simulated line carries: each through ``corrupt`` (a test's
    corrupted link: the byte put on the line, or ``None`` for a lost one), if given."""
    for byte in bytes(data):
        if corrupt is not None:
            byte = corrupt(byte)
            if byte is None:
                continue
        yield byte


class SimulatedPort:
    """``core`` (a :class:`~robohw.board.core.BoardCore`) behind a port whose reads give up
    after ``timeout_cycles`` clock cycles without a byte.

    ``corrupt``, if given, is called with each byte written and returns the byte put on the
    line (a test's corrupted link); ``None`` drops it (a lost byte).
    """
    def __init__(self, core, *, timeout_cycles, corrupt=None):
        self.core, self.corrupt = core, corrupt
        self.timeout_cycles = check_integer("timeout_cycles", timeout_cycles, minimum=1)
        self._bits, self._received = collections.deque(), collections.deque()
        self.cycles = 0                     # simulated clock cycles so far
        self._sim = Simulator(core)
        self._sim.add_clock(1e-6)
        self._sim.add_testbench(self._drive, background=True)
        self._sim.add_testbench(self._listen, background=True)

    def write(self, data):
        """Put ``data``'s bytes on the line (8N1), after the bytes written before."""
        for byte in line_bytes(data, self.corrupt):
            self._bits.extend([0] + [(byte >> k) & 1 for k in range(8)] + [1])
        return len(data)

    def read(self, count):
        """Up to ``count`` bytes the core sent, waiting while it sends more within the
        timeout."""
        quiet = 0
        while len(self._received) < count and quiet < self.timeout_cycles:
            before = len(self._received)
            self._run(_CHUNK)
            quiet = 0 if len(self._received) > before else quiet + _CHUNK
        return bytes(self._received.popleft() for _ in range(min(count, len(self._received))))

    def close(self):
        """A real port's ``close``: the simulation simply stops being run."""

    def _run(self, cycles):
        self.cycles += cycles
        self._sim.run_until(self.cycles * 1e-6)

    # The testbenches wait a cycle at a time: the simulation stops at any cycle, and a
    # testbench left inside a trigger's repeat() is an async generator that Python cannot
    # close when the port is collected.
    async def _drive(self, ctx):
        divisor = self.core.divisor
        while True:
            ctx.set(self.core.rx, self._bits.popleft() if self._bits else 1)
            for _ in range(divisor):
                await ctx.tick()

    async def _listen(self, ctx):
        divisor, line = self.core.divisor, self.core.tx
        while True:                             # a start bit's middle, then each bit's
            while ctx.get(line):
                await ctx.tick()
            byte = 0
            for cycle in range(divisor // 2 + 9 * divisor):
                await ctx.tick()
                offset = cycle + 1 - divisor // 2
                if offset > 0 and offset % divisor == 0 and offset // divisor <= 8:
                    byte |= ctx.get(line) << (offset // divisor - 1)
            self._received.append(byte)
