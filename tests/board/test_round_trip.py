"""The round trip of one state on a board (a single request on its way), measured in simulated
cycles on the compiled board (robohw.board.compiled_port), equals the formula derived here for
every divisor and design latency tried:

    (request bytes + reply bytes) * 10 * divisor - 2 * ceil(divisor / 2) + L + 18

A byte is ten bits, back to back; each UART's receiver gives a byte at its stop bit's middle,
``ceil(divisor / 2)`` cycles before the bit ends, and 4 cycles after its sender took it beyond
the bits (the sender's line register, the receiver's two-flip-flop synchronizer, its output
register): 8 for the two directions. The core's own: the FIFO, the register behind it, the
decoder, the hops into and out of the design (two cycles each), the encoder and the
transmitter's take, 9 cycles, and the design's latency ``L``; and the cycle in which the last
byte arrives, 1. A design that takes a state only every II cycles (the engine) adds the wait
for its next slot, less than II."""

import math

import numpy as np
import pytest
from affine_design import AffineDesign

from robohw.board.compiled_port import CompiledPort
from robohw.board.core import BoardCore
from robohw.board.driver import Board
from robohw.dynamics import board_design
from robohw.robots.sampling import random_robot

DIGEST = "0123456789abcdef"


def _formula(fmt, divisor, latency):
    return ((fmt.request_bytes + fmt.result_bytes) * 10 * divisor
            - 2 * math.ceil(divisor / 2) + latency + 4 + 4 + 9 + 1)


def _measured(design, digest, divisor, state):
    core = BoardCore(design, divisor, digest)
    port = CompiledPort(core, timeout_cycles=400 * divisor)
    board = Board(port, core.frame_format, digest=digest, outstanding=1)
    board.identify()
    cycles = []
    for _ in range(5):
        before = port.cycles
        board.run([state])
        cycles.append(port.cycles - before)
    return cycles, core.frame_format


@pytest.mark.parametrize("divisor", [4, 5, 8, 25])
def test_the_round_trip_of_a_small_design(divisor):
    design = AffineDesign()
    cycles, fmt = _measured(design, DIGEST, divisor, {"x": 5, "z": -3})
    assert cycles == [_formula(fmt, divisor, design.latency)] * 5


@pytest.mark.parametrize("divisor", [4, 7])
def test_the_round_trip_of_an_engine(divisor):
    robot = random_robot(np.random.default_rng(4), 2)
    dut, digest = board_design(robot, width=18, interval=8)
    state = {name: 0 for name, _ in dut.i.payload.shape() if name != "tag"}
    cycles, fmt = _measured(dut, digest, divisor, state)
    least = _formula(fmt, divisor, dut.latency)
    assert all(least <= c < least + dut.interval for c in cycles), (cycles, least)
