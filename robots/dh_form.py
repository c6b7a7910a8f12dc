"""A general chain written in standard Denavit-Hartenberg parameters: the form the closed-form
inverse kinematics and the DH-traced hardware take (:func:`dh_form`).

Any serial chain has one, up to a fixed base placement (DH frame 0 in the chain's base frame)
and a fixed tool placement (the chain's tip in the last DH frame). The frames follow from the
joint axes as lines in space at ``q = 0`` (each joint's axis passes through its frame's
origin):

- ``z_{i-1}`` lies along joint ``i``'s axis, pointing as the axis does; with ``signs``, where
  joint ``i``'s axis is parallel to joint ``i - 1``'s, it points as ``z_{i-2}`` does (a twist of
  0, never 180 degrees), and that joint's DH value is the chain's negated (``sign`` -1).
  Without, every sign is +1 (the DH joint values are the chain's; a twist may be 180
  degrees): the form the hardware takes, whose inputs and outputs are then the chain's.
- ``x_i`` lies along the common normal from axis ``i`` to axis ``i + 1``, origin ``o_i`` where
  it meets axis ``i + 1``. Intersecting axes: ``x_i = +-z_{i-1} x z_i``, the sign that keeps
  joint ``i``'s offset within 90 degrees of 0, ``o_i`` the intersection. Parallel axes: the normal
  through ``o_{i-1}`` (``d_i = 0``). One line (the same axis twice): ``x_i = x_{i-1}``, ``o_i =
  o_{i-1}``.
- Frame 0: ``o_0`` the foot of the base origin on axis 1, ``x_0 = x_1`` (joint 1's offset is
  0). The last frame: ``z_N = z_{N-1}``, ``x_N = x_{N-1}``, ``o_N`` the foot of the tip's
  origin on axis ``N``.

Lines within :data:`TOLERANCE` (of the arm's size, for lengths) of meeting or of parallel are
taken as such; the DH form then reproduces the chain's poses to within as much (tests hold it
to 1e-12). Link inertias move into the DH frames; gravity into DH frame 0.
"""

from dataclasses import dataclass

import numpy as np

from robohw.robots.chain import Chain, Placement, inertia_matrix3, inertia_six, joint_poses
from robohw.robots.description import Joint, Robot
from robohw.robots.joint_type import JointType

__all__ = ["DhForm", "dh_form", "TOLERANCE"]

# Relative tolerance of "the axes meet" and "the axes are parallel": float64 rounding of the
# placements a URDF composes is some 1e-16 of the arm's size; 1e-12 leaves room for decimal
# files (the UR5's pi/2 - 4.9e-12 pitch is a real angle and stays one).
TOLERANCE = 1e-12


@dataclass(frozen=True)
class DhForm:
    """A chain in standard DH: ``robot`` (a :class:`robohw.robots.Robot`, the same joint
    limits, masses and joint terms), ``base`` (DH frame 0 in the chain's base frame), ``tool``
    (the chain's tip in DH frame ``N``) and ``sign`` (per joint, +1 or -1: the DH joint value
    is ``sign * q``). The chain's tip pose is ``base . T_DH(sign * q) . tool``."""
    robot: Robot
    base: Placement
    tool: Placement
    sign: tuple

    def dh_pose(self, pose):
        """The poses ``(..., 4, 4)`` of the chain's tip in its base frame as DH tool poses (DH
        frame ``N`` in DH frame 0)."""
        return np.linalg.inv(self.base.matrix) @ np.asarray(pose) @ np.linalg.inv(
            self.tool.matrix)

    def chain_q(self, q):
        """DH joint values ``(..., N)`` as the chain's."""
        return np.asarray(q) * np.array(self.sign, dtype=np.float64)


def _unit(v):
    return v / np.linalg.norm(v)


def _foot(point, origin, direction):
    """The point of the line ``origin + t direction`` nearest ``point``."""
    return origin + np.dot(point - origin, direction) * direction


def _frame(x, z, origin):
    out = np.eye(4)
    out[:3, 0], out[:3, 1], out[:3, 2], out[:3, 3] = x, np.cross(z, x), z, origin
    return out


def dh_form(chain, signs=True):
    """The :class:`DhForm` of ``chain`` (a :class:`robohw.robots.Chain`; see the module
    docstring): with ``signs``, joints may be reversed to keep twists off 180 degrees."""
    if not isinstance(chain, Chain):
        raise TypeError(f"dh_form takes a Chain, not {type(chain).__name__}")
    n = chain.dof
    poses, tip = joint_poses(chain, np.zeros((1, n)))
    poses, tip = [p[0] for p in poses], tip[0]
    points = [p[:3, 3] for p in poses]
    axes = [_unit(p[:3, :3] @ np.asarray(j.axis, dtype=np.float64))
            for p, j in zip(poses, chain.joints)]
    scale = max([1.0] + [float(np.linalg.norm(p)) for p in points + [tip[:3, 3]]])
    sign, z = [], []
    for i, axis in enumerate(axes):
        s = 1.0
        if signs and i > 0 and np.linalg.norm(np.cross(z[-1], axis)) < TOLERANCE:
            s = 1.0 if np.dot(z[-1], axis) > 0 else -1.0
        sign.append(s)
        z.append(s * axis)

    # Frames 1 .. N-1: origin on axis i + 1, x along the common normal of axes i and i + 1;
    # frame 0's origin first (its x follows from frame 1's).
    origin0 = _foot(np.zeros(3), points[0], z[0])
    frames, origin, x = [], origin0, None
    for i in range(n - 1):
        za, zb, pa, pb = z[i], z[i + 1], points[i], points[i + 1]
        normal = np.cross(za, zb)
        if np.linalg.norm(normal) < TOLERANCE:         # parallel: the normal through o_{i-1}
            here = _foot(origin, pb, zb)
            gap = here - _foot(here, pa, za)
            if np.linalg.norm(gap) < TOLERANCE * scale:    # one line
                here, x_new = _foot(origin, pb, zb), x
            else:
                x_new = _unit(gap)
        else:
            normal = _unit(normal)
            # The closest points of the two lines: pa + s za and pb + t zb.
            w = pa - pb
            b = np.dot(za, zb)
            denominator = 1 - b * b
            s_a = (b * np.dot(zb, w) - np.dot(za, w)) / denominator
            t_b = (np.dot(zb, w) - b * np.dot(za, w)) / denominator
            near_a, here = pa + s_a * za, pb + t_b * zb
            gap = here - near_a
            if np.linalg.norm(gap) < TOLERANCE * scale:     # they meet: either normal,
                here = (near_a + here) / 2                       # the one nearer x_{i-1}
                x_new = -normal if x is not None and np.dot(normal, x) < 0 else normal
            else:
                x_new = _unit(gap)
        if x_new is None:      # axes 1 and 2 on one line: any normal of the first
            x_new = _unit(np.cross(za, [1.0, 0.0, 0.0] if abs(za[0]) < 0.9 else [0.0, 1.0, 0.0]))
        x_new = _unit(x_new - np.dot(x_new, zb) * zb)
        frames.append(_frame(x_new, zb, here))
        origin, x = here, x_new
    if n == 1:
        x = _unit(np.cross(z[0], [1.0, 0.0, 0.0] if abs(z[0][0]) < 0.9 else [0.0, 1.0, 0.0]))
    last = _frame(x, z[-1], _foot(tip[:3, 3], points[-1], z[-1]))
    frames.append(last)
    first_x = frames[0][:3, 0]
    frame0 = _frame(_unit(first_x - np.dot(first_x, z[0]) * z[0]), z[0], origin0)
    frames.insert(0, frame0)

    base_rotation = frame0[:3, :3]
    joints = []
    for i, joint in enumerate(chain.joints):
        before, after = frames[i], frames[i + 1]
        zp, xp, xi, zi = before[:3, 2], before[:3, 0], after[:3, 0], after[:3, 2]
        step = after[:3, 3] - before[:3, 3]
        d, a = float(np.dot(step, zp)), float(np.dot(step, xi))
        theta = float(np.arctan2(np.dot(np.cross(xp, xi), zp), np.dot(xp, xi)))
        alpha = float(np.arctan2(np.dot(np.cross(zp, zi), xi), np.dot(zp, zi)))
        mass = com = inertia = None
        if joint.mass is not None:
            # The link rides on joint frame i and on DH frame i alike: move it across at q = 0.
            link = np.linalg.inv(after) @ poses[i]
            rot = link[:3, :3]
            com = tuple(float(v) for v in rot @ np.asarray(joint.com) + link[:3, 3])
            inertia = inertia_six(rot @ inertia_matrix3(joint.inertia) @ rot.T)
            mass = joint.mass
        limits = joint.limits
        if limits is not None and sign[i] < 0:
            limits = (-limits[1], -limits[0])
        revolute = joint.type == JointType.REVOLUTE
        joints.append(Joint(
            type=joint.type, a=a, alpha=alpha, d=0.0 if not revolute else d,
            offset=theta if revolute else d, theta=0.0 if revolute else theta, limits=limits,
            mass=mass, com=com, inertia=inertia, velocity_limit=joint.velocity_limit,
            acceleration_limit=joint.acceleration_limit, torque_limit=joint.torque_limit,
            armature=joint.armature, damping=joint.damping, friction=joint.friction,
            name=joint.name))
    gravity = tuple(float(v) for v in base_rotation.T @ np.asarray(chain.gravity))
    robot = Robot(name=chain.name, joints=tuple(joints), source=chain.source, gravity=gravity)
    tool = Placement.from_matrix(np.linalg.inv(frames[-1]) @ tip)
    return DhForm(robot, Placement.from_matrix(frame0), tool, tuple(sign))
