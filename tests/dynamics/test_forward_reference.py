"""The float64 forward-dynamics references: the articulated-body algorithm and the inertia matrix
solved agree with each other, invert inverse dynamics, and agree with Pinocchio's ``aba`` within
1e-12 of the largest |qdd|, on the shipped arms and on random robots (robohw.robots.sampling's
random_robot: masses 0.5-10 kg, principal moments 0.01-1 kg m^2 obeying the triangle
inequality, links up to 0.5 m: every link has mass and rotational inertia, so each joint's
articulated inertia D_i is at least 0.01 kg m^2 (or 0.5 kg) and H stays well conditioned)."""

import pathlib

import numpy as np
import pytest
from pinocchio_urdf import pinocchio_urdf_model

from robohw.dynamics.forward.reference import (
    FORWARD_FORMULATIONS,
    articulated_body_accelerations,
    forward_dynamics,
    solved_accelerations,
)
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.robots import load_robot
from robohw.robots.chain import as_chain
from robohw.robots.pinocchio import offsets, pinocchio_model
from robohw.robots.sampling import random_robot, sample_joints, sample_states

ROBOTS = pathlib.Path(__file__).parents[2] / "robots"
AGREE = 1e-12
SHIPPED = ["puma560", "stanford", "ur5", "panda", "iiwa14"]
TIPS = {"panda": "panda_hand"}


def _share(ours, theirs):
    return float(np.abs(ours - theirs).max() / np.abs(theirs).max())


def _effort_torques(robot, count, rng):
    """Torques uniform within each joint's effort limit (10 N m or N where none is given)."""
    limit = np.array([j.torque_limit or 10.0 for j in robot.joints])
    return rng.uniform(-limit, limit, (count, robot.dof))


def _robots():
    shipped = [load_robot(name, tip=TIPS.get(name)) for name in SHIPPED]
    rng = np.random.default_rng(3)
    return shipped + [random_robot(rng, n) for n in (1, 2, 4, 6, 7)]


@pytest.mark.parametrize("robot", _robots(), ids=lambda r: r.name)
def test_both_formulations_invert_inverse_dynamics(robot):
    rng = np.random.default_rng(11)
    q, qd, qdd = sample_states(robot, 200, rng)
    tau = inverse_dynamics(robot, q, qd, qdd)
    for formulation in FORWARD_FORMULATIONS:
        assert _share(forward_dynamics(robot, q, qd, tau, formulation), qdd) <= AGREE
    # Torques within the effort limits: the two agree where no qdd is known beforehand.
    tau = _effort_torques(robot, 200, rng)
    aba = articulated_body_accelerations(robot, q, qd, tau)
    assert _share(aba, solved_accelerations(robot, q, qd, tau)) <= AGREE
    assert _share(inverse_dynamics(robot, q, qd, aba), tau) <= AGREE


def _joint_terms(chain, qd):
    """What Pinocchio's ``aba`` leaves out of ours: damping and Coulomb friction."""
    return np.array([j.damping for j in chain.joints]) * qd + \
        np.array([j.friction for j in chain.joints]) * np.sign(qd)


def _pinocchio_aba(model, q, qd, tau):
    pin = pytest.importorskip("pinocchio")
    data = model.createData()
    # A continuous joint's configuration is its cos and sin (tests/pinocchio_urdf.py).
    pairs = [joint.nq == 2 for joint in model.joints[1:]]
    configurations = [np.concatenate([[np.cos(a), np.sin(a)] if pair else [a]
                                      for a, pair in zip(row, pairs)]) for row in q]
    return np.array([pin.aba(model, data, a, b, c)
                     for a, b, c in zip(configurations, qd, tau)])


@pytest.mark.parametrize("name", ["ur5", "panda", "iiwa14", "ur10_robot", "kinova_j2s6s200"])
@pytest.mark.filterwarnings("ignore:.*no acceleration_limit")
def test_the_articulated_body_algorithm_agrees_with_pinocchio_on_urdf_arms(name):
    # The shipped arms, and the UR10 and the Kinova of example-robot-data (test fixtures).
    path = ROBOTS / f"{name}.urdf"
    path = path if path.exists() else ROBOTS.parent / "tests" / "fixtures" / f"{name}.urdf"
    chain = load_robot(str(path) if path.parent.name == "fixtures" else name,
                       tip=TIPS.get(name))
    model = pinocchio_urdf_model(chain, path)
    rng = np.random.default_rng(5)
    q, qd, qdd = sample_states(chain, 100, rng)
    for tau in (inverse_dynamics(chain, q, qd, qdd), _effort_torques(chain, 100, rng)):
        theirs = _pinocchio_aba(model, q, qd, tau - _joint_terms(chain, qd))
        for formulation in FORWARD_FORMULATIONS:
            assert _share(forward_dynamics(chain, q, qd, tau, formulation), theirs) <= AGREE


@pytest.mark.parametrize("robot", [load_robot("puma560"), load_robot("stanford"),
                                   *(random_robot(np.random.default_rng(seed), n)
                                     for seed, n in ((1, 3), (2, 6), (4, 7)))],
                         ids=lambda r: r.name)
def test_the_articulated_body_algorithm_agrees_with_pinocchio_on_dh_robots(robot):
    pytest.importorskip("pinocchio")
    model = pinocchio_model(robot)
    rng = np.random.default_rng(7)
    q = sample_joints(robot, 100, rng)
    qd = rng.uniform(-2.0, 2.0, q.shape)
    tau = _effort_torques(robot, 100, rng)
    theirs = _pinocchio_aba(model, q + np.array(offsets(robot)), qd,
                            tau - _joint_terms(as_chain(robot), qd))
    assert _share(articulated_body_accelerations(robot, q, qd, tau), theirs) <= AGREE


def test_armature_damping_and_friction_enter_as_inverse_dynamics_adds_them():
    robot = load_robot("puma560")
    rng = np.random.default_rng(2)
    q, qd, qdd = sample_states(robot, 50, rng)
    qd[::5, 2] = 0.0                               # at rest: no Coulomb term
    terms = {"armature": 0.3, "damping": 0.5, "friction": 2.0}
    from dataclasses import replace
    robot = replace(robot, joints=tuple(replace(j, **terms) for j in robot.joints))
    tau = inverse_dynamics(robot, q, qd, qdd)
    assert _share(articulated_body_accelerations(robot, q, qd, tau), qdd) <= AGREE


@pytest.mark.parametrize("q, qd, tau, message", [
    (np.zeros((2, 5)), np.zeros((2, 6)), np.zeros((2, 6)), "q must have 6 columns"),
    (np.zeros((2, 6)), np.zeros((2, 6)), np.zeros((2, 3)), "tau must have 6 columns"),
])
def test_wrong_shapes_are_refused(q, qd, tau, message):
    with pytest.raises(ValueError, match=message):
        articulated_body_accelerations(load_robot("puma560"), q, qd, tau)


def test_an_unknown_formulation_is_refused():
    with pytest.raises(ValueError, match="formulation must be one of aba, solve"):
        forward_dynamics(load_robot("puma560"), np.zeros(6), np.zeros(6), np.zeros(6), "crba")
