"""Accuracy of the bit-exact PUMA IK graph against float64, per data width.

Random joint vectors inside the robot's limits give reachable poses; the model of the best CCM
graph solves each for the branch the joint vector lies on, and the result is compared with the
joint vector (wrap-aware) and, through the forward kinematics, with the pose. Conditioning
filter, stated in every result: ``|sin q5| >= 0.05`` (away from the wrist singularity),
``|sin gamma| >= 0.1`` with ``gamma`` the elbow angle of the planar two-link arm (away from
full extension and full fold), ``|u| >= 0.05 m``, the wrist centre's distance from the
shoulder-singular line (where ``theta1`` is undetermined), and the graph's own domain (it flags
the rest).
"""

import numpy as np

from robohw.ik.puma_graph import best_graph, pose_inputs
from robohw.reference.kinematics import BRANCHES, forward_kinematics, puma_ik_all
from robohw.ik.model import evaluate_model
from robohw.robots.sampling import sample_joints

__all__ = ["ik_accuracy", "joint_errors", "well_conditioned", "WRIST_FILTER", "ELBOW_FILTER", "SHOULDER_FILTER"]

WRIST_FILTER = 0.05
ELBOW_FILTER = 0.1
SHOULDER_FILTER = 0.05  # metres


def _planar_arm(robot, q):
    """``(sin gamma, u)`` of joint vectors: the elbow angle's sine and the wrist centre's
    distance from the shoulder-singular line (see :mod:`robohw.reference.kinematics`)."""
    j = robot.joints
    s3 = 1.0 if np.sin(j[2].alpha) > 0 else -1.0
    beta = np.arctan2(-s3 * j[3].d, j[2].a)
    theta2, theta3 = q[:, 1] + j[1].offset, q[:, 2] + j[2].offset
    gamma = theta3 + beta
    u = j[1].a * np.cos(theta2) + np.hypot(j[2].a, j[3].d) * np.cos(theta2 + gamma)
    return np.sin(gamma), u


def well_conditioned(robot, q):
    """The conditioning filter of the module docstring, for joint vectors ``q``."""
    elbow_sine, u = _planar_arm(robot, q)
    return (np.abs(np.sin(q[:, 4] + robot.joints[4].offset)) >= WRIST_FILTER) & \
        (np.abs(elbow_sine) >= ELBOW_FILTER) & (np.abs(u) >= SHOULDER_FILTER)


def _solve(robot, count, seed, make_graph):
    rng = np.random.default_rng(seed)
    q = sample_joints(robot, count, rng)
    pose = forward_kinematics(robot, q)
    # The branch each joint vector lies on: the float solution that reproduces it.
    solutions, _ = puma_ik_all(robot, pose)
    gap = np.abs(np.angle(np.exp(1j * (solutions - q[:, None])))).max(-1)
    branch = np.array(BRANCHES)[gap.argmin(-1)]
    keep = well_conditioned(robot, q)
    inputs = pose_inputs(pose)
    branches = dict(zip(("arm", "elbow", "wrist"), branch.T))
    return q, pose, keep, inputs, branches, make_graph(robot)


def joint_errors(robot, width, count=100_000, seed=0, make_graph=best_graph):
    """Per-pose max joint error (rad) of the model at ``width``, over the poses the filter
    keeps and the model solves (see :func:`ik_accuracy`)."""
    q, _, keep, inputs, branches, graph = _solve(robot, count, seed, make_graph)
    out, valid, _ = evaluate_model(graph, inputs, branches, width=width)
    got = np.stack([out[f"q{k}"] for k in range(1, 7)], -1)
    return np.abs(np.angle(np.exp(1j * (got - q))))[keep & valid].max(-1)


def ik_accuracy(robot, widths=(16, 20, 24, 28, 32), count=100_000, seed=0, make_graph=best_graph):
    """One dict per width: max and 99.9th percentile joint error (rad), FK position (mm) and
    orientation (rad) residuals, and how many poses passed the filter and were valid."""
    q, pose, keep, inputs, branches, graph = _solve(robot, count, seed, make_graph)
    rows = []
    for width in widths:
        out, valid, _ = evaluate_model(graph, inputs, branches, width=width)
        got = np.stack([out[f"q{k}"] for k in range(1, 7)], -1)
        use = keep & valid
        error = np.abs(np.angle(np.exp(1j * (got - q))))[use]
        fk = forward_kinematics(robot, got[use])
        position = np.linalg.norm(fk[:, :3, 3] - pose[use, :3, 3], axis=-1) * 1000
        relative = np.swapaxes(fk[:, :3, :3], -1, -2) @ pose[use, :3, :3]
        orientation = np.arccos(np.clip((np.trace(relative, axis1=-2, axis2=-1) - 1) / 2, -1, 1))
        rows.append({
            "width": width, "poses": int(count), "filtered": int(keep.sum()),
            "valid": int(use.sum()),
            "joint_max_rad": float(error.max()),
            "joint_p999_rad": float(np.percentile(error.max(-1), 99.9)),
            "joint_max_rad_q1_q3": float(error[:, :3].max()),
            "position_max_mm": float(position.max()),
            "position_p999_mm": float(np.percentile(position, 99.9)),
            "orientation_max_rad": float(orientation.max()),
            "orientation_p999_rad": float(np.percentile(orientation, 99.9)),
        })
    return rows
