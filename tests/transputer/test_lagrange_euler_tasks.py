"""Zomaya & Morris's 64 subtasks: they rebuild the Stanford arm's torques, and which terms
vanish."""

import dataclasses

import numpy as np
import pytest

from robohw.dynamics.inverse.reference import link_frame_torques
from robohw.robots import Robot, load_robot
from robohw.robots.sampling import sample_joints
from robohw.transputer.lagrange_euler_tasks import (
    PAPER_SUBTASKS,
    paper_torques,
    structural_zeros,
    subtask_shares,
)


def _states(robot, count=300, seed=11):
    rng = np.random.default_rng(seed)
    q = sample_joints(robot, count, rng)
    return q, rng.normal(size=q.shape), rng.normal(size=q.shape)


def test_the_papers_counts_17_43_4():
    kinds = [task.kind for task in PAPER_SUBTASKS]
    assert (kinds.count("D"), kinds.count("C"), kinds.count("h")) == (17, 43, 4)
    assert len({task.name for task in PAPER_SUBTASKS}) == 64
    bundles = [task.name for task in PAPER_SUBTASKS if task.bundle]
    assert len(bundles) == 43 - 14 - 12 - 7 == 10


@pytest.mark.parametrize("name", ["stanford", "stanford_thesis"])
def test_the_64_subtasks_rebuild_the_torques(name):
    robot = load_robot(name)
    q, qd, qdd = _states(robot)
    newton_euler = link_frame_torques(robot, q, qd, qdd)
    assert np.abs(paper_torques(robot, q, qd, qdd) - newton_euler).max() \
        <= 1e-12 * np.abs(newton_euler).max()


def test_every_nonzero_subtask_is_needed():
    robot = load_robot("stanford")
    q, qd, qdd = _states(robot, 50)
    shares = subtask_shares(robot, q, qd, qdd)
    total = sum(shares.values())
    scale = np.abs(total).max()
    zero = {task.name for task, share in shares.items() if np.abs(share).max() <= 1e-12 * scale}
    # The paper's three identically zero terms, and C4_55 of our reading of the C_4 bundle.
    assert zero == {"C2_13", "C3_44", "C3_45", "C4_55"}
    for task, share in shares.items():
        if task.name not in zero:
            assert np.abs(total - share - link_frame_torques(robot, q, qd, qdd)).max() \
                > 1e-6 * scale, task.name


def test_the_structural_zeros_of_the_stanford_arm():
    robot = load_robot("stanford")
    zeros = structural_zeros(robot, _states(robot)[0])
    assert zeros["D"] == [(3, 4), (3, 6), (4, 5), (5, 6)]      # 21 - 4 = 17 terms
    assert zeros["h"] == [1, 6]                                 # 4 terms
    assert 6 * 21 - len(zeros["C"]) == 61                       # the paper's list


def test_an_asymmetric_wrist_breaks_the_papers_list():
    # The 64 rely on Paul's symmetries: give link 6 unequal moments and an off-axis centre of
    # mass, and h6 and the C_ii6 terms appear, which no subtask computes.
    robot = load_robot("stanford")
    wrist = dataclasses.replace(robot.joints[5], com=(0.01, 0.02, 0.1554),
                                inertia=(0.013, 0.006, 0.0003, 0.0, 0.0, 0.0))
    robot = Robot(name="asymmetric", joints=robot.joints[:5] + (wrist,), gravity=robot.gravity)
    q, qd, qdd = _states(robot)
    assert 6 not in structural_zeros(robot, q)["h"]
    newton_euler = link_frame_torques(robot, q, qd, qdd)
    assert np.abs(paper_torques(robot, q, qd, qdd) - newton_euler).max() \
        > 1e-3 * np.abs(newton_euler).max()
