"""The proven bound on the inverse inertia matrix's entries (issue 97, item 2): exact
Taylor terms, derivative bounds never below sampled derivatives, single boxes sampled densely, a
two-link arm's closed form, random robots never above their bound, and the refusals."""

import numpy as np
import pytest

from robohw.dynamics.forward.inverse_inertia import (
    MARGIN,
    box_bounds,
    cached_inverse_inertia_bound,
    derivative_bounds,
    inverse_inertia_bound,
    moving_joints,
    position_box,
    taylor_terms,
)
from robohw.robots.chain import as_chain
from robohw.robots.description import Joint, Robot
from robohw.robots.joint_type import JointType
from robohw.robots.kinematics import jacobian_inertia
from robohw.robots.sampling import random_robot

# The two-link planar arm: lengths, masses, centers of mass from each joint, moments.
L1, M1, M2, R1, R2, I1, I2 = 0.4, 3.0, 2.0, 0.2, 0.15, 0.05, 0.02
Q2_LIMITS = (-2.5, 1.0)


def _planar_arm():
    def link(length, mass, reach, moment, limits):
        return Joint(type=JointType.REVOLUTE, a=length, alpha=0.0, d=0.0, offset=0.0,
                     limits=limits, mass=mass, com=(reach - length, 0.0, 0.0),
                     inertia=(moment, moment, moment, 0.0, 0.0, 0.0))
    return Robot(name="planar two-link arm", joints=(link(L1, M1, R1, I1, (-3.0, 3.0)),
                                                     link(0.3, M2, R2, I2, Q2_LIMITS)))


def _planar_inverse(q2):
    """``|H^-1|`` ``(P, 2, 2)`` in closed form: ``H = [[a + 2 b cos, c + b cos], [c + b cos,
    c]]``."""
    a = I1 + M1 * R1 ** 2 + I2 + M2 * (L1 ** 2 + R2 ** 2)
    b, c = M2 * L1 * R2, I2 + M2 * R2 ** 2
    cos = np.cos(q2)
    det = (a + 2 * b * cos) * c - (c + b * cos) ** 2
    return abs(np.stack([np.stack([c + 0 * cos, -(c + b * cos)], -1),
                         np.stack([-(c + b * cos), a + 2 * b * cos], -1)], -2) / det[:, None, None])


def test_closed_form_of_the_planar_arm():
    robot = _planar_arm()
    q2 = np.linspace(*Q2_LIMITS, 200_001)
    q = np.stack([np.zeros_like(q2), q2], axis=1)
    assert np.allclose(np.linalg.inv(jacobian_inertia(as_chain(robot), q[::1000])),
                       np.sign(np.linalg.inv(jacobian_inertia(as_chain(robot), q[::1000]))) *
                       _planar_inverse(q2[::1000]), rtol=1e-12)
    largest = _planar_inverse(q2).max(axis=0)
    bound = inverse_inertia_bound(robot, slack=0.0)
    assert np.all(bound.entries >= largest)
    assert np.all(bound.entries <= 1.3 * largest * (1 + 1e-9))


@pytest.mark.parametrize("seed", range(3))
def test_taylor_terms_are_exact(seed):
    robot = random_robot(np.random.default_rng(seed), 4, prismatic=0.5)
    chain, (joints, revolute) = as_chain(robot), moving_joints(robot)
    low, high = position_box(robot)
    q = np.random.default_rng(seed).uniform(low, high, (5, robot.dof))
    steps = {k: 0.5 for k in joints}
    h, slopes, curves = taylor_terms(chain, revolute, q, joints, steps)
    assert np.allclose(h, jacobian_inertia(chain, q), rtol=0, atol=1e-12 * abs(h).max())
    for axis, k in enumerate(joints):
        step = np.zeros(robot.dof)
        step[k] = 1e-5
        below, above = (taylor_terms(chain, revolute, q + sign * step, joints, steps)
                        for sign in (-1, 1))
        assert np.allclose(slopes[:, axis], (above[0] - below[0]) / 2e-5, rtol=0,
                           atol=1e-6 * abs(h).max())
        assert np.allclose(curves[:, axis], (above[1] - below[1]) / 2e-5, rtol=0,
                           atol=1e-6 * abs(h).max())


@pytest.mark.parametrize("seed", range(3))
def test_derivative_bounds_are_never_below_a_derivative(seed):
    robot = random_robot(np.random.default_rng(10 + seed), 4, prismatic=0.5)
    chain, (joints, revolute) = as_chain(robot), moving_joints(robot)
    low, high = position_box(robot)
    second, _ = derivative_bounds(robot, 2)
    third, _ = derivative_bounds(robot, 3)
    q = np.random.default_rng(seed).uniform(low, high, (2000, robot.dof))
    steps = {k: 0.5 for k in joints}
    curves = taylor_terms(chain, revolute, q, joints, steps)[2]
    assert np.all(abs(curves).max(axis=0) <= second * (1 + 1e-9) + 1e-12)
    for axis, k in enumerate(joints):
        step = np.zeros(robot.dof)
        step[k] = 1e-5
        below, above = (taylor_terms(chain, revolute, q + sign * step, joints, steps)[2]
                        for sign in (-1, 1))
        assert np.all(abs((above - below) / 2e-5).max(axis=0) <= third[axis] * (1 + 1e-4) + 1e-6)


@pytest.mark.parametrize("seed", range(3))
def test_a_box_never_holds_a_value_above_its_bound(seed):
    """The module docstring's inequality on single boxes, each sampled densely: the bound
    holds, and is not just the center's value (a bound without its first-order term fails
    here)."""
    rng = np.random.default_rng(30 + seed)
    robot = random_robot(rng, 4, prismatic=0.0)
    chain, (joints, revolute) = as_chain(robot), moving_joints(robot)
    low, high = position_box(robot)
    third, scale = derivative_bounds(robot, 3)
    center = rng.uniform(low, high, (40, robot.dof))
    half = np.full((40, robot.dof), 0.08)
    bound, _, at_center = box_bounds(chain, revolute, joints, {}, third, MARGIN * scale,
                                     center, half)
    finite = np.isfinite(bound).all(axis=(1, 2))
    assert finite.sum() >= 20
    above_center = 0
    for k in np.flatnonzero(finite):
        q = center[k] + rng.uniform(-1, 1, (4000, robot.dof)) * half[k]
        values = abs(np.linalg.inv(jacobian_inertia(chain, q)))
        assert np.all(values <= bound[k])
        above_center += np.any(values.max(axis=0) > at_center[k] * (1 + 1e-6))
    assert above_center > 0


@pytest.mark.parametrize("seed", range(4))
def test_random_robots_never_exceed_their_bound(seed):
    rng = np.random.default_rng(20 + seed)
    robot = random_robot(rng, 3, prismatic=0.3)
    bound = inverse_inertia_bound(robot)
    low, high = position_box(robot)
    q = rng.uniform(low, high, (50_000, robot.dof))
    values = abs(np.linalg.inv(jacobian_inertia(as_chain(robot), q)))
    assert np.all(values <= bound.entries)
    assert np.all(bound.largest_seen <= bound.entries)
    assert bound.boxes >= 1


def test_refusals():
    robot = random_robot(np.random.default_rng(5), 3, prismatic=0.0)
    with pytest.raises(ValueError, match="not proven within 2 boxes"):
        inverse_inertia_bound(robot, max_boxes=2)
    with pytest.raises(ValueError, match="tolerance must be at least 1"):
        inverse_inertia_bound(robot, tolerance=0.5)
    with pytest.raises(ValueError, match="slack must be at least 0"):
        inverse_inertia_bound(robot, slack=-1.0)
    with pytest.raises(ValueError, match="weights must be 3 positive numbers"):
        inverse_inertia_bound(robot, weights=[1.0, 0.0, 1.0])


def test_cached_bound_is_read_back(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBOHW_CACHE", str(tmp_path))
    robot = _planar_arm()
    first = cached_inverse_inertia_bound(robot)
    assert len(list((tmp_path / "inverse-inertia").glob("*.json"))) == 1
    again = cached_inverse_inertia_bound(robot)
    assert np.array_equal(first.entries, again.entries) and first.boxes == again.boxes
