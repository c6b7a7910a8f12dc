"""The host's driver (robohw.board.driver) against a simulated board, in Amaranth's simulator
(robohw.board.sim_port) and compiled by Verilator (robohw.board.compiled_port) alike: the
identity checked before the first state, states computed with several requests on their way,
and every fault an error naming it: a corrupted byte, a lost byte, a lost sync byte (no
reply), the wrong design, a reply of bad CRC; its arguments checked."""

import numpy as np
import pytest
from affine_design import AffineDesign, affine

from robohw.board.compiled_port import CompiledPort
from robohw.board.core import BoardCore
from robohw.board.driver import Board, BoardError
from robohw.board.frames import REPLY_SYNC, RESULT, crc16
from robohw.board.sim_port import SimulatedPort

DIVISOR = 4
DIGEST = "a1b2c3d4e5f60718"


@pytest.fixture(params=[SimulatedPort, CompiledPort], ids=["amaranth", "verilator"])
def port_class(request):
    return request.param


def _board(port_class, corrupt=None, digest=DIGEST, outstanding=3):
    core = BoardCore(AffineDesign(), DIVISOR, DIGEST)
    # Quiet for 40 byte times: longer than any reply takes, shorter than a test's patience.
    port = port_class(core, timeout_cycles=40 * 10 * DIVISOR, corrupt=corrupt)
    return Board(port, core.frame_format, digest=digest, outstanding=outstanding), port


def _states(count, seed=0):
    rng = np.random.default_rng(seed)
    return [{"x": int(rng.integers(-2048, 2048)), "z": int(rng.integers(-(1 << 19), 1 << 19))}
            for _ in range(count)]


def test_the_driver_checks_the_identity_and_runs_states_several_at_once(port_class):
    board, port = _board(port_class, outstanding=4)
    assert board.identify() == {"version": 1, "digest": DIGEST}
    states = _states(24)
    counts = []
    assert board.run(states, counts.append) == [affine(s) for s in states]
    assert counts == list(range(1, 25))         # progress: each result as it comes
    # Four requests on their way: the line never idles between them, so 24 states take about
    # 24 requests' bits and the last reply's, not 24 round trips.
    request_bits = board.frame_format.request_bytes * 10
    assert port.cycles < (24 * request_bits + 400) * DIVISOR + 40 * 10 * DIVISOR


def test_the_wrong_design_is_refused_before_any_state(port_class):
    board, _ = _board(port_class, digest="ffffffffffffffff")
    with pytest.raises(BoardError, match="the board holds design a1b2c3d4e5f60718, not "
                                         "ffffffffffffffff"):
        board.run(_states(2))


def _fault(at, what):
    """A link that applies ``what`` to the ``at``-th byte written."""
    count = [0]

    def corrupt(byte):
        count[0] += 1
        return what(byte) if count[0] == at else byte
    return corrupt


@pytest.mark.parametrize("what, outstanding, message", [
    (lambda b: b ^ 0x04, 3, "checksum"),
    # Lost with the next request behind it: the next one's sync byte ends it, its CRC fails;
    # lost alone, it stops short.
    (lambda b: None, 3, "checksum"),
    (lambda b: None, 1, "truncated"),
])
def test_a_corrupted_or_lost_byte_is_an_error_naming_it(what, outstanding, message,
                                                       port_class):
    # The identify request is 5 bytes, a state request 10: byte 5 + 10 + 4 is in state 1's.
    board, _ = _board(port_class, corrupt=_fault(5 + 10 + 4, what), outstanding=outstanding)
    with pytest.raises(BoardError, match=rf"state 1 \(tag 1\): the board answered '{message}'"):
        board.run(_states(3))


def test_a_lost_sync_byte_leaves_no_reply_and_the_timeout_names_it(port_class):
    board, _ = _board(port_class, corrupt=_fault(5 + 10 + 1, lambda b: 0x00), outstanding=1)
    with pytest.raises(BoardError, match=r"no reply within the port's timeout: 1 requests on "
                                         r"their way \(the oldest: 1\)"):
        board.run(_states(3))


class _Replying:
    """A port that answers with the given bytes, whatever is written."""

    def __init__(self, data):
        self.data = bytearray(data)

    def write(self, data):
        return len(data)

    def read(self, count):
        out, self.data = bytes(self.data[:count]), self.data[count:]
        return out


def _reply(kind, tag, body):
    content = bytes([kind, tag]) + body
    return bytes([REPLY_SYNC]) + content + crc16(content).to_bytes(2, "big")


def test_a_bad_reply_or_a_reply_to_no_request_is_an_error():
    core = BoardCore(AffineDesign(), DIVISOR, DIGEST)
    fmt = core.frame_format
    identity = _reply(0x82, 0, bytes([1]) + bytes.fromhex(DIGEST))
    good = _reply(RESULT, 0, (5).to_bytes(3, "little") + b"\0")
    bad_crc = good[:-1] + bytes([good[-1] ^ 0xFF])
    board = Board(_Replying(identity + bad_crc), fmt, digest=DIGEST, outstanding=1)
    with pytest.raises(BoardError, match="a bad reply: reply 0: its CRC-16 is"):
        board.run(_states(1))
    stray = _reply(RESULT, 9, (5).to_bytes(3, "little") + b"\0")
    board = Board(_Replying(identity + stray), fmt, digest=DIGEST, outstanding=1)
    with pytest.raises(BoardError, match="a reply of kind 0x81 to tag 9, which no request"):
        board.run(_states(1))
    board = Board(_Replying(identity + b"\x00" + good), fmt, digest=DIGEST, outstanding=1)
    with pytest.raises(BoardError, match="a reply starts with 0x5a, not 0x00: bytes were lost"):
        board.run(_states(1))


def test_the_driver_checks_its_arguments():
    fmt = BoardCore(AffineDesign(), DIVISOR, DIGEST).frame_format
    with pytest.raises(ValueError, match="outstanding must be an integer in \\[1, 256\\], not 0"):
        Board(_Replying(b""), fmt, digest=DIGEST, outstanding=0)
    with pytest.raises(ValueError, match="digest must be 16 hex digits, not 'xyz'"):
        Board(_Replying(b""), fmt, digest="xyz", outstanding=1)
    with pytest.raises(TypeError, match="frame_format must be a FrameFormat"):
        Board(_Replying(b""), {}, digest=DIGEST, outstanding=1)
