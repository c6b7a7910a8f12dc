"""The host's end of a board's line in gateware (:class:`HostLink`): a
:class:`~robohw.board.core.BoardCore` with a UART of its own divisor on each of its lines, so
that the whole board is a stream of bytes in and a stream of bytes out, which a compiled model
clocks without a Python call a bit (:mod:`robohw.board.compiled_port`).
"""

from amaranth.hdl import Module, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from robohw.board.core import BoardCore
from robohw.board.uart import RECEIVED_LAYOUT, UARTReceiver, UARTTransmitter

__all__ = ["HostLink", "SENT_LAYOUT"]

# A byte the host sends.
SENT_LAYOUT = data.StructLayout({"data": unsigned(8)})


class HostLink(wiring.Component):
    """``core`` between two UARTs at its divisor.

    Parameters
    ----------
    core : BoardCore
        The board.

    Members
    -------
    i : ``In(stream.Signature(SENT_LAYOUT))``
        The host's bytes, put on the core's ``rx`` back to back (a byte every
        ``BITS_PER_BYTE * divisor`` cycles at most).
    o : ``Out(stream.Signature(RECEIVED_LAYOUT))``
        The bytes the core sends on ``tx``, as a host's UART receives them (``error`` where
        one came in error, or found the one before it untaken: keep ``o.ready`` high).
    """
    def __init__(self, core):
        if not isinstance(core, BoardCore):
            raise TypeError(f"core must be a BoardCore, not {core!r}")
        self.core = core
        super().__init__({"i": In(stream.Signature(SENT_LAYOUT)),
                          "o": Out(stream.Signature(RECEIVED_LAYOUT))})

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self.core
        m.submodules.sender = sender = UARTTransmitter(core.divisor)
        m.submodules.listener = listener = UARTReceiver(core.divisor)
        m.d.comb += [sender.i.payload.eq(self.i.payload.data), sender.i.valid.eq(self.i.valid),
                     self.i.ready.eq(sender.i.ready),
                     core.rx.eq(sender.tx), listener.rx.eq(core.tx)]
        wiring.connect(m, listener.o, wiring.flipped(self.o))
        return m
