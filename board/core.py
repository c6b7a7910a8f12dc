"""A streaming design behind a UART (:class:`BoardCore`): the receiver, a FIFO of bytes, the
request decoder, the design, the reply encoder and the transmitter, with one line in and one
out; what a board's top wraps with its clock and pins. The decoder and the encoder sit beside
the serial pins, the design across the chip: the streams between them pass through hops
(:data:`HOP_DEPTH`-entry FIFOs) whose every output comes from a register.

The design's input and output streams carry a tag of :data:`~robohw.board.frame_decoder.TAG_BITS`
bits, the frame's. Nothing the design gives is lost: its results wait in its own output queue
while the transmitter is busy, and its input waits for it (a request then waits in the
decoder, the bytes behind it in the FIFO). Bytes that find the FIFO full are flagged by the
receiver (an overrun), so their request is answered with an error: the host keeps at most
:meth:`BoardCore.outstanding` requests on their way.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from robohw.board.frame_decoder import TAG_BITS, FrameDecoder
from robohw.board.frame_encoder import FrameEncoder
from robohw.board.frames import FrameFormat
from robohw.board.uart import RECEIVED_LAYOUT, UARTReceiver, UARTTransmitter
from robohw.hw.checks import check_integer

__all__ = ["BoardCore", "frame_format_of", "DEFAULT_FIFO_BYTES", "HOP_DEPTH"]

# The receiver's FIFO: bytes of requests that wait while the design is busy (a power of two:
# one block RAM's worth at 9 bits is 2,048; this is in LUT RAM).
DEFAULT_FIFO_BYTES = 256

# The entries of a hop between the decoder or the encoder and the design: two take a state
# every cycle with the ready, the valid and the data each from a register (the FIFO's level
# and output registers), so neither handshake nor the state crosses the chip through logic
# (the decoder's state through the design's credit check, then a hop's memory read through
# the design's range check, were the board's limiting paths:
# docs/notes/2026-12-every-design-at-100-mhz.md). A state crosses in two cycles.
HOP_DEPTH = 2


def _hop(m, name, source, sink):
    """``source`` into ``sink`` (streams whose payloads have the same fields, maybe in another
    order) through a :data:`HOP_DEPTH`-entry FIFO with a registered output, two cycles."""
    layout = sink.payload.shape()
    written = Signal(layout, name=f"{name}_written")
    for field, _ in layout:
        m.d.comb += written[field].eq(source.payload[field])
    fifo = m.submodules[name] = SyncFIFOBuffered(width=layout.size, depth=HOP_DEPTH)
    m.d.comb += [fifo.w_data.eq(written), fifo.w_en.eq(source.valid),
                 source.ready.eq(fifo.w_rdy),
                 sink.payload.eq(fifo.r_data), sink.valid.eq(fifo.r_rdy),
                 fifo.r_en.eq(sink.ready)]


def _fields(layout):
    return {name: (spec.shape.width, spec.shape.signed) for name, spec in layout
            if name != "tag"}


def frame_format_of(design, timeout_bits=40):
    """The :class:`~robohw.board.frames.FrameFormat` of ``design`` (a stream pipeline whose
    tag has :data:`~robohw.board.frame_decoder.TAG_BITS` bits): its input and output fields
    in their order."""
    if getattr(design, "tag_width", None) != TAG_BITS:
        raise ValueError(f"a board's design carries a tag of {TAG_BITS} bits, not "
                         f"{getattr(design, 'tag_width', None)}")
    return FrameFormat(_fields(design.i.payload.shape()), _fields(design.o.payload.shape()),
                       timeout_bits)


class BoardCore(wiring.Component):
    """``design`` behind a UART of ``divisor`` clock cycles a bit.

    Parameters
    ----------
    design : StreamPipeline
        A design whose tag has :data:`~robohw.board.frame_decoder.TAG_BITS` bits.
    divisor : int
        Clock cycles a bit on the line (the clock over the baud rate).
    digest : str
        16 hex digits naming the design (its identity reply's).
    fifo_bytes : int
        The receiver's FIFO (default :data:`DEFAULT_FIFO_BYTES`).

    Members
    -------
    rx : ``In(1, init=1)``
    tx : ``Out(1, init=1)``
    """
    def __init__(self, design, divisor, digest, *, fifo_bytes=DEFAULT_FIFO_BYTES):
        self.design = design
        self.frame_format = frame_format_of(design)
        self.divisor = divisor
        self.fifo_bytes = check_integer("fifo_bytes", fifo_bytes, minimum=2)
        self._receiver, self._transmitter = UARTReceiver(divisor), UARTTransmitter(divisor)
        self._decoder = FrameDecoder(self.frame_format, divisor)
        self._encoder = FrameEncoder(self.frame_format, digest)
        super().__init__({"rx": In(1, init=1), "tx": Out(1, init=1)})

    def outstanding(self):
        """Requests the host may keep on their way: as many as the FIFO holds whole."""
        return self.fifo_bytes // self.frame_format.request_bytes

    def elaborate(self, platform):
        m = Module()
        m.submodules.receiver = receiver = self._receiver
        m.submodules.transmitter = transmitter = self._transmitter
        m.submodules.decoder = decoder = self._decoder
        m.submodules.encoder = encoder = self._encoder
        m.submodules.design = design = self.design
        m.submodules.fifo = fifo = SyncFIFOBuffered(width=RECEIVED_LAYOUT.size,
                                                    depth=self.fifo_bytes)
        m.d.comb += [receiver.rx.eq(self.rx), self.tx.eq(transmitter.tx),
                     fifo.w_data.eq(receiver.o.payload), fifo.w_en.eq(receiver.o.valid),
                     receiver.o.ready.eq(fifo.w_rdy)]
        # The FIFO's bytes into the decoder through a register: an ECP5 block RAM's read data
        # comes late in the cycle, and through the decoder's checks on to the encoder it was
        # the board's limiting path (docs/notes/2026-12-every-design-at-100-mhz.md).
        byte = Signal.like(fifo.r_data, name="received", reset_less=True)
        held = Signal(name="received_valid")
        m.d.comb += [fifo.r_en.eq(~held | decoder.i.ready),
                     decoder.i.payload.eq(byte), decoder.i.valid.eq(held)]
        with m.If(fifo.r_en):
            m.d.sync += [held.eq(fifo.r_rdy), byte.eq(fifo.r_data)]
        # The decoder's states into the design and the design's results into the encoder,
        # each through a hop (the layouts are alike but for their order of declaration).
        _hop(m, "states", decoder.o, design.i)
        _hop(m, "results", design.o, encoder.results)
        wiring.connect(m, decoder.replies, encoder.replies)
        wiring.connect(m, encoder.o, transmitter.i)
        return m
