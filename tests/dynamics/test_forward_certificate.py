"""The certificate of forward dynamics (:mod:`robohw.dynamics.forward.certificate`): never below
the exact error of the accelerations it certifies, near it, on shipped arms and random robots;
infinite where its residual's model does not cover the row."""

from dataclasses import replace

import numpy as np
import pytest

from robohw.dynamics.forward.certificate import CERTIFICATE_WIDTH, certify
from robohw.dynamics.forward.reference import solved_accelerations
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.robots import hardware_robot
from robohw.robots.sampling import random_robot, sample_states


def _case(robot, count, seed):
    q, qd, qdd = sample_states(robot, count, np.random.default_rng(seed))
    tau = inverse_dynamics(robot, q, qd, 0.5 * qdd)
    limits = np.array([j.acceleration_limit for j in robot.joints])
    return q, qd, tau, solved_accelerations(robot, q, qd, tau), limits


@pytest.mark.parametrize("name", ["ur5", "panda", "puma560"])
def test_the_bound_covers_a_known_error_and_is_near_it(name):
    robot = hardware_robot(name, terms=())
    q, qd, tau, exact, limits = _case(robot, 400, 1)
    rng = np.random.default_rng(2)
    # Errors of 1e-4 of each limit, far above float64's in `exact` and the residual's floor:
    # the certificate must reach each, and (being |H^-1| |H error|) stay within a small
    # factor of the largest on its row.
    error = rng.normal(size=exact.shape) * 1e-4 * limits
    got = certify(robot, q, qd, tau, exact + error)
    assert got.covered.all() and got.width == CERTIFICATE_WIDTH
    assert np.all(got.bounds >= np.abs(error))
    assert np.median(got.bounds / np.abs(error)) < 30
    # Where the accelerations are exact, the bound is the residual model's floor alone: far
    # below the promise of 1e-3 of each limit.
    floor = certify(robot, q, qd, tau, exact)
    assert np.all(floor.bounds <= 1e-3 * limits) and np.all(floor.bounds > 0)


def test_the_bound_is_exact_for_one_joint_up_to_the_residuals_error():
    # One joint: qdd - qdd* = r / H exactly, so the bound is (|r| + e) / H to float64.
    robot = random_robot(np.random.default_rng(3), 1, prismatic=0.0)
    q, qd, tau, exact, limits = _case(robot, 50, 4)
    error = 1e-3 * limits * np.where(np.arange(50) % 2, 1.0, -1.0)[:, None]
    got = certify(robot, q, qd, tau, exact + error)
    assert np.all(got.bounds >= np.abs(error))
    floor = certify(robot, q, qd, tau, exact).bounds
    assert np.all(got.bounds <= np.abs(error) + 2 * floor)


@pytest.mark.parametrize("seed", range(4))
def test_random_robots_are_never_above_their_bound(seed):
    rng = np.random.default_rng(seed)
    robot = random_robot(rng, int(rng.integers(2, 5)), prismatic=0.5)
    q, qd, tau, exact, limits = _case(robot, 300, seed)
    error = rng.normal(size=exact.shape) * 10.0 ** rng.uniform(-8, -3, size=exact.shape) * limits
    got = certify(robot, q, qd, tau, exact + error)
    assert got.covered.all()
    assert np.all(got.bounds >= np.abs(error))


def test_rows_the_residual_does_not_cover_have_no_bound():
    robot = hardware_robot("ur5", terms=())
    q, qd, tau, exact, limits = _case(robot, 6, 5)
    exact[0, 2] = 3 * limits[2]                 # beyond the acceleration limit
    qd[1, 0] = 10 * robot.joints[0].velocity_limit
    q[2, 1] = 2.0 ** 40                         # no binary angle holds it
    got = certify(robot, q, qd, tau, exact)
    assert got.covered.tolist() == [False, False, False, True, True, True]
    assert np.isinf(got.bounds[:3]).all() and np.isfinite(got.bounds[3:]).all()
    assert got.within(limits).tolist() == [False, False, False, True, True, True]


def test_a_singular_inertia_matrix_is_not_certified():
    # A massless, inertia-free last link: H is singular wherever it is computed; its rows are
    # not certified (no traceback), and the other robot's rows are unaffected.
    robot = hardware_robot("ur5", terms=())
    q, qd, tau, exact, limits = _case(robot, 4, 6)
    last = replace(robot.joints[-1], mass=0.0, inertia=(0.0,) * 6, com=(0.0, 0.0, 0.0))
    bare = replace(robot, joints=(*robot.joints[:-1], last))
    got = certify(bare, q, qd, tau, exact)
    assert np.isinf(got.bounds).all() and not got.within(limits).any()
