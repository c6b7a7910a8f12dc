"""Inverse dynamics on a board (robohw.dynamics.inverse.files' backend "board", through
robohw.board): the engine for a random two-link robot behind the UART in Amaranth's simulator,
driven by the host's driver through a simulated port, gives the model's torques, validity and
reasons, states beyond the limits included; the board's identity is checked against the design asked
for; the
port is refused without the board backend and needed with it."""

import numpy as np
import pytest
from tiers import HEAVY

from robohw.board.core import BoardCore
from robohw.board.driver import BoardError
from robohw.board.sim_port import SimulatedPort
from robohw.dynamics.inverse.designs import machine_design
from robohw.dynamics.inverse.files import board_digest, solve_dynamics
from robohw.robots.loading import hardware_robot
from robohw.robots.sampling import random_robot, sample_states

WIDTH, INTERVAL, DIVISOR = 18, 8, 4


def _port(robot, width=WIDTH, interval=INTERVAL):
    """A simulated board holding the engine for ``robot``."""
    dut = machine_design("engine", robot).hardware(hardware_robot(robot, terms=()), width,
                                                   interval, bound_fraction=None, tag_width=8)
    core = BoardCore(dut, DIVISOR, board_digest("engine", robot, width, interval))
    # Quiet for 60 byte times: beyond the engine's latency and a reply.
    return SimulatedPort(core, timeout_cycles=60 * 10 * DIVISOR)


def _robot_and_states(count):
    rng = np.random.default_rng(4)
    robot = random_robot(rng, 2)
    q, qd, qdd = sample_states(robot, count, rng)
    qd[1:2] *= 40.0                     # beyond the velocity limits: not valid
    return robot, q, qd, qdd


def test_the_board_gives_the_models_torques_validity_and_reasons():
    robot, q, qd, qdd = _robot_and_states(5)
    options = {"design": "engine", "width": WIDTH, "interval": INTERVAL,
               "bound_fraction": None}
    model = solve_dynamics(robot, q, qd, qdd, "model", **options)
    board = solve_dynamics(robot, q, qd, qdd, "board", port=_port(robot), **options)
    assert np.array_equal(board.tau, model.tau)
    assert board.valid.tolist() == model.valid.tolist() == [True, False, True, True, True]
    assert board.reason.tolist() == model.reason.tolist()


def test_a_board_holding_another_design_is_refused():
    robot, q, qd, qdd = _robot_and_states(1)
    port = _port(robot, interval=10)
    with pytest.raises(BoardError, match="the board holds design [0-9a-f]{16}, not"):
        solve_dynamics(robot, q, qd, qdd, "board", port=port, design="engine", width=WIDTH,
                       interval=INTERVAL, bound_fraction=None)


def test_the_port_belongs_to_the_board_backend():
    robot, q, qd, qdd = _robot_and_states(1)
    with pytest.raises(ValueError, match="port is the board backend's: it needs backend "
                                         "'board'"):
        solve_dynamics(robot, q, qd, qdd, "model", port=object())
    with pytest.raises(ValueError, match="the board backend needs a port"):
        solve_dynamics(robot, q, qd, qdd, "board")


@HEAVY          # the engine at its default II 5 in Amaranth's simulator: about 30 s
def test_an_arm_computes_on_the_board_as_on_the_model():
    from robohw.api import Arm
    from robohw.dynamics.inverse.designs import default_machine
    robot, q, qd, qdd = _robot_and_states(3)
    arm = Arm(robot)
    defaults = default_machine("engine", robot, hardware_robot(robot, terms=()))
    port = _port(robot, width=defaults.default_width, interval=defaults.default_fold)
    board = arm.inverse_dynamics(q, qd, qdd, "board", port=port)
    model = arm.inverse_dynamics(q, qd, qdd, "model")
    assert np.array_equal(board.values, model.values)
    assert board.valid.tolist() == model.valid.tolist() == [True, False, True]
    with pytest.raises(ValueError, match="port is the board backend's"):
        arm.inverse_dynamics(q, qd, qdd, port=port)
