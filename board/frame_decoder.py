"""The requests of the board's protocol (:mod:`robohw.board.frames`) taken from a byte stream:
each good state request's fields and tag into the design's input stream, each identify request
and each bad request into the reply stream, which the encoder answers
(:mod:`robohw.board.frame_encoder`)."""

from amaranth.hdl import Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from robohw.board.crc import crc16_next
from robohw.board.frames import (
    CRC_INIT,
    ERROR,
    ERROR_CODES,
    IDENTIFY,
    IDENTITY,
    REQUEST_SYNC,
    STATE,
    FrameFormat,
    field_bytes,
)
from robohw.board.uart import RECEIVED_LAYOUT
from robohw.hw.checks import check_integer

__all__ = ["FrameDecoder", "REPLY_LAYOUT", "TAG_BITS", "tagged_layout"]

# A frame's tag: one byte.
TAG_BITS = 8
# What the decoder asks the encoder to send: an identity or an error reply.
REPLY_LAYOUT = data.StructLayout({"kind": unsigned(8), "tag": unsigned(TAG_BITS),
                                  "code": unsigned(8)})


def tagged_layout(fields):
    """A design's stream payload of ``fields`` (``{field: (width, signed)}``): each field at
    its width and signedness, then the tag (:data:`TAG_BITS`)."""
    return data.StructLayout({**{field: (signed if is_signed else unsigned)(width)
                                 for field, (width, is_signed) in fields.items()},
                              "tag": unsigned(TAG_BITS)})


class FrameDecoder(wiring.Component):
    """Requests from bytes.

    Parameters
    ----------
    frame_format : FrameFormat
        The design's frames.
    divisor : int
        Clock cycles a bit on the line: a request that pauses for ``frame_format.timeout_bits``
        bit times before its end is truncated.

    Members
    -------
    i : ``In(stream.Signature(RECEIVED_LAYOUT))``
        The bytes (:class:`~robohw.board.uart.UARTReceiver`'s, through a FIFO); one taken a
        cycle while a request is read, none while a request waits for ``o`` or ``replies``.
    o : ``Out(stream.Signature(tagged_layout(frame_format.inputs)))``
        Each good state request.
    replies : ``Out(stream.Signature(REPLY_LAYOUT))``
        ``IDENTITY`` for each good identify request; ``ERROR`` and a code
        (:data:`~robohw.board.frames.ERRORS`) for each bad request: its CRC failed, it stopped
        before its end, its kind is unknown or a byte of it came in error.
    """
    def __init__(self, frame_format, divisor):
        if not isinstance(frame_format, FrameFormat):
            raise TypeError(f"frame_format must be a FrameFormat, not {frame_format!r}")
        self._format = frame_format
        self._timeout = frame_format.timeout_bits * check_integer("divisor", divisor,
                                                                  minimum=1)
        super().__init__({"i": In(stream.Signature(RECEIVED_LAYOUT)),
                          "o": Out(stream.Signature(tagged_layout(frame_format.inputs))),
                          "replies": Out(stream.Signature(REPLY_LAYOUT))})

    def elaborate(self, platform):
        m = Module()
        fields = self._format.inputs
        body_bytes = sum(field_bytes(width) for width, _ in fields.values())
        kind, tag = Signal(8), Signal(TAG_BITS)
        crc = Signal(16, init=CRC_INIT)
        body = Signal(8 * body_bytes, reset_less=True)
        left = Signal(range(body_bytes + 1))       # body bytes still to come
        failed = Signal()                          # a byte of this request came in error
        said = Signal(8)                           # the CRC's high byte, as the frame says
        waited = Signal(range(self._timeout + 1))  # cycles since this request's last byte
        byte, taken = self.i.payload.data, self.i.valid & self.i.ready
        reply = self.replies.payload
        # A body byte shifts into the body a cycle after it is taken, from registers: the
        # state's decode would otherwise enable the body's every flip-flop through logic, a
        # net across the decoder (docs/notes/2026-12-every-design-at-100-mhz.md). The CRC's
        # two bytes follow the body, so it is whole before the request ends.
        shift = Signal(name="body_shift")
        incoming = Signal(8, name="body_byte", reset_less=True)
        m.d.sync += [shift.eq(0), incoming.eq(byte)]
        with m.If(shift):
            m.d.sync += body.eq((incoming << (8 * body_bytes - 8)) | (body >> 8))

        def error(name):
            m.d.sync += [self.replies.valid.eq(1), reply.kind.eq(ERROR),
                         reply.code.eq(ERROR_CODES[name])]
            m.next = "REPLY"

        # The state's fields from the body, its first byte lowest.
        at = 0
        for field, (width, _) in fields.items():
            m.d.comb += self.o.payload[field].eq(body[8 * at:8 * at + width])
            at += field_bytes(width)
        m.d.comb += self.o.payload.tag.eq(tag)

        with m.FSM():
            with m.State("HUNT"):                  # skip bytes to a sync byte
                m.d.comb += self.i.ready.eq(1)
                m.d.sync += [crc.eq(CRC_INIT), tag.eq(0), failed.eq(0), waited.eq(0)]
                with m.If(taken & ~self.i.payload.error & (byte == REQUEST_SYNC)):
                    m.next = "KIND"
            for state, following in (("KIND", "TAG"), ("TAG", "BODY"), ("BODY", "CRC_HIGH"),
                                     ("CRC_HIGH", "CRC_LOW"), ("CRC_LOW", "END")):
                with m.State(state):
                    m.d.comb += self.i.ready.eq(1)
                    with m.If(taken):
                        m.d.sync += [waited.eq(0), failed.eq(failed | self.i.payload.error)]
                        if state in ("KIND", "TAG", "BODY"):
                            m.d.sync += crc.eq(crc16_next(crc, byte))
                        if state == "KIND":
                            m.d.sync += [kind.eq(byte),
                                         left.eq(Mux(byte == STATE, body_bytes, 0))]
                            with m.If((byte != STATE) & (byte != IDENTIFY)):
                                m.d.sync += tag.eq(0)
                                error("unknown kind")
                            with m.Else():
                                m.next = following
                        elif state == "TAG":
                            m.d.sync += tag.eq(byte)
                            m.next = "BODY"
                            with m.If(left == 0):          # an identify request: no body
                                m.next = "CRC_HIGH"
                        elif state == "BODY":
                            m.d.sync += [shift.eq(1), left.eq(left - 1)]
                            with m.If(left == 1):
                                m.next = "CRC_HIGH"
                        elif state == "CRC_HIGH":
                            m.d.sync += said.eq(byte)
                            m.next = following
                        else:
                            m.next = "END"
                            with m.If(failed | self.i.payload.error):
                                error("line error")
                            with m.Elif((said != crc[8:]) | (byte != crc[:8])):
                                error("checksum")
                    with m.Else():
                        m.d.sync += waited.eq(waited + 1)
                        with m.If(waited == self._timeout - 1):
                            error("truncated")
            with m.State("END"):                   # a good request: to the design or a reply
                with m.If(kind == IDENTIFY):
                    m.d.sync += [self.replies.valid.eq(1), reply.kind.eq(IDENTITY),
                                 reply.code.eq(0)]
                    m.next = "REPLY"
                with m.Else():
                    m.d.comb += self.o.valid.eq(1)
                    with m.If(self.o.ready):
                        m.next = "HUNT"
            with m.State("REPLY"):
                with m.If(self.replies.ready):
                    m.d.sync += self.replies.valid.eq(0)
                    m.next = "HUNT"
        m.d.comb += reply.tag.eq(tag)
        return m
