"""The replies of the board's protocol (:mod:`robohw.board.frames`) as a byte stream: each of the
design's results, and each identity or error reply the decoder asks for
(:mod:`robohw.board.frame_decoder`), one frame after another, the CRC-16 found as the bytes
go."""

from amaranth.hdl import Cat, Const, Module, Mux, Signal, unsigned
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from robohw.board.crc import crc16_next
from robohw.board.frame_decoder import REPLY_LAYOUT, tagged_layout
from robohw.board.frames import (
    CRC_INIT,
    DIGEST_BYTES,
    IDENTITY,
    PROTOCOL_VERSION,
    REPLY_SYNC,
    RESULT,
    FrameFormat,
    field_bytes,
)

__all__ = ["FrameEncoder"]


class FrameEncoder(wiring.Component):
    """Replies into bytes.

    Parameters
    ----------
    frame_format : FrameFormat
        The design's frames.
    digest : str
        The design's digest, :data:`~robohw.board.frames.DIGEST_BYTES` bytes in hex, which an
        identity reply carries beside :data:`~robohw.board.frames.PROTOCOL_VERSION`.

    Members
    -------
    results : ``In(stream.Signature(tagged_layout(frame_format.outputs)))``
        The design's results, each taken when no reply is being sent and none is asked for.
    replies : ``In(stream.Signature(REPLY_LAYOUT))``
        Identity and error replies, taken first.
    o : ``Out(stream.Signature(unsigned(8)))``
        The bytes (into :class:`~robohw.board.uart.UARTTransmitter`).
    """
    def __init__(self, frame_format, digest):
        if not isinstance(frame_format, FrameFormat):
            raise TypeError(f"frame_format must be a FrameFormat, not {frame_format!r}")
        if not isinstance(digest, str):
            raise TypeError(f"digest must be a str, not {digest!r}")
        try:
            digest_bytes = bytes.fromhex(digest)
        except ValueError:
            digest_bytes = b""
        if len(digest_bytes) != DIGEST_BYTES:
            raise ValueError(f"digest must be {2 * DIGEST_BYTES} hex digits, not {digest!r}")
        self._format, self._digest = frame_format, digest_bytes
        super().__init__({"results": In(stream.Signature(tagged_layout(frame_format.outputs))),
                          "replies": In(stream.Signature(REPLY_LAYOUT)),
                          "o": Out(stream.Signature(unsigned(8)))})

    def elaborate(self, platform):
        m = Module()
        outputs = self._format.outputs
        result_bytes = sum(field_bytes(width) for width, _ in outputs.values())
        longest = max(result_bytes, 1 + DIGEST_BYTES)
        # The frame but its CRC, its first byte lowest; its bytes left; the CRC so far; CRC
        # bytes left.
        frame = Signal(8 * (3 + longest), reset_less=True)
        left = Signal(range(3 + longest + 1))
        crc = Signal(16, reset_less=True)
        crc_left = Signal(range(3))
        sync = Signal()                      # the byte at the bottom is the sync byte
        result, reply = self.results.payload, self.replies.payload
        fields = Cat(*(Cat(result[f].as_unsigned(), Const(0, 8 * field_bytes(w) - w))
                       for f, (w, _) in outputs.items()))
        # The identity: the protocol's version, then the digest's bytes in order.
        identity = Cat(Const(PROTOCOL_VERSION, 8),
                       Const(int.from_bytes(self._digest, "little"), 8 * DIGEST_BYTES))
        busy = (left != 0) | (crc_left != 0)
        m.d.comb += [self.replies.ready.eq(~busy),
                     self.results.ready.eq(~busy & ~self.replies.valid)]
        with m.If(self.replies.valid & self.replies.ready):
            is_identity = reply.kind == IDENTITY
            m.d.sync += [frame.eq(Cat(Const(REPLY_SYNC, 8), reply.kind, reply.tag,
                                      Mux(is_identity, identity, reply.code))),
                         left.eq(Mux(is_identity, 3 + 1 + DIGEST_BYTES, 3 + 1)),
                         sync.eq(1), crc.eq(CRC_INIT)]
        with m.Elif(self.results.valid & self.results.ready):
            m.d.sync += [frame.eq(Cat(Const(REPLY_SYNC, 8), Const(RESULT, 8), result.tag,
                                      fields)),
                         left.eq(3 + result_bytes), sync.eq(1), crc.eq(CRC_INIT)]
        m.d.comb += [self.o.valid.eq(busy),
                     self.o.payload.eq(Mux(left != 0, frame[:8],
                                           Mux(crc_left == 2, crc[8:], crc[:8])))]
        with m.If(self.o.valid & self.o.ready):
            with m.If(left != 0):
                m.d.sync += [frame.eq(frame >> 8), left.eq(left - 1), sync.eq(0)]
                with m.If(~sync):
                    m.d.sync += crc.eq(crc16_next(crc, frame[:8]))
                with m.If(left == 1):
                    m.d.sync += crc_left.eq(2)
            with m.Else():
                m.d.sync += crc_left.eq(crc_left - 1)
        return m
