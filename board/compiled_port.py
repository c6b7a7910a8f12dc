"""A serial port onto a board compiled by Verilator (:class:`CompiledPort`): the
:class:`~robohw.board.sim_port.SimulatedPort` of a large design, whose cycles Amaranth's
simulator would take hours for. The board runs behind a :class:`~robohw.board.host_link.HostLink`
(a UART on each line, in the model), so a call clocks it through whole bytes in C++; a read
gives up after ``timeout_cycles`` cycles without a byte, as the simulated port's does.
:func:`simulated_board` is the board ``robohw board run --port sim`` talks to.
"""

import collections

import numpy as np

from robohw.board.host_link import HostLink
from robohw.board.sim_port import line_bytes
from robohw.hw.checks import check_integer
from robohw.sim.compiled import build_compiled

__all__ = ["CompiledPort", "simulated_board", "SIMULATED_DIVISOR"]

# The simulated board's UART: 4 clock cycles a bit, the fewest the UART takes, so that a state
# costs the fewest simulated cycles; a byte on the line is the same at any rate (the bit timing
# at a real divisor is tests/board/test_uart.py's).
SIMULATED_DIVISOR = 4
# Byte times a read waits beyond a request's own bytes and the design's latency: a reply's
# bytes and a margin.
_QUIET_BYTES = 60

# Cycles a read runs at most before it says how many bytes came: far beyond any timeout a
# test gives (a guard against a port that never falls quiet).
_MAX_CYCLES = 10**9


class CompiledPort:
    """``core`` (a :class:`~robohw.board.core.BoardCore`) behind a port whose reads give up
    after ``timeout_cycles`` clock cycles without a byte, compiled by Verilator.

    ``corrupt``, if given, is called with each byte written and returns the byte put on the
    line (a test's corrupted link); ``None`` drops it (a lost byte). ``identity`` names the
    design for the compiled model's cache (:func:`robohw.sim.compiled.build_compiled`: a
    model is then found without elaborating the design). ``cycles``: the clock cycles
    simulated so far.
    """
    def __init__(self, core, *, timeout_cycles, corrupt=None, identity=None, say=None):
        self.core, self.corrupt = core, corrupt
        self.timeout_cycles = check_integer("timeout_cycles", timeout_cycles, minimum=1)
        self._model = build_compiled(HostLink(core), identity=identity, say=say)
        if self._model.inputs.keys() != {"data"}:
            raise AssertionError(f"the link's input is a byte, not {self._model.inputs}")
        self._session = self._model.session()
        self._pending = collections.deque()
        self._received = collections.deque()

    @property
    def cycles(self):
        return self._session.cycles

    def write(self, data):
        """Put ``data``'s bytes on the line, after the bytes written before."""
        self._pending.extend(line_bytes(data, self.corrupt))
        return len(data)

    def read(self, count):
        """Up to ``count`` bytes the core sent, waiting while it sends more within the
        timeout."""
        want = count - len(self._received)
        if want > 0:
            inputs = np.array(self._pending, dtype=np.uint32).reshape(-1, 1)
            words, taken = self._session.run(inputs, want=want, quiet=self.timeout_cycles,
                                             max_cycles=_MAX_CYCLES)
            for _ in range(taken):
                self._pending.popleft()
            for word in words[:, 0].tolist():
                # A byte the host's UART took in error is one the host cannot trust: a byte
                # it never got (the driver names the reply short or bad).
                if not (word >> 8) & 1:
                    self._received.append(word & 0xFF)
        return bytes(self._received.popleft() for _ in range(min(count, len(self._received))))

    def close(self):
        """Free the compiled model."""
        self._session.close()


def simulated_board(dut, digest, *, say=None):
    """A :class:`CompiledPort` onto a board holding ``dut`` (a streaming design with a board's
    tag; its ``latency``) whose identity is ``digest`` (a hex string,
    :func:`~robohw.board.frames.design_digest`'s), its UART at
    :data:`SIMULATED_DIVISOR` cycles a bit: what ``robohw board run --port sim`` drives, the
    board without the hardware. Its reads wait for a request's bytes, the design's latency and
    a reply before they give up; its compiled model is cached by ``digest``
    (:func:`robohw.sim.compiled.build_compiled`); ``say`` hears a build's progress."""
    from robohw.board.core import BoardCore
    core = BoardCore(dut, SIMULATED_DIVISOR, digest)
    quiet = (core.frame_format.request_bytes + _QUIET_BYTES) * 10 * SIMULATED_DIVISOR + \
        dut.latency
    return CompiledPort(core, timeout_cycles=quiet, say=say,
                        identity=f"simulated board divisor={SIMULATED_DIVISOR} {digest}")
