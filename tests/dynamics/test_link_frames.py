"""The Newton-Euler equations in link frames for hardware (robohw.dynamics.inverse.link_frames):
over float64 they equal the reference recursion on random robots with any twist and prismatic
joints, and on the shipped arms; traced, their constants folded, they cost well under half the
base-coordinate steps' products; their proven ranges hold at the corners of the limits, and
the bit-exact model stays within its proven bound."""

import math

import numpy as np
import pytest

from robohw.dataflow.plan import traced_float_values
from robohw.dynamics.inverse.engine import LinkFramePlan
from robohw.dynamics.inverse.link_frames import (
    MONOMIALS,
    _double_cross,
    _gyroscopic,
    link_frame_steps,
)
from robohw.dynamics.inverse.model import model_torques
from robohw.dynamics.inverse.pipeline import NewtonEulerPlan
from robohw.dynamics.inverse.reference import inverse_dynamics, link_frame_torques
from robohw.robots import hardware_robot
from robohw.robots.algebra import FloatArith
from robohw.robots.chain import joint_terms
from robohw.robots.sampling import random_robot, sample_joints, sample_states


def joint_inputs(robot, q):
    return [(np.cos(q[:, k] + j.offset), np.sin(q[:, k] + j.offset)) if j.type == "revolute"
            else q[:, k] + j.offset for k, j in enumerate(robot.joints)]


def steps(robot, q, qd, qdd):
    tau = link_frame_steps(robot, joint_inputs(robot, q), list(qd.T), list(qdd.T), FloatArith())
    return np.stack([np.broadcast_to(t, len(q)) for t in tau], -1)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_equal_to_the_reference_on_random_robots(n):
    rng = np.random.default_rng(300 + n)
    for _ in range(4):
        robot = random_robot(rng, n, prismatic=0.4)     # twists of any angle, too
        q = sample_joints(robot, 50, rng)
        qd, qdd = rng.normal(size=q.shape), rng.normal(size=q.shape)
        want = link_frame_torques(robot, q, qd, qdd)
        assert np.abs(steps(robot, q, qd, qdd) - want).max() <= 1e-12 * np.abs(want).max()


@pytest.mark.parametrize("name", ["puma560", "stanford", "ur5", "panda"])
def test_equal_to_the_reference_on_the_shipped_arms(name):
    robot = hardware_robot(name, terms=("friction",))
    q, qd, qdd = sample_states(robot, 300, np.random.default_rng(4))
    want = link_frame_torques(robot, q, qd, qdd) - joint_terms(robot, qd, qdd)
    assert np.abs(steps(robot, q, qd, qdd) - want).max() <= 1e-13 * np.abs(want).max()


def test_the_monomial_forms():
    # omega x (omega x r) and omega x (I omega) as combinations of the six monomials.
    rng = np.random.default_rng(5)
    r, w = rng.normal(size=3), rng.normal(size=3)
    tensor = rng.normal(size=(3, 3))
    tensor = tensor + tensor.T
    monomials = np.array([w[a] * w[b] for a, b in MONOMIALS])
    double = np.array([[float(v) for v in row] for row in _double_cross(list(r))])
    gyro = np.array([[float(v) for v in row] for row in _gyroscopic(tensor.tolist())])
    assert np.allclose(double @ monomials, np.cross(w, np.cross(w, r)), atol=1e-14)
    assert np.allclose(gyro @ monomials, np.cross(w, tensor @ w), atol=1e-14)


@pytest.mark.parametrize("name", ["puma560", "ur5", "panda", "stanford"])
def test_traced_they_are_exact_and_cheaper_than_base_coordinates(name):
    plan = LinkFramePlan(name, width=24, bound_fraction=None)
    base = NewtonEulerPlan(name, width=24, bound_fraction=None)
    products = plan.tracer.counts(plan.live)["mul"]
    assert products < 0.6 * base.tracer.counts(base.live)["mul"]
    robot = plan.robot
    q, qd, qdd = sample_states(robot, 200, np.random.default_rng(6))
    inputs = {}
    for k, (joint, value) in enumerate(zip(robot.joints, joint_inputs(robot, q)), start=1):
        if joint.type == "revolute":
            inputs[f"cos{k}"], inputs[f"sin{k}"] = value
        else:
            inputs[f"d{k}"] = value
        inputs[f"qd{k}"], inputs[f"qdd{k}"] = qd[:, k - 1], qdd[:, k - 1]
    traced = traced_float_values(plan, inputs)
    want = inverse_dynamics(robot, q, qd, qdd)
    got = np.stack([traced[k] for k in range(1, robot.dof + 1)], -1)
    assert np.abs(got - want).max() <= 1e-13 * np.abs(want).max()


@pytest.mark.parametrize("name, width", [("puma560", 18), ("ur5", 20), ("panda", 20),
                                         ("stanford", 20)])
def test_the_model_keeps_its_ranges_and_its_bound_at_the_limits_corners(name, width):
    # At the corners of the rate and acceleration limits the torques are largest: the
    # model's registers raise on any overflow of a state within the limits.
    plan = LinkFramePlan(name, width=width, bound_fraction=None)
    robot = plan.robot
    rng = np.random.default_rng(7)
    q = sample_joints(robot, 3000, rng)
    limits = [np.array([getattr(j, f) for j in robot.joints])
              for f in ("velocity_limit", "acceleration_limit")]
    qd, qdd = (rng.choice([-1.0, 1.0], q.shape) * limit for limit in limits)
    tau, inside = model_torques(plan, q, qd, qdd)
    assert inside.all()
    error = np.abs(tau - inverse_dynamics(robot, q, qd, qdd))
    assert np.all(error <= np.array(plan.accuracy.bounds))
    assert math.isfinite(plan.accuracy.fraction)


@pytest.mark.parametrize("name", ["puma560", "ur5", "panda", "iiwa14"])
def test_the_engines_widths_are_the_narrowest_within_1e_4(name):
    # ENGINE_WIDTH (the PUMA's) and engine_robot_widths(): the narrowest width whose model is
    # within 1e-4 of max |tau| over 100,000 states within the limits.
    from robohw.dynamics.inverse.designs import ENGINE_WIDTH, engine_robot_widths, robot_digest
    from robohw.robots import load_robot
    width = engine_robot_widths().get(robot_digest(load_robot(name)), ENGINE_WIDTH)
    assert (name == "puma560") == (width == ENGINE_WIDTH)
    errors = []
    for w in (width - 1, width):
        plan = LinkFramePlan(name, width=w, bound_fraction=None)
        q, qd, qdd = sample_states(plan.robot, 100_000, np.random.default_rng(0))
        tau, inside = model_torques(plan, q, qd, qdd)
        reference = inverse_dynamics(plan.robot, q, qd, qdd)
        errors.append(np.abs(tau - reference).max() / np.abs(reference).max())
    assert errors[0] > 1e-4 >= errors[1], errors
