"""Float64 forward kinematics and Jacobians of serial robots, vectorized over joint vectors.

Forward kinematics of a standard-DH robot chains ``A_i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)``
with ``theta_i = q_i + offset_i`` (revolute) or ``d_i = q_i + offset_i`` (prismatic); of a
general chain (:class:`robohw.robots.chain.Chain`), its placements and motions. The Jacobians
(:func:`link_jacobians`, :func:`tool_jacobian`) take either, through
:func:`robohw.robots.chain.as_chain`.
"""

import numpy as np

from robohw.robots.chain import Chain, as_chain, inertia_matrix3, joint_poses
from robohw.robots.joint_type import JointType

__all__ = ["dh_transform", "joint_transform", "forward_kinematics", "link_jacobians",
           "tool_jacobian", "jacobian_inertia"]


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
    if joint.type == JointType.REVOLUTE:
        return dh_transform(value, joint.d, joint.a, joint.alpha)
    return dh_transform(np.full_like(value, joint.theta), value, joint.a, joint.alpha)


def forward_kinematics(robot, q, upto=None):
    """Pose of the tool frame for joint vectors ``q`` (shape ``(..., dof)``): homogeneous
    transforms of shape ``(..., 4, 4)``. The tool frame of a DH robot is its last DH frame
    (``upto``: DH frame ``upto``); of a chain, its tip (``upto``: joint frame ``upto``)."""
    q = np.asarray(q)
    q = q.astype(np.result_type(q, np.float64))
    if q.shape[-1] != robot.dof:
        raise ValueError(f"q must have {robot.dof} columns for {robot.name}, not {q.shape[-1]}")
    if isinstance(robot, Chain):
        flat = q.reshape(-1, robot.dof)
        poses, tip = joint_poses(robot, flat)
        pose = tip if upto is None or upto == robot.dof else \
            (poses[upto - 1] if upto else np.broadcast_to(np.eye(4), tip.shape))
        return pose.reshape(q.shape[:-1] + (4, 4))
    pose = np.broadcast_to(np.eye(4, dtype=q.dtype), q.shape[:-1] + (4, 4)).copy()
    for k, joint in enumerate(robot.joints[:upto]):
        pose = pose @ joint_transform(joint, q[..., k])
    return pose


def _axes(chain, poses):
    """Every joint's axis and a point on it, in the base frame: ``(B, 3)`` each."""
    return [(pose[:, :3, :3] @ np.asarray(joint.axis), pose[:, :3, 3])
            for joint, pose in zip(chain.joints, poses)]


def _columns(chain, axes, point, upto):
    """``(jv, jw)`` ``(B, 3, N)`` of a point ``(B, 3)`` moved by joints ``1 .. upto``."""
    batch = point.shape[0]
    jv = np.zeros((batch, 3, chain.dof), dtype=point.dtype)
    jw = np.zeros((batch, 3, chain.dof), dtype=point.dtype)
    for j in range(upto):
        axis, origin = axes[j]
        if chain.joints[j].type == JointType.REVOLUTE:
            jv[:, :, j] = np.cross(axis, point - origin)
            jw[:, :, j] = axis
        else:
            jv[:, :, j] = axis
    return jv, jw


def link_jacobians(robot, q):
    """Per link ``k``: ``(jv, jw, world, pose)`` for joint vectors ``q`` ``(B, N)``: the
    Jacobians ``(B, 3, N)`` of the link's centre of mass and angular velocity, its inertia about
    the centre of mass in base coordinates, and the pose of the link's frame (joint frame ``k``
    of :func:`robohw.robots.chain.as_chain`). Complex ``q`` stays complex (complex-step
    derivatives)."""
    chain = as_chain(robot)
    if not chain.has_dynamics:
        raise ValueError(f"{chain.source or chain.name}: the inertia matrix needs mass, com "
                         f"and inertia for every joint")
    poses, _ = joint_poses(chain, q)
    axes = _axes(chain, poses)
    out = []
    for k, (joint, pose) in enumerate(zip(chain.joints, poses)):
        rot = pose[:, :3, :3]
        com = np.einsum("bij,j->bi", rot, np.array(joint.com)) + pose[:, :3, 3]
        jv, jw = _columns(chain, axes, com, k + 1)
        out.append((jv, jw, rot @ inertia_matrix3(joint.inertia) @ rot.transpose(0, 2, 1),
                    pose))
    return out


def tool_jacobian(robot, q):
    """``(jacobian, tip)`` for joint vectors ``q`` ``(B, N)``: ``(B, 6, N)``, the linear
    velocity of the tool frame's origin and its angular velocity, in base coordinates, and
    the tool frame's pose ``(B, 4, 4)``."""
    chain = as_chain(robot)
    poses, tip = joint_poses(chain, q)
    jv, jw = _columns(chain, _axes(chain, poses), tip[:, :3, 3], chain.dof)
    return np.concatenate([jv, jw], axis=1), tip


def jacobian_inertia(robot, q):
    """The inertia matrix ``(B, N, N)`` at joint vectors ``q`` ``(B, N)`` from the chain's
    Jacobians (:func:`link_jacobians`): ``H = sum_k m_k Jv_k^T Jv_k + Jw_k^T R_k I_k R_k^T
    Jw_k`` in base coordinates, plus the joints' armature on the diagonal (the references'
    independent formulation of ``H``)."""
    h = 0
    for (jv, jw, world, _), joint in zip(link_jacobians(robot, q), robot.joints):
        h = h + joint.mass * jv.transpose(0, 2, 1) @ jv + jw.transpose(0, 2, 1) @ world @ jw
    return h + np.diag([float(getattr(j, "armature", 0.0)) for j in robot.joints])
