"""The Lagrange-Euler trace form (Zomaya & Morris's equations, restored) against the project's
independent formulations: the Newton-Euler recursion and the Jacobian inertia matrix; and its
two forms, 4x4 traces and vector identities, against each other."""

import numpy as np
import pytest

from robohw.dynamics.inverse.reference import link_frame_torques
from robohw.robots import Joint, Robot, load_robot
from robohw.robots.sampling import random_robot, sample_joints
from robohw.systolic.reference import jacobian_inertia
from robohw.transputer.lagrange_euler import (
    differential_vectors,
    lagrange_euler_terms,
    lagrange_euler_torques,
    link_moments,
    pseudo_inertia,
)
from robohw.transputer.lagrange_euler_tasks import Subtask, state_vectors, subtask_coefficient


def _states(robot, rng, count=40):
    q = sample_joints(robot, count, rng)
    return q, rng.normal(size=q.shape), rng.normal(size=q.shape)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_the_trace_form_equals_newton_euler_on_random_robots(n):
    rng = np.random.default_rng(100 + n)
    for _ in range(3):
        robot = random_robot(rng, n, prismatic=0.4)    # full inertia tensors, any axes
        q, qd, qdd = _states(robot, rng)
        newton_euler = link_frame_torques(robot, q, qd, qdd)
        scale = np.abs(newton_euler).max()
        assert np.abs(lagrange_euler_torques(robot, q, qd, qdd) - newton_euler).max() \
            <= 1e-12 * scale


@pytest.mark.parametrize("name", ["puma560", "stanford", "stanford_thesis"])
def test_the_trace_form_equals_newton_euler_on_the_shipped_robots(name):
    robot = load_robot(name)
    q, qd, qdd = _states(robot, np.random.default_rng(7), 200)
    newton_euler = link_frame_torques(robot, q, qd, qdd)
    assert np.abs(lagrange_euler_torques(robot, q, qd, qdd) - newton_euler).max() \
        <= 1e-12 * np.abs(newton_euler).max()


def test_each_term_is_what_it_should_be():
    rng = np.random.default_rng(3)
    robot = random_robot(rng, 5, prismatic=0.4)
    q, qd, _ = _states(robot, rng)
    D, C, h = lagrange_euler_terms(robot, q)
    scale = np.abs(D).max()
    assert np.abs(D - jacobian_inertia(robot, q)).max() <= 1e-12 * scale
    assert np.array_equal(C, np.swapaxes(C, 2, 3))                     # C_ijk = C_ikj
    zero = np.zeros_like(q)
    assert np.abs(h - link_frame_torques(robot, q, zero, zero)).max() <= 1e-12 * np.abs(h).max()
    # Velocity terms alone: Newton-Euler at zero acceleration less the gravity terms.
    coriolis = np.einsum("bijk,bj,bk->bi", C, qd, qd)
    assert np.abs(coriolis + h - link_frame_torques(robot, q, qd, zero)).max() \
        <= 1e-12 * np.abs(coriolis + h).max()


def test_the_pseudo_inertia_of_a_point_mass_and_of_a_rod():
    point = Joint(
        type="revolute", a=0.0, alpha=0.0, d=0.0, offset=0.0, mass=2.0, com=(0.1, 0.2, 0.3),
        inertia=(0.0,) * 6)
    r = np.array([0.1, 0.2, 0.3, 1.0])
    assert np.allclose(pseudo_inertia(point), 2.0 * np.outer(r, r), rtol=0, atol=1e-15)
    # A thin rod of length L along x about its centre at the origin: integral of x^2 dm
    # = m L^2 / 12, from I_yy = I_zz = m L^2 / 12, I_xx = 0.
    m, length = 3.0, 0.6
    rod = Joint(type="revolute", a=0.0, alpha=0.0, d=0.0, offset=0.0, mass=m,
                          com=(0.0, 0.0, 0.0),
                          inertia=(0.0, m * length ** 2 / 12, m * length ** 2 / 12, 0, 0, 0))
    assert np.allclose(pseudo_inertia(rod), np.diag([m * length ** 2 / 12, 0, 0, m]),
                       rtol=0, atol=1e-15)


def test_the_differential_vectors_of_the_stanford_arm_follow_its_structure():
    # The pattern of Zomaya & Morris's differential vectors: joint 1's rotation in
    # frame 1 is about y only; the prismatic joint 3 has no rotation; joint i > l none.
    robot = load_robot("stanford")
    delta, d = differential_vectors(robot, sample_joints(robot, 20, np.random.default_rng(5)))
    assert np.allclose(delta[:, 0, 0], [0, 1, 0]) or np.allclose(delta[:, 0, 0], [0, -1, 0])
    assert not delta[:, 2].any() and np.allclose(np.linalg.norm(d[:, 2, 2:], axis=-1), 1)
    assert not delta[:, 3, :3].any() and not d[:, 3, :3].any()


def test_bad_input_is_refused():
    robot = load_robot("stanford")
    with pytest.raises(ValueError, match="q must have 6 columns for .*, not 5"):
        lagrange_euler_terms(robot, np.zeros((2, 5)))
    bare = Robot(name="bare", joints=tuple(Joint(
        type=j.type, a=j.a, alpha=j.alpha, d=j.d, offset=j.offset, theta=j.theta)
        for j in robot.joints))
    with pytest.raises(ValueError, match="bare: the dynamics needs mass, com and inertia"):
        lagrange_euler_torques(bare, np.zeros(6), np.zeros(6), np.zeros(6))


@pytest.mark.parametrize("n", [2, 4, 6])
def test_the_vector_form_of_each_term_equals_the_matrix_traces(n):
    # Two formulations of every D_ij, C_ijk and h_i: 4x4 traces (lagrange_euler_terms) and the
    # vector identities each subtask evaluates on its own (subtask_coefficient).
    rng = np.random.default_rng(200 + n)
    robot = random_robot(rng, n, prismatic=0.4)
    q = _states(robot, rng)[0]
    D, C, h = lagrange_euler_terms(robot, q)
    vectors, gravity = state_vectors(robot, q)
    moments = [link_moments(joint) for joint in robot.joints]
    tasks = ([(Subtask("D", i, j), D[:, i - 1, j - 1]) for i in range(1, n + 1)
              for j in range(i, n + 1)]
             + [(Subtask("C", i, j, k), C[:, i - 1, j - 1, k - 1]) for i in range(1, n + 1)
                for j in range(1, n + 1) for k in range(j, n + 1)]
             + [(Subtask("h", i), h[:, i - 1]) for i in range(1, n + 1)])
    scale = max(np.abs(D).max(), np.abs(C).max(), np.abs(h).max())
    for task, expected in tasks:
        got = subtask_coefficient(task, vectors, gravity, moments, n)
        assert np.abs(got - expected).max() <= 1e-12 * scale, task.name
