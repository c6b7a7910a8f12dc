"""Arms robohw does not ship, read as a user's files (the UR10 and the Kinova j2s6s200 from
example-robot-data 6.0.0, tests/fixtures/; the seven-joint example arm) and the shipped iiwa 14:
at the defaults a user gets, chosen without --width, every design's bit-exact model is within
1e-4 of the largest entry of the float64 reference over states within the file's limits
(20,000 in `make test`, 100,000 in `make slow`); the references agree with Pinocchio."""

import pathlib
import warnings

import numpy as np
import pytest
from pinocchio_urdf import pinocchio_rnea

from robohw.registry import design, robot_designs
from robohw.robots import load_robot
from robohw.robots.description import RobotFileWarning

FIXTURES = pathlib.Path(__file__).parent.parent / "fixtures"
# The seven-joint example arm (examples/, of robohw's own making) last: a user's seven joints.
EXAMPLE_ARM = FIXTURES.parent.parent / "examples" / "seven_joint_arm.urdf"
ARMS = [str(FIXTURES / "ur10_robot.urdf"), str(FIXTURES / "kinova_j2s6s200.urdf"), "iiwa14",
        str(EXAMPLE_ARM)]
GOAL = 1e-4


def _quiet(function, *args):
    with warnings.catch_warnings():
        # The fixtures carry no acceleration limits: 10 rad/s^2 with a warning, as a user sees.
        warnings.simplefilter("ignore", RobotFileWarning)
        return function(*args)


@pytest.mark.heavy
@pytest.mark.parametrize("count", [20_000, pytest.param(100_000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("robot", ARMS, ids=["ur10", "kinova_j2s6s200", "iiwa14",
                                             "seven_joint_arm"])
def test_a_users_arm_keeps_the_promise_at_its_defaults(robot, count):
    for name in robot_designs(every=True):
        found = _quiet(design, name, robot)
        dut = found.build()
        workload = found.workload(dut, count, seed=21)
        _, errors = found.check(dut, workload, found.model_outputs(dut, workload))
        assert errors.max() <= GOAL, (name, found.default_width, errors.max())


@pytest.mark.parametrize("robot", ARMS[:2], ids=["ur10", "kinova_j2s6s200"])
def test_the_fixtures_references_agree_with_pinocchio(robot):
    from robohw.dynamics.inverse.reference import inverse_dynamics
    from robohw.robots.sampling import sample_states
    chain = _quiet(load_robot, robot)
    q, qd, qdd = sample_states(chain, 50, np.random.default_rng(5))
    ours = inverse_dynamics(chain, q, qd, qdd)
    theirs = pinocchio_rnea(robot, q, qd, qdd) + np.array([j.damping for j in chain.joints]) * qd
    assert np.abs(ours - theirs).max() <= 1e-12 * np.abs(theirs).max()
