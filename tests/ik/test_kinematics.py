"""Forward kinematics against a product-of-exponentials formulation; PUMA inverse kinematics by
round trip over all eight branches, for both shipped parameter sets and random PUMA-family arms."""

import dataclasses

import numpy as np
import pytest

from robohw.ik.reference import BRANCHES, puma_ik, puma_ik_all
from robohw.robots import load_robot
from robohw.robots.closed_forms import check_puma_family
from robohw.robots.kinematics import forward_kinematics
from robohw.robots.sampling import sample_joints


def poe_forward_kinematics(robot, q):
    """T(q) = exp([S1] q1) ... exp([Sn] qn) M, with the screw axes of the home pose."""
    home = forward_kinematics(robot, np.zeros(robot.dof))
    frames = [np.eye(4)] + [forward_kinematics(robot, np.zeros(robot.dof), upto=k)
                            for k in range(1, robot.dof)]
    pose = np.broadcast_to(np.eye(4), q.shape[:-1] + (4, 4)).copy()
    for k, frame in enumerate(frames):
        axis, point = frame[:3, 2], frame[:3, 3]
        angle = q[..., k]
        skew = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        rot = (np.eye(3) + np.sin(angle)[..., None, None] * skew +
               (1 - np.cos(angle))[..., None, None] * (skew @ skew))
        step = np.zeros(q.shape[:-1] + (4, 4))
        step[..., :3, :3], step[..., 3, 3] = rot, 1.0
        step[..., :3, 3] = point - rot @ point
        pose = pose @ step
    return pose @ home


@pytest.mark.parametrize("name", ["puma560", "puma560_fgl"])
def test_forward_kinematics_equals_product_of_exponentials(name):
    robot = load_robot(name)
    q = sample_joints(robot, 2000, np.random.default_rng(1))
    assert np.abs(forward_kinematics(robot, q) - poe_forward_kinematics(robot, q)).max() < 1e-12


def test_forward_kinematics_home_pose():
    # Corke's PUMA at q = 0: hand at (a2 + a3, -d3, d1 + d4) with the base orientation.
    pose = forward_kinematics(load_robot(), np.zeros(6))
    assert np.allclose(pose[:3, 3], [0.4521, -0.15005, 1.1036])
    assert np.allclose(pose[:3, :3], np.eye(3))


def round_trip(robot, q):
    pose = forward_kinematics(robot, q)
    solutions, valid = puma_ik_all(robot, pose)
    assert not np.isnan(solutions).any()
    residual = np.abs(forward_kinematics(robot, solutions) - pose[:, None]).max(axis=(-1, -2))
    return solutions, valid, residual


@pytest.mark.parametrize("name", ["puma560", "puma560_fgl"])
def test_ik_round_trip_all_branches(name):
    robot = load_robot(name)
    q = sample_joints(robot, 20_000, np.random.default_rng(2))
    solutions, valid, residual = round_trip(robot, q)
    assert valid.all()  # every pose reached by the arm has all eight solutions
    assert residual.max() < 1e-9
    # Away from the wrist singularity the original joint vector is one of the eight.
    away = np.abs(np.sin(q[:, 4])) > 1e-6
    gap = np.abs(np.angle(np.exp(1j * (solutions - q[:, None])))).max(-1).min(-1)
    assert gap[away].max() < 1e-7


def test_branches_follow_their_indicators():
    robot = load_robot()
    q = sample_joints(robot, 2000, np.random.default_rng(3))
    pose = forward_kinematics(robot, q)
    for arm, elbow, wrist in BRANCHES:
        solution, valid = puma_ik(robot, pose, arm, elbow, wrist)
        assert valid.all()
        assert np.all(wrist * np.sin(solution[:, 4]) >= 0)
        # arm: the wrist centre on the +x1 (arm = 1) or -x1 side of the shoulder.
        frame1 = forward_kinematics(robot, solution, upto=1)
        centre = pose[:, :3, 3] - robot.joints[5].d * pose[:, :3, 2] - frame1[:, :3, 3]
        assert np.all(arm * np.einsum("ni,ni->n", frame1[:, :3, 0], centre) >= 0)
    distinct = puma_ik_all(robot, pose)[0]
    assert len({tuple(np.round(s, 6)) for s in distinct[0]}) == 8


@pytest.mark.parametrize("flip", [False, True])
def test_any_puma_family_geometry_and_twist_convention(flip):
    rng = np.random.default_rng(4 + flip)
    base = load_robot()
    for _ in range(20):
        a2, a3, d4 = rng.uniform(0.2, 0.6), rng.uniform(-0.1, 0.1), rng.uniform(0.2, 0.6)
        d1, d2, d3, d6 = (rng.uniform(0, 1), rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2),
                          rng.uniform(0, 0.2))
        values = [dict(d=d1), dict(a=a2, d=d2), dict(a=a3, d=d3), dict(d=d4), {}, dict(d=d6)]
        joints = []
        for joint, change in zip(base.joints, values):
            alpha = -joint.alpha if flip else joint.alpha
            joints.append(dataclasses.replace(joint, alpha=alpha, limits=None,
                                              offset=rng.uniform(-1, 1),
                                              **{"a": 0.0, "d": 0.0, **change}))
        robot = dataclasses.replace(base, joints=tuple(joints))
        q = sample_joints(robot, 500, rng)
        _, valid, residual = round_trip(robot, q)
        assert valid.all() and residual.max() < 1e-9


def test_unreachable_poses_are_invalid_not_nan():
    robot = load_robot()
    pose = np.tile(np.eye(4), (3, 1, 1))
    pose[0, :3, 3] = [5.0, 0.0, 0.0]        # beyond reach
    pose[1, :3, 3] = [0.0, 0.0, 0.6718]     # wrist centre inside the shoulder-offset cylinder
    pose[2, :3, 3] = [0.0, 0.05, 0.9]       # likewise
    solutions, valid = puma_ik_all(robot, pose)
    assert not valid.any()
    assert not np.isnan(solutions).any() and not solutions.any()


def test_wrist_singularity_is_deterministic():
    robot = load_robot()
    q = np.array([[0.3, 0.5, -1.0, 0.7, 0.0, -0.4]])
    pose = forward_kinematics(robot, q)
    solution, valid = puma_ik(robot, pose, 1, 1, 1)
    assert valid.all() and solution[0, 3] == 0.0  # theta4 = 0 takes the freedom
    assert np.abs(forward_kinematics(robot, solution) - pose).max() < 1e-12


@pytest.mark.parametrize("change, message", [
    (dict(index=4, alpha=0.3), "alpha5 must be \\+-90 degrees, not 17.18"),
    (dict(index=0, a=0.1), "a1 must be 0"),
    (dict(index=2, type="prismatic"), "six revolute joints"),
])
def test_rejects_robots_outside_the_family(change, message):
    robot = load_robot()
    index = change.pop("index")
    joints = list(robot.joints)
    joints[index] = dataclasses.replace(joints[index], **change)
    with pytest.raises(ValueError, match=message):
        check_puma_family(dataclasses.replace(robot, joints=tuple(joints)))


def test_rejects_bad_branch_indicator():
    with pytest.raises(ValueError, match="elbow must be \\+1 or -1, not 0"):
        puma_ik(load_robot(), np.eye(4), elbow=0)
