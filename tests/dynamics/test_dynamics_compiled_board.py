"""Inverse dynamics on a board compiled by Verilator (robohw.board.compiled_port): the engine
behind the UART, driven by the host's driver, gives the bit-exact model's torques and validity
for every state, while malformed requests between them (a bad CRC, an unknown kind, a request
cut short) are each answered with their error and never reach the design; requests go back to
back, a FIFO's worth on their way. A two-link arm in ``make test``; the UR5 at its defaults,
10,000 states, in ``make slow``."""

import numpy as np
import pytest

from robohw.board.compiled_port import CompiledPort
from robohw.board.core import BoardCore
from robohw.board.driver import Board
from robohw.board.frames import ERROR, ERRORS, FRAME_OVERHEAD, REQUEST_SYNC, STATE, crc16
from robohw.dynamics import board_design
from robohw.dynamics.inverse.codec import encode_states, torque_codes
from robohw.dynamics.inverse.model import model_outputs
from robohw.hw.payload import payload_rows
from robohw.robots import load_robot
from robohw.robots.sampling import random_robot, sample_states

# The UART's divisor: the fewest cycles a bit, so that a state's request costs the fewest
# simulated cycles (the bit timing at the real divisor is tests/board/test_uart.py's).
DIVISOR = 4


def _malformed(fmt, tag):
    """``[(bytes, error, tag)]``: a request with its CRC flipped, one of an unknown kind, and
    one cut short, each with the error and the tag the board answers (an unknown kind's: 0,
    the decoder stops before the tag; robohw.board.frames)."""
    body = bytes(fmt.request_bytes - FRAME_OVERHEAD)
    content = bytes([STATE, tag]) + body
    good = bytes([REQUEST_SYNC]) + content + crc16(content).to_bytes(2, "big")
    unknown = bytes([0x7F, tag])
    return [(good[:-1] + bytes([good[-1] ^ 0x01]), "checksum", tag),
            (bytes([REQUEST_SYNC]) + unknown + crc16(unknown).to_bytes(2, "big"),
             "unknown kind", 0),
            (good[:len(good) // 2], "truncated", tag)]


def _run_on_the_board(robot, count, chunk, width=None, interval=None, seed=7):
    """The board's outputs and the model's for ``count`` random states of ``robot`` (every
    tenth beyond the velocity limits), malformed requests between chunks of ``chunk``."""
    rng = np.random.default_rng(seed)
    q, qd, qdd = sample_states(robot, count, rng)
    qd[::10] *= 40.0
    dut, digest = board_design(robot, width=width, interval=interval)
    plan = dut.plan
    codes = encode_states(plan, q, qd, qdd)
    core = BoardCore(dut, DIVISOR, digest)
    fmt = core.frame_format
    # Quiet for a request's bytes and 60 byte times more: beyond the engine's latency and a
    # reply.
    port = CompiledPort(core, timeout_cycles=(fmt.request_bytes + 60) * 10 * DIVISOR)
    board = Board(port, fmt, digest=digest, outstanding=None)
    payloads, outputs = payload_rows(codes), []
    for start in range(0, count, chunk):
        outputs += board.run(payloads[start:start + chunk])
        for frame, error, tag in _malformed(fmt, tag=1 + start % 251):
            port.write(frame)
            reply = fmt.read_reply(port.read(fmt.reply_bytes(ERROR)))
            assert (reply.kind, reply.tag, reply.values["error"]) == (ERROR, tag, error), \
                (start, error)
    model, valid = model_outputs(plan, codes)
    board_valid = np.array([o["in_bounds"] for o in outputs], dtype=bool)
    return torque_codes(plan, outputs), board_valid, model, valid, port


def _equal(board, model):
    return board.keys() == model.keys() and all(np.array_equal(board[k], model[k])
                                                 for k in model)


def test_a_two_link_arm_on_the_compiled_board_is_the_model():
    robot = random_robot(np.random.default_rng(4), 2)
    tau, valid, model, model_valid, port = _run_on_the_board(robot, 300, 100, width=18,
                                                              interval=8)
    assert _equal(tau, model) and np.array_equal(valid, model_valid)
    assert 0 < valid.sum() < len(valid)
    assert set(ERRORS.values()) >= {"checksum", "unknown kind", "truncated"}
    port.close()


@pytest.mark.slow
def test_the_ur5_on_the_compiled_board_is_the_model_for_ten_thousand_states():
    tau, valid, model, model_valid, port = _run_on_the_board(load_robot("ur5"), 10_000, 500)
    assert _equal(tau, model) and np.array_equal(valid, model_valid)
    assert 0 < valid.sum() < len(valid)
    port.close()
