"""Float64 forward kinematics of serial robots in standard DH, vectorized over joint vectors.

Forward kinematics chains ``A_i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)`` with
``theta_i = q_i + offset_i`` (revolute) or ``d_i = q_i + offset_i`` (prismatic).
"""

import numpy as np

__all__ = ["dh_transform", "joint_transform", "forward_kinematics"]


def dh_transform(theta, d, a, alpha):
    """Stack of standard-DH link transforms ``Rz(theta) Tz(d) Tx(a) Rx(alpha)`` (complex
    joint values stay complex: the dynamics differentiates through them by complex step)."""
    theta, d = np.broadcast_arrays(theta, d)
    ct, st = np.cos(theta), np.sin(theta)
    ca, sa = np.cos(alpha), np.sin(alpha)
    out = np.zeros(theta.shape + (4, 4), dtype=np.result_type(theta, d, np.float64))
    out[..., 0, 0], out[..., 0, 1], out[..., 0, 2], out[..., 0, 3] = ct, -st * ca, st * sa, a * ct
    out[..., 1, 0], out[..., 1, 1], out[..., 1, 2], out[..., 1, 3] = st, ct * ca, -ct * sa, a * st
    out[..., 2, 1], out[..., 2, 2], out[..., 2, 3] = sa, ca, d
    out[..., 3, 3] = 1.0
    return out


def joint_transform(joint, value):
    """``^{i-1}T_i`` of ``joint`` at joint values ``value`` (any shape; complex stays complex):
    a revolute joint's angle is ``value + offset``, a prismatic joint's length ``d`` is."""
    value = value + joint.offset
    if joint.type == "revolute":
        return dh_transform(value, joint.d, joint.a, joint.alpha)
    return dh_transform(np.full_like(value, joint.theta), value, joint.a, joint.alpha)


def forward_kinematics(robot, q, upto=None):
    """Pose of the last frame (or of frame ``upto``) for joint vectors ``q`` (shape
    ``(..., dof)``): homogeneous transforms of shape ``(..., 4, 4)``."""
    q = np.asarray(q)
    q = q.astype(np.result_type(q, np.float64))
    if q.shape[-1] != robot.dof:
        raise ValueError(f"q must have {robot.dof} columns for {robot.name}, not {q.shape[-1]}")
    pose = np.broadcast_to(np.eye(4, dtype=q.dtype), q.shape[:-1] + (4, 4)).copy()
    for k, joint in enumerate(robot.joints[:upto]):
        pose = pose @ joint_transform(joint, q[..., k])
    return pose
