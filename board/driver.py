"""The host's side of a design on a board (:class:`Board`): states sent as requests of the board's
protocol (:mod:`robohw.board.frames`) through a serial port, several on their way at once, and
their replies read back, matched by tag and checked.

Anything that is not a good reply to a request on its way is an error naming what happened
(:class:`BoardError`): a reply's bad CRC or length, an error reply (the board found the
request's CRC wrong, the request truncated or a byte of it in error), no reply within the
timeout, a reply to no request. Never a silently wrong row.
"""

from robohw.board.core import DEFAULT_FIFO_BYTES
from robohw.board.frames import (
    DIGEST_BYTES,
    ERROR,
    IDENTITY,
    PROTOCOL_VERSION,
    REPLY_SYNC,
    RESULT,
    FrameError,
    FrameFormat,
)
from robohw.hw.checks import check_integer

__all__ = ["Board", "BoardError", "open_serial"]

# Tags are a byte: at most this many requests on their way, each its own tag.
MAX_OUTSTANDING = 256


class BoardError(RuntimeError):
    """The board did not answer a request as the protocol says."""


def open_serial(path, baudrate, timeout):
    """A pyserial port at ``path`` (8N1, ``baudrate``, reads waiting ``timeout`` seconds)."""
    try:
        import serial
    except ImportError:
        raise BoardError("a serial port needs pyserial: pip install 'robohw[board]'") from None
    try:
        return serial.Serial(path, baudrate=baudrate, timeout=timeout)
    except serial.SerialException as error:
        raise BoardError(f"{path}: {error}") from None


class Board:
    """A design behind a serial ``port``.

    Parameters
    ----------
    port
        An open port: ``write(bytes)`` and ``read(count)``, which returns fewer bytes where
        its timeout passes first (a pyserial ``Serial``, :func:`open_serial`).
    frame_format : FrameFormat
        The design's frames.
    digest : str
        The design's digest: checked, with :data:`~robohw.board.frames.PROTOCOL_VERSION`,
        against the board's identity before the first state.
    outstanding : int or None
        Requests kept on their way (at most the board's FIFO's, and 256); ``None``: as many
        as a :class:`~robohw.board.core.BoardCore`'s default FIFO holds whole.
    """
    def __init__(self, port, frame_format, *, digest, outstanding):
        if not isinstance(frame_format, FrameFormat):
            raise TypeError(f"frame_format must be a FrameFormat, not {frame_format!r}")
        if not (isinstance(digest, str) and len(digest) == 2 * DIGEST_BYTES):
            raise ValueError(f"digest must be {2 * DIGEST_BYTES} hex digits, not {digest!r}")
        self.port, self.frame_format, self.digest = port, frame_format, digest.lower()
        if outstanding is None:
            outstanding = min(max(DEFAULT_FIFO_BYTES // frame_format.request_bytes, 1),
                              MAX_OUTSTANDING)
        self.outstanding = check_integer("outstanding", outstanding, minimum=1,
                                         maximum=MAX_OUTSTANDING)
        self._identified = False

    def identify(self):
        """The board's ``{"version", "digest"}``; :class:`BoardError` where they are not this
        driver's protocol version and the design's digest."""
        self.port.write(self.frame_format.identify_request(0))
        reply = self._read_reply({0: "identify"})
        if reply.kind != IDENTITY:
            raise BoardError(f"the board answered its identity request with {reply.values}")
        version, digest = reply.values["version"], reply.values["digest"]
        if version != PROTOCOL_VERSION:
            raise BoardError(f"the board speaks protocol version {version}, this driver "
                             f"{PROTOCOL_VERSION}")
        if digest != self.digest:
            raise BoardError(f"the board holds design {digest}, not {self.digest} (another "
                             f"design, robot, width or interval): build and flash the one "
                             f"asked for (robohw board build with the same --design, --robot, "
                             f"--width and --ii)")
        self._identified = True
        return reply.values

    def run(self, states, on_result=None):
        """Each of ``states`` (``{input field: code}``) computed on the board: the list of
        ``{output field: code}`` in their order. ``on_result``, if given, is called with the
        count of results received after each one (progress)."""
        if not self._identified:
            self.identify()
        states = list(states)
        results, waiting, sent = [None] * len(states), {}, 0
        while sent < len(states) or waiting:
            while sent < len(states) and len(waiting) < self.outstanding:
                tag = sent % MAX_OUTSTANDING
                self.port.write(self.frame_format.state_request(tag, states[sent]))
                waiting[tag], sent = sent, sent + 1
            reply = self._read_reply(waiting)
            index = waiting.pop(reply.tag)
            if reply.kind != RESULT:
                raise BoardError(f"state {index} (tag {reply.tag}): the board answered "
                                 f"{reply.values.get('error', reply.values)!r}")
            results[index] = reply.values
            if on_result is not None:
                on_result(sent - len(waiting))
        return results

    def _read(self, count, waiting):
        data = self.port.read(count)
        if len(data) != count:
            oldest = min(waiting.values(), default=None)
            raise BoardError(f"no reply within the port's timeout: {len(waiting)} requests on "
                             f"their way (the oldest: {oldest!r}), {len(data)} of {count} "
                             f"bytes read")
        return data

    def _read_reply(self, waiting):
        head = self._read(3, waiting)
        if head[0] != REPLY_SYNC:
            raise BoardError(f"a reply starts with 0x{REPLY_SYNC:02x}, not 0x{head[0]:02x}: "
                             f"bytes were lost on the line")
        try:
            size = self.frame_format.reply_bytes(head[1])
            reply = self.frame_format.read_reply(head + self._read(size - 3, waiting))
        except FrameError as error:
            raise BoardError(f"a bad reply: {error}") from None
        if reply.tag not in waiting:
            what = repr(reply.values["error"]) if reply.kind == ERROR else \
                f"of kind 0x{reply.kind:02x}"
            raise BoardError(f"a reply {what} to tag {reply.tag}, which no request on its way "
                             f"has: bytes the host did not send reached the board")
        return reply
