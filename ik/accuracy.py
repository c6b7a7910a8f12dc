"""Accuracy of the bit-exact PUMA IK graph against float64, per data width.

Random joint vectors inside the robot's limits give reachable poses; the model of the best CCM
graph solves each for the branch the joint vector lies on, and the result is compared with the
joint vector (wrap-aware) and, through the forward kinematics, with the pose. Conditioning
filter, stated in every result: ``|sin q5| >= 0.05`` (away from the wrist singularity),
``|sin gamma| >= 0.1`` with ``gamma`` the elbow angle of the planar two-link arm (away from
full extension and full fold), ``|u| >= 0.05 m``, the wrist centre's distance from the
shoulder-singular line (where ``theta1`` is undetermined), and the graph's own domain (it flags
the rest).

Singular poses have no unique joint vector to compare with: :func:`fk_accuracy` measures every
reachable pose, singular ones included, by the forward-kinematics residual of the solution (how
far the pose of the returned joint vector lies from the pose asked for), and :func:`wrist_sweep`
does so for poses at a fixed ``|sin q5|`` down to the singularity itself.
"""

import numpy as np

from robohw.ik.codec import joint_angles, pose_inputs
from robohw.ik.puma_graph import best_graph, puma_format
from robohw.ik.reference import BRANCHES, puma_ik_all
from robohw.robots.kinematics import forward_kinematics
from robohw.robots.sampling import sample_joints
from robohw.taskgraph.model import evaluate_model

__all__ = ["ik_accuracy", "joint_errors", "well_conditioned", "fk_residual", "fk_accuracy",
           "wrist_sweep", "WRIST_FILTER", "ELBOW_FILTER", "SHOULDER_FILTER", "WRIST_SINES"]

WRIST_FILTER = 0.05
ELBOW_FILTER = 0.1
SHOULDER_FILTER = 0.05  # metres
# |sin q5| of the wrist sweep, down to the singularity itself.
WRIST_SINES = (0.0, 1e-9, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.05, 0.1)


def _planar_arm(robot, q):
    """``(sin gamma, u)`` of joint vectors: the elbow angle's sine and the wrist centre's
    distance from the shoulder-singular line (see :mod:`robohw.ik.reference`)."""
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


def _branches_of(robot, q):
    """The branch indicators each joint vector lies on (the float solution that gives it)."""
    solutions, _ = puma_ik_all(robot, forward_kinematics(robot, q))
    gap = np.abs(np.angle(np.exp(1j * (solutions - q[:, None])))).max(-1)
    branch = np.array(BRANCHES)[gap.argmin(-1)]
    return dict(zip(("arm", "elbow", "wrist"), branch.T))


def _solve(robot, count, seed, make_graph):
    rng = np.random.default_rng(seed)
    q = sample_joints(robot, count, rng)
    pose = forward_kinematics(robot, q)
    keep = well_conditioned(robot, q)
    return q, pose, keep, pose_inputs(pose), _branches_of(robot, q), make_graph(robot)


def joint_errors(robot, width, count=100_000, seed=0, make_graph=best_graph):
    """Per-pose max joint error (rad) of the model at ``width``, over the poses the filter
    keeps and the model solves (see :func:`ik_accuracy`)."""
    q, _, keep, inputs, branches, graph = _solve(robot, count, seed, make_graph)
    out, valid, _ = evaluate_model(graph, inputs, branches, **puma_format(width))
    got = joint_angles(out)
    return np.abs(np.angle(np.exp(1j * (got - q))))[keep & valid].max(-1)


def ik_accuracy(robot, widths=(16, 20, 24, 28, 32), count=100_000, seed=0, make_graph=best_graph):
    """One dict per width: max and 99.9th percentile joint error (rad), FK position (mm) and
    orientation (rad) residuals, and how many poses passed the filter and were valid."""
    q, pose, keep, inputs, branches, graph = _solve(robot, count, seed, make_graph)
    rows = []
    for width in widths:
        out, valid, _ = evaluate_model(graph, inputs, branches, **puma_format(width))
        got = joint_angles(out)
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


def fk_residual(robot, q, pose):
    """``(position_m, orientation_rad)`` per row: how far the forward kinematics of ``q`` lies
    from ``pose`` (the distance of the origins, the angle of the relative rotation)."""
    fk = forward_kinematics(robot, q)
    position = np.linalg.norm(fk[..., :3, 3] - pose[..., :3, 3], axis=-1)
    relative = np.swapaxes(fk[..., :3, :3], -1, -2) @ pose[..., :3, :3]
    cosine = (np.trace(relative, axis1=-2, axis2=-1) - 1) / 2
    return position, np.arccos(np.clip(cosine, -1, 1))


def _residual_row(robot, graph, q, branches, width):
    pose = forward_kinematics(robot, q)
    out, valid, _ = evaluate_model(graph, pose_inputs(pose), branches, **puma_format(width))
    got = joint_angles(out)
    position, orientation = fk_residual(robot, got[valid], pose[valid])
    return {"width": width, "poses": len(q), "valid": int(valid.sum()),
            "position_max_um": float(position.max(initial=0) * 1e6),
            "orientation_max_rad": float(orientation.max(initial=0))}


def fk_accuracy(robot, widths=(24, 32), count=100_000, seed=0, make_graph=best_graph):
    """FK residual of the model's solutions over ``count`` poses from random joint vectors in
    the limits, with no conditioning filter: one dict per width with the poses the graph
    solved (``valid``; it flags only the shoulder-singular line and the straight or folded
    elbow) and the largest position (um) and orientation (rad) residual among them."""
    q = sample_joints(robot, count, np.random.default_rng(seed))
    branches = _branches_of(robot, q)
    graph = make_graph(robot)
    return [_residual_row(robot, graph, q, branches, width) for width in widths]


def wrist_sweep(robot, widths=(24, 32), sines=WRIST_SINES, count=1000, seed=0,
                make_graph=best_graph):
    """FK residual at the wrist singularity and near it: for each ``|sin q5|`` in ``sines``,
    ``count`` random joint vectors in the limits with ``q5`` set to that sine (either sign,
    with ``q5 = 0`` for a zero sine), solved on the wrist branch they lie on. One dict per
    sine and width (see :func:`fk_accuracy`)."""
    graph = make_graph(robot)
    rng = np.random.default_rng(seed)
    offset = robot.joints[4].offset
    rows = []
    for sine in sines:
        q = sample_joints(robot, count, rng)
        q[:, 4] = rng.choice([-1.0, 1.0], count) * np.arcsin(sine) - offset
        branches = _branches_of(robot, q)
        if sine == 0:  # both wrist branches solve a singular pose: take each once
            branches["wrist"] = rng.choice([-1, 1], count)
        for width in widths:
            rows.append({"sin_q5": sine, **_residual_row(robot, graph, q, branches, width)})
    return rows
