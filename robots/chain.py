"""General serial chains: every robot the float64 references take, whatever file it came from.

A chain is a sequence of joints from a fixed base to a tip. Joint ``i`` is a fixed
:class:`Placement` of its frame in the frame of joint ``i - 1`` (the base for the first: URDF's
``origin xyz rpy``), followed by a motion about (revolute) or along (prismatic) a unit ``axis``
of that frame by ``q_i``: ``^{i-1}T_i = P_i M_i(q_i)``. Link ``i`` moves with joint ``i``; its
centre of mass and its inertia (about the centre of mass) are in frame ``i``. The ``tip``
placement is the tool frame in the last joint's frame (a tool wrench is given in it); gravity is
in the base frame.

Standard Denavit-Hartenberg parameters (:class:`robohw.robots.Robot`) are one way to write a
chain: :func:`as_chain` gives the chain of such a robot, exactly and without rounding
near-multiples of 90 degrees. URDF files are another (:mod:`robohw.robots.urdf`).

The *distal* form (:func:`distal_links`) is the same chain in the frames the Newton-Euler
formulations of Luh, Walker & Paul and Lee & Chang use (standard DH's): frame ``D_i`` lies at
the far end of link ``i``, ``D_{i-1} -> D_i = M_i(q_i) K_i`` with ``K_i = P_{i+1}`` (the tip
placement after the last), so joint ``i`` moves about an axis through the origin of ``D_{i-1}``.
The base frame of the distal form is ``D_0 = P_1``.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from robohw.robots.joint_type import JointType

__all__ = ["Placement", "ChainJoint", "Chain", "DistalLink", "as_chain", "rotation",
           "motion", "joint_poses", "distal_links", "distal_transform", "distal_gravity",
           "inertia_matrix3", "inertia_six", "joint_terms", "JOINT_TERMS"]

# The joint terms every inverse-dynamics reference adds to the rigid body's torque:
# armature * qdd + damping * qd + friction * sign(qd) (sign(0) = 0: at rest, no Coulomb term).
JOINT_TERMS = ("armature", "damping", "friction")

_IDENTITY3 = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


@dataclass(frozen=True)
class Placement:
    """A rigid placement: ``rotation`` (3 rows of 3: the frame's axes as columns, in the parent
    frame) and ``translation`` (its origin in the parent frame)."""
    rotation: tuple = _IDENTITY3
    translation: tuple = (0.0, 0.0, 0.0)

    @classmethod
    def from_xyz_rpy(cls, xyz, rpy):
        """URDF's ``origin``: ``xyz`` and fixed-axis roll, pitch, yaw: ``Rz(y) Ry(p) Rx(r)``."""
        roll, pitch, yaw = rpy
        cr, sr, cp, sp = math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch)
        cy, sy = math.cos(yaw), math.sin(yaw)
        rot = ((cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr),
               (sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr),
               (-sp, cp * sr, cp * cr))
        return cls(rot, tuple(float(v) for v in xyz))

    @classmethod
    def from_matrix(cls, matrix):
        matrix = np.asarray(matrix, dtype=np.float64)
        return cls(tuple(tuple(float(v) for v in row) for row in matrix[:3, :3]),
                   tuple(float(v) for v in matrix[:3, 3]))

    @classmethod
    def about(cls, axis, angle):
        """A rotation by ``angle`` about the unit ``axis``."""
        return cls(tuple(tuple(float(v) for v in row) for row in rotation(axis, angle)))

    @property
    def matrix(self):
        """The 4 x 4 homogeneous transform."""
        out = np.eye(4)
        out[:3, :3] = self.rotation
        out[:3, 3] = self.translation
        return out

    def then(self, other):
        """This placement followed by ``other`` (``other`` given in this one's frame)."""
        return Placement.from_matrix(self.matrix @ other.matrix)

    def inverse(self):
        rot = np.array(self.rotation).T
        return Placement.from_matrix(np.block([[rot, -(rot @ self.translation)[:, None]],
                                               [np.zeros((1, 3)), np.ones((1, 1))]]))


@dataclass(frozen=True)
class ChainJoint:
    """One joint of a :class:`Chain` and the link it moves (see the module docstring).

    ``com`` (m) and ``inertia`` (``Ixx Iyy Izz Ixy Iyz Ixz`` about the centre of mass, kg m^2)
    are in the joint's frame; ``armature`` (kg m^2 or kg: the rotor's inertia seen at the
    joint), ``damping`` (N m s/rad or N s/m) and ``friction`` (N m or N, Coulomb) are the
    joint terms of :data:`JOINT_TERMS`. ``torque_limit`` (N m or N), out of the ``repr`` as
    :class:`robohw.robots.Joint`'s is."""
    name: str
    type: str
    placement: Placement
    axis: tuple
    limits: "tuple | None" = None
    velocity_limit: "float | None" = None
    acceleration_limit: "float | None" = None
    mass: "float | None" = None
    com: "tuple | None" = None
    inertia: "tuple | None" = None
    armature: float = 0.0
    damping: float = 0.0
    friction: float = 0.0
    torque_limit: "float | None" = field(default=None, repr=False)

    # A chain's joint value is q itself (DH robots carry an offset; chains put it in the
    # placement).
    offset = 0.0


@dataclass(frozen=True)
class Chain:
    """A serial robot as a general chain (see the module docstring): its ``joints`` from base
    to tip, the ``tip`` placement, ``gravity`` in the base frame; ``base_link`` and
    ``tip_link`` name the links of the file it came from, ``source`` the file; ``locked``:
    the joints off the chain and the positions they are held at."""
    name: str
    joints: tuple
    tip: Placement = field(default_factory=Placement)
    gravity: tuple = (0.0, 0.0, -9.81)
    source: str = ""
    base_link: str = ""
    tip_link: str = ""
    locked: tuple = ()

    @property
    def dof(self):
        return len(self.joints)

    @property
    def has_dynamics(self):
        return all(j.mass is not None for j in self.joints)


def _rx(alpha):
    c, s = math.cos(alpha), math.sin(alpha)
    return ((1.0, 0.0, 0.0), (0.0, c, -s), (0.0, s, c))


def _rz(theta):
    c, s = math.cos(theta), math.sin(theta)
    return ((c, -s, 0.0), (s, c, 0.0), (0.0, 0.0, 1.0))


def as_chain(robot):
    """The :class:`Chain` of ``robot``: itself if it is one; for a standard-DH
    :class:`robohw.robots.Robot`, joint ``i``'s placement is ``Tx(a_{i-1}) Rx(alpha_{i-1})
    Rz(offset_i) Tz(d_i)`` (a prismatic joint: ``Rz(theta_i) Tz(offset_i)``), its motion about
    or along z, its link's centre of mass and inertia moved from DH frame ``i`` into joint
    frame ``i``, and the tip ``Tx(a_N) Rx(alpha_N)`` (the last DH frame)."""
    if isinstance(robot, Chain):
        return robot
    joints, previous = [], Placement()
    for k, joint in enumerate(robot.joints, start=1):
        if joint.type == JointType.REVOLUTE:
            turn, shift = joint.offset, joint.d
        else:
            turn, shift = joint.theta, joint.offset
        placement = previous.then(Placement(_rz(turn), (0.0, 0.0, shift)))
        distal = Placement(_rx(joint.alpha), (joint.a, 0.0, 0.0))
        com = inertia = None
        if joint.mass is not None:
            rot = np.array(distal.rotation)
            com = tuple(float(v) for v in rot @ np.array(joint.com) + distal.translation)
            inertia = inertia_six(rot @ inertia_matrix3(joint.inertia) @ rot.T)
        joints.append(ChainJoint(
            name=f"joint{k}", type=joint.type, placement=placement, axis=(0.0, 0.0, 1.0),
            limits=joint.limits, velocity_limit=joint.velocity_limit,
            acceleration_limit=joint.acceleration_limit, torque_limit=joint.torque_limit,
            mass=joint.mass, com=com, inertia=inertia,
            **{term: getattr(joint, term, 0.0) for term in JOINT_TERMS}))
        previous = distal
    return Chain(name=robot.name, joints=tuple(joints), tip=previous,
                 gravity=tuple(robot.gravity), source=robot.source)


def inertia_matrix3(six):
    """The symmetric 3 x 3 tensor of ``Ixx Iyy Izz Ixy Iyz Ixz``."""
    ixx, iyy, izz, ixy, iyz, ixz = six
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]], dtype=np.float64)


def inertia_six(tensor):
    """``(Ixx, Iyy, Izz, Ixy, Iyz, Ixz)`` of a symmetric 3 x 3 tensor (the inverse of
    :func:`inertia_matrix3`)."""
    return tuple(float(tensor[r, c]) for r, c in ((0, 0), (1, 1), (2, 2), (0, 1), (1, 2),
                                                  (0, 2)))


def rotation(axis, angle):
    """Rotations ``(..., 3, 3)`` by ``angle`` (any shape; complex stays complex) about the unit
    ``axis`` (Rodrigues: ``I + sin K + (1 - cos) K^2``, ``K`` the axis's cross-product
    matrix)."""
    x, y, z = axis
    skew = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    angle = np.asarray(angle)
    s, c = np.sin(angle)[..., None, None], np.cos(angle)[..., None, None]
    return np.eye(3) + s * skew + (1 - c) * (skew @ skew)


def motion(joint, value):
    """``(R, t)`` of joint ``joint``'s motion by ``value`` (any shape): ``R (..., 3, 3)``,
    ``t (..., 3)``."""
    value = np.asarray(value)
    if joint.type == JointType.REVOLUTE:
        return rotation(joint.axis, value), np.zeros(value.shape + (3,), dtype=value.dtype)
    rot = np.broadcast_to(np.eye(3, dtype=value.dtype), value.shape + (3, 3))
    return rot, value[..., None] * np.asarray(joint.axis)


def _transform(rot, trans):
    out = np.zeros(rot.shape[:-2] + (4, 4), dtype=rot.dtype)
    out[..., :3, :3], out[..., :3, 3], out[..., 3, 3] = rot, trans, 1.0
    return out


def joint_poses(chain, q):
    """``(poses, tip)`` for joint vectors ``q`` ``(B, N)`` (complex stays complex): the pose of
    every joint frame in the base frame, ``N`` arrays ``(B, 4, 4)``, and the tip's."""
    q = np.atleast_2d(np.asarray(q))
    q = q.astype(np.result_type(q, np.float64))
    if q.shape[-1] != chain.dof:
        raise ValueError(f"q must have {chain.dof} columns for {chain.name}, not {q.shape[-1]}")
    pose = np.broadcast_to(np.eye(4, dtype=q.dtype), q.shape[:-1] + (4, 4))
    poses = []
    for k, joint in enumerate(chain.joints):
        pose = pose @ joint.placement.matrix @ _transform(*motion(joint, q[..., k]))
        poses.append(pose)
    return poses, pose @ chain.tip.matrix


@dataclass(frozen=True)
class DistalLink:
    """Link ``i`` in the distal form (see the module docstring): joint ``i``'s ``type`` and
    ``axis`` (in ``D_{i-1}``), ``K_i`` (``fixed``: ``D_i`` in joint ``i``'s frame after its
    motion), the link's ``mass``, ``com`` and ``inertia`` (3 x 3 about the centre of mass) in
    ``D_i``."""
    type: str
    axis: tuple
    fixed: Placement
    mass: float
    com: tuple
    inertia: tuple


def distal_links(chain):
    """The :class:`DistalLink` of every link of ``chain`` (a :class:`Chain` with inertial
    data)."""
    out = []
    for k, joint in enumerate(chain.joints):
        fixed = chain.joints[k + 1].placement if k + 1 < chain.dof else chain.tip
        back = fixed.inverse()
        rot = np.array(back.rotation)
        com = rot @ np.array(joint.com) + back.translation
        inertia = rot @ inertia_matrix3(joint.inertia) @ rot.T
        out.append(DistalLink(joint.type, joint.axis, fixed, float(joint.mass),
                              tuple(float(v) for v in com),
                              tuple(tuple(float(v) for v in row) for row in inertia)))
    return out


def distal_transform(link, value):
    """``(R, t)`` of :class:`DistalLink` ``link`` at joint value ``value`` (any shape):
    ``^{i-1}T_i = M_i(q_i) K_i``, the pose of ``D_i`` in ``D_{i-1}``; ``R (..., 3, 3)``,
    ``t (..., 3)``."""
    turn, shift = motion(link, value)
    return (turn @ np.array(link.fixed.rotation),
            shift + turn @ np.array(link.fixed.translation))


def distal_gravity(chain):
    """Gravity in the distal form's base frame ``D_0 = P_1``."""
    rot = np.array(chain.joints[0].placement.rotation)
    return tuple(float(v) for v in rot.T @ np.asarray(chain.gravity, dtype=np.float64))


def joint_terms(robot, qd, qdd):
    """``(B, N)``: what the joints' own terms (:data:`JOINT_TERMS`) add to the rigid body's
    torques at rates ``qd`` and accelerations ``qdd`` ``(B, N)``: ``armature * qdd + damping *
    qd + friction * sign(qd)`` (no Coulomb term at ``qd = 0``), for a chain or a DH robot."""
    armature, damping, friction = (np.array([float(getattr(j, t, 0.0)) for j in robot.joints])
                                   for t in JOINT_TERMS)
    return armature * qdd + damping * qd + friction * np.sign(qd)
