"""The board's serial protocol (version :data:`PROTOCOL_VERSION`): the frames between a host and a
design behind a UART, as the host writes and reads them (:class:`FrameFormat`) and as the
gateware takes and gives them (:mod:`robohw.board.frame_decoder`,
:mod:`robohw.board.frame_encoder`).

A request: :data:`REQUEST_SYNC`, its kind, a tag, its body, a CRC-16 (:func:`crc16`, high
byte first) over the kind, the tag and the body. Kinds: :data:`STATE` (the body is one state:
each input field of the design, its code little-endian in whole bytes) and :data:`IDENTIFY`
(no body).

A reply: :data:`REPLY_SYNC`, its kind, the request's tag, its body, a CRC-16 likewise. Kinds:
:data:`RESULT` (each output field of the design, its code little-endian in whole bytes; flags a
byte each), :data:`IDENTITY` (the protocol version, then the design's digest: eight bytes) and
:data:`ERROR` (one byte, an :data:`ERRORS` code). A request whose CRC fails, whose kind is
unknown, whose bytes came in error (a UART framing error or overrun) or that stops for longer
than the timeout (:attr:`FrameFormat.timeout_bits`) before its end is answered with an error
frame and never reaches the design; the error frame carries the request's tag where it got one
(else 0). A request whose sync byte is lost is not answered (its bytes are skipped until the
next sync byte): the host's timeout names it. A CRC of 16 bits makes a false frame found in
such bytes (a sync byte, a known kind and a matching CRC by chance) about one in 10**9.
"""

import dataclasses
import hashlib
import numbers

from robohw.hw.checks import check_integer

__all__ = ["PROTOCOL_VERSION", "REQUEST_SYNC", "REPLY_SYNC", "STATE", "IDENTIFY", "RESULT",
           "IDENTITY", "ERROR", "ERRORS", "ERROR_CODES", "DIGEST_BYTES", "CRC_BYTES",
           "CRC_INIT", "CRC_POLYNOMIAL", "FRAME_OVERHEAD", "crc16", "field_bytes",
           "FrameFormat", "Reply", "FrameError", "design_digest"]

PROTOCOL_VERSION = 1
REQUEST_SYNC, REPLY_SYNC = 0xA5, 0x5A
STATE, IDENTIFY = 0x01, 0x02
RESULT, IDENTITY, ERROR = 0x81, 0x82, 0xE0
# Error codes: the request's CRC failed; it stopped before its end; its kind is unknown; a
# byte of it came in error from the UART.
ERRORS = {1: "checksum", 2: "truncated", 3: "unknown kind", 4: "line error"}
ERROR_CODES = {name: code for code, name in ERRORS.items()}
# The design's digest in an identity reply (16 hex digits).
DIGEST_BYTES = 8
# CRC-16/CCITT-FALSE: the polynomial x^16 + x^12 + x^5 + 1 (0x1021), initial value 0xFFFF.
CRC_POLYNOMIAL, CRC_INIT, CRC_BYTES = 0x1021, 0xFFFF, 2
# Bytes of a frame beside its body: sync, kind, tag, CRC.
FRAME_OVERHEAD = 3 + CRC_BYTES


class FrameError(Exception):
    """A reply the host cannot take: its sync byte, kind, length or CRC is wrong."""


def crc16(data, crc=CRC_INIT):
    """The CRC-16 (:data:`CRC_POLYNOMIAL`, most significant bit first, no reflection) of
    ``data`` (bytes), continuing from ``crc``."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ CRC_POLYNOMIAL) & 0xFFFF if crc & 0x8000 else \
                (crc << 1) & 0xFFFF
    return crc


def design_digest(description):
    """The digest a board answers its identity with: :data:`DIGEST_BYTES` bytes of SHA-256 over
    ``description`` (what determines the design: its name, the robot's description, its
    formats), in hex."""
    if not isinstance(description, str):
        raise TypeError(f"description must be a str, not {description!r}")
    return hashlib.sha256(description.encode()).hexdigest()[:2 * DIGEST_BYTES]


def field_bytes(width):
    """Bytes a field of ``width`` bits takes in a frame."""
    return (check_integer("width", width, minimum=1) + 7) // 8


@dataclasses.dataclass(frozen=True)
class Reply:
    """A reply as the host read it: its ``kind``, ``tag`` and ``values`` (``{field: code}``
    of a result, ``{"version", "digest"}`` of an identity, ``{"error": name}`` of an error)."""
    kind: int
    tag: int
    values: dict


@dataclasses.dataclass(frozen=True)
class FrameFormat:
    """The frames of one design: its ``inputs`` and ``outputs``, ``{field: (width, signed)}``
    in the payload's order (without the tag), and ``timeout_bits``, the bit times a request may
    pause before its end (the gateware's truncation timeout)."""
    inputs: dict
    outputs: dict
    timeout_bits: int = 40

    def __post_init__(self):
        for name in ("inputs", "outputs"):
            fields = getattr(self, name)
            if not isinstance(fields, dict) or not fields:
                raise ValueError(f"{name} must be a non-empty dict of fields")
            for field, (width, signed) in fields.items():
                check_integer(f"{field}: width", width, minimum=1)
        check_integer("timeout_bits", self.timeout_bits, minimum=20)

    def describe(self):
        """The format as JSON takes it (a board build's sidecar): each field's width and
        signedness in order, the timeout, the frames' bytes."""
        return {"inputs": {k: {"width": w, "signed": bool(s)} for k, (w, s) in
                           self.inputs.items()},
                "outputs": {k: {"width": w, "signed": bool(s)} for k, (w, s) in
                            self.outputs.items()},
                "timeout_bits": self.timeout_bits, "request_bytes": self.request_bytes,
                "result_bytes": self.result_bytes}

    @property
    def request_bytes(self):
        """Bytes of a state request: sync, kind, tag, body, CRC."""
        return FRAME_OVERHEAD + sum(field_bytes(w) for w, _ in self.inputs.values())

    @property
    def result_bytes(self):
        """Bytes of a result reply."""
        return FRAME_OVERHEAD + sum(field_bytes(w) for w, _ in self.outputs.values())

    def state_request(self, tag, codes):
        """The request of one state: ``codes`` ``{input field: code}`` (each within its
        field's range), ``tag`` a byte."""
        check_integer("tag", tag, minimum=0, maximum=255)
        if set(codes) != set(self.inputs):
            raise ValueError(f"a state has the fields {list(self.inputs)}, not {list(codes)}")
        body = b"".join(_code_bytes(field, codes[field], *self.inputs[field])
                        for field in self.inputs)
        return _frame(REQUEST_SYNC, STATE, tag, body)

    @staticmethod
    def identify_request(tag=0):
        """The request of the design's identity."""
        check_integer("tag", tag, minimum=0, maximum=255)
        return _frame(REQUEST_SYNC, IDENTIFY, tag, b"")

    def reply_bytes(self, kind):
        """The length of a reply of ``kind`` (:data:`RESULT`, :data:`IDENTITY`,
        :data:`ERROR`)."""
        body = {RESULT: self.result_bytes - FRAME_OVERHEAD, IDENTITY: 1 + DIGEST_BYTES,
                ERROR: 1}
        if kind not in body:
            raise FrameError(f"unknown reply kind 0x{kind:02x}")
        return FRAME_OVERHEAD + body[kind]

    def read_reply(self, frame):
        """The :class:`Reply` of ``frame`` (one reply's bytes); :class:`FrameError` for a
        wrong sync byte, kind, length or CRC."""
        frame = bytes(frame)
        if len(frame) < FRAME_OVERHEAD or frame[0] != REPLY_SYNC:
            raise FrameError(f"a reply starts with 0x{REPLY_SYNC:02x}, not {frame[:1].hex()}")
        kind, tag = frame[1], frame[2]
        if len(frame) != self.reply_bytes(kind):
            raise FrameError(f"a reply of kind 0x{kind:02x} has {self.reply_bytes(kind)} "
                             f"bytes, not {len(frame)}")
        crc, said = crc16(frame[1:-CRC_BYTES]), int.from_bytes(frame[-CRC_BYTES:], "big")
        if crc != said:
            raise FrameError(f"reply {tag}: its CRC-16 is 0x{crc:04x}, the frame says "
                             f"0x{said:04x}")
        body = frame[3:-CRC_BYTES]
        if kind == ERROR:
            return Reply(kind, tag, {"error": ERRORS.get(body[0], f"code {body[0]}")})
        if kind == IDENTITY:
            return Reply(kind, tag, {"version": body[0], "digest": body[1:].hex()})
        values, at = {}, 0
        for field, (width, signed) in self.outputs.items():
            size = field_bytes(width)
            code = int.from_bytes(body[at:at + size], "little")
            if signed and code >> (width - 1) & 1:
                code -= 1 << width
            values[field], at = code, at + size
        return Reply(kind, tag, values)


def _code_bytes(field, code, width, signed):
    low, high = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    if not isinstance(code, numbers.Integral) or isinstance(code, bool):
        raise TypeError(f"{field}: a code must be an integer, not {code!r}")
    if not low <= code <= high:
        raise ValueError(f"{field}: code {code} is beyond its {width} bits")
    return (int(code) & ((1 << width) - 1)).to_bytes(field_bytes(width), "little")


def _frame(sync, kind, tag, body):
    content = bytes([kind, tag]) + body
    return bytes([sync]) + content + crc16(content).to_bytes(CRC_BYTES, "big")
