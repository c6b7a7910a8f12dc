"""Float references of the inertia matrix: Table 1, Table 2 and the Jacobian form agree."""

import numpy as np
import pytest

from robohw.robots import load_robot
from robohw.robots.sampling import random_robot, sample_joints
from robohw.systolic.counts import operation_counts
from robohw.systolic.reference import inertia_matrix, jacobian_inertia, link_frames, log2_levels


@pytest.mark.parametrize("n", range(1, 17))
def test_three_references_agree_on_random_robots(n):
    rng = np.random.default_rng(100 + n)
    for _ in range(3):
        robot = random_robot(rng, n, prismatic=0.3)
        q = sample_joints(robot, 200, rng)
        reference = jacobian_inertia(robot, q)
        scale = np.abs(reference).max()
        for method in ("table1", "table2"):
            h = inertia_matrix(robot, q, method)
            assert np.abs(h - reference).max() <= 1e-12 * scale, method
        assert np.abs(reference - reference.transpose(0, 2, 1)).max() <= 1e-14 * scale
        assert np.linalg.eigvalsh(reference).min() > 0


def test_puma_inertia_matrix():
    robot = load_robot()
    rng = np.random.default_rng(1)
    q = sample_joints(robot, 1000, rng)
    h = inertia_matrix(robot, q, "table2")
    assert np.abs(h - jacobian_inertia(robot, q)).max() < 1e-12 * np.abs(h).max()
    # H does not depend on q1 (the paper: "the angle for the first degree of freedom is not
    # needed"), checked on the independent reference.
    moved = q.copy()
    moved[:, 0] += 1.0
    assert np.abs(jacobian_inertia(robot, moved) - h).max() < 1e-12
    # Joint 6 turns only link 6 about its own axis: H66 is its Izz.
    assert np.allclose(h[:, 5, 5], robot.joints[5].inertia[2])


def test_prismatic_diagonal_is_the_composite_mass():
    rng = np.random.default_rng(7)
    robot = random_robot(rng, 5, prismatic=1.0)
    q = sample_joints(robot, 10, rng)
    h = inertia_matrix(robot, q, "table1")
    masses = np.cumsum([j.mass for j in robot.joints][::-1])[::-1]
    assert np.allclose(np.diagonal(h, axis1=1, axis2=2), masses)


def test_bad_input_is_rejected():
    with pytest.raises(ValueError, match="needs mass, com and inertia"):
        link_frames(load_robot("puma560_fgl"))
    with pytest.raises(ValueError, match="q must have 6 columns"):
        inertia_matrix(load_robot(), np.zeros((2, 5)))
    with pytest.raises(ValueError, match="method must be table1, table2 or jacobian"):
        inertia_matrix(load_robot(), np.zeros((2, 6)), "table3")
    with pytest.raises(ValueError, match="n must be a positive integer"):
        operation_counts(0)


def test_log2_levels():
    assert [log2_levels(n) for n in (1, 2, 3, 4, 5, 8, 9, 16)] == [0, 1, 2, 2, 3, 3, 4, 4]


def test_operation_counts():
    t1 = [operation_counts(n, "table1") for n in range(1, 17)]
    t2 = [operation_counts(n, "table2") for n in range(1, 17)]
    # One and two links: the algorithms coincide.
    assert t1[0] == t2[0] and t1[1] == t2[1]
    # The paper: the parallel algorithm needs more operations in total.
    assert all(b["mul"] > a["mul"] and b["add"] > a["add"] for a, b in zip(t1[2:], t2[2:]))
    # Table 1 is O(N^2) operations (N(N-1)/2 column steps of fixed cost): constant second
    # difference once every kind of step is present.
    second = {t1[k + 1]["mul"] - 2 * t1[k]["mul"] + t1[k - 1]["mul"] for k in range(3, 15)}
    assert len(second) == 1
    # One reciprocal per composite body: N - 1 in Table 1.
    assert [c["div"] for c in t1] == list(range(16))
