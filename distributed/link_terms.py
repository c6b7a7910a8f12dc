"""The Newton-Euler equations as the thesis's link computers evaluate them: one computer per
link, each computing its link's eight terms (the distributed Newton-Euler thesis, eqs.
2.3-35 to 2.3-44; ``docs/references.md``), written once
over scalars of any type (numpy arrays over samples, or the counting nodes of
:class:`robohw.dataflow.graph.Tracer`; see :mod:`robohw.robots.algebra`).

Every vector is in its own link's frame. For link ``i`` with ``R = ^{i-1}R_i`` (``A(i, i-1) =
R^T``), ``R_next = ^iR_{i+1}`` (``A(i, i+1)``; the identity for the last link), ``AS`` the
origin of frame ``i`` from that of ``i - 1`` in frame ``i``, ``Arc`` the centre of mass,
``Jc`` the inertia about it and ``Z0 = (0, 0, 1)``:

====  =========================================================================  ==========
term  revolute joint                                                             mul + add
====  =========================================================================  ==========
AW    ``R^T (AW(i-1) + Z0 qd)``                                                  9 + 9
AWd   ``R^T (AWd(i-1) + Z0 qdd + AW(i-1) x Z0 qd)``                              15 + 15
Aa    ``AWd x AS + AW x (AW x AS) + R^T Aa(i-1)``                                27 + 21
AF    ``m (AWd x Arc + AW x (AW x Arc) + Aa)``                                   21 + 15
AN    ``Jc AWd + AW x (Jc AW)``                                                  24 + 18
Af    ``R_next Af(i+1) + AF``                                                    9 + 9
An    ``R_next An(i+1) + AS x (R_next Af(i+1)) + (AS + Arc) x AF + AN``          21 + 24
u     ``An . (R^T Z0)`` (prismatic: ``Af . (R^T Z0)``)                          12 + 8
====  =========================================================================  ==========

257 operations a link (Table 2.1 as we rebuild it from the OCR): :data:`TERM_OPERATIONS`
counts each term with every operand a value (no zero skipped), as the thesis does. A prismatic
joint's link (eqs. 2.3-35 to 2.3-38 for sliding joints, the OCR's garbled form restored
by us) has ``AW = R^T AW(i-1)``, ``AWd = R^T AWd(i-1)`` and
``Aa = R^T Aa(i-1) + R^T Z0 qdd + AWd x AS + AW x (AW x AS + 2 R^T Z0 qd)``, fewer operations
than a revolute link's: the joint's axis terms ``R^T Z0 qdd`` and ``2 R^T Z0 qd``
(``slide_qdd``, ``slide_qd``) are given with the link's other local values (like ``AS``, which
depends on the joint then), as the thesis leaves ``Z0 qd``, ``Z0 qdd``, the rotations and
``AS`` out of its counts.

The terms ``AW``, ``AWd`` and ``Aa`` travel from link ``i`` to link ``i + 1``
(:data:`FORWARD`), ``Af`` and ``An`` from link ``i + 1`` to link ``i`` (:data:`BACKWARD`):
where they come from (this sample's neighbour, or a prediction) is the scheme's business
(:mod:`robohw.distributed.prediction`). The base's ``AW = AWd = 0`` and ``Aa = -gravity`` (the
robot file's convention, :mod:`robohw.dynamics.inverse.reference`; the thesis's ``a(0) = g`` sign is
the ``stanford_thesis`` file's); beyond the last link ``Af = An = 0`` (no load).
"""

from dataclasses import dataclass

import numpy as np

from robohw.robots.algebra import cross, dot, matTvec, matvec, vadd, vscale
from robohw.robots.joint_type import JointType
from robohw.robots.kinematics import joint_transform

__all__ = ["TERMS", "FORWARD", "BACKWARD", "TERM_OPERATIONS", "LinkState", "link_states",
           "base_terms", "end_terms", "angular_velocity", "angular_acceleration",
           "linear_acceleration", "centre_force", "centre_moment", "link_force", "link_moment",
           "joint_torque", "forward_terms", "body_terms", "backward_terms"]

TERMS = ("AW", "AWd", "Aa", "AF", "AN", "Af", "An", "u")
FORWARD = ("AW", "AWd", "Aa")
BACKWARD = ("Af", "An")
# Table 2.1 (as we rebuild it from the OCR): multiplications and additions of each term of
# a revolute link; 138 + 119 = 257.
TERM_OPERATIONS = {"AW": (9, 9), "AWd": (15, 15), "Aa": (27, 21), "AF": (21, 15),
                   "AN": (24, 18), "Af": (9, 9), "An": (21, 24), "u": (12, 8)}


@dataclass(frozen=True)
class LinkState:
    """What link ``i``'s computer knows of its own link at the samples: the joint's type, the
    rotations ``R`` (``^{i-1}R_i``) and ``R_next`` (``^iR_{i+1}``), ``AS``, ``z_qd`` and
    ``z_qdd`` (``Z0 qd``, ``Z0 qdd`` of a revolute joint), ``slide_qd`` and ``slide_qdd``
    (``2 R^T Z0 qd``, ``R^T Z0 qdd`` of a prismatic one; ``None`` otherwise), ``z0`` (``Z0``)
    and the link's mass, centre of mass and inertia about it. Vectors are tuples of 3 scalars,
    matrices tuples of 3 rows; a scalar is whatever the caller computes with (arrays over
    samples, nodes)."""
    revolute: bool
    R: tuple
    R_next: tuple
    AS: tuple
    z_qd: tuple
    z_qdd: tuple
    z0: tuple
    mass: object
    com: tuple
    inertia: tuple
    slide_qd: "tuple | None" = None
    slide_qdd: "tuple | None" = None


def _rotation(transform):
    return tuple(tuple(transform[..., r, c] for c in range(3)) for r in range(3))


def link_states(robot, q, qd, qdd):
    """:class:`LinkState` of every link of ``robot`` at the samples ``q``, ``qd``, ``qdd``
    (``(K, N)`` arrays): scalars are float64 arrays of ``K`` entries, and every vector entry is
    one (zeros too), so a term costs what :data:`TERM_OPERATIONS` says in any scalar world."""
    if not robot.has_dynamics:
        raise ValueError(f"{robot.source or robot.name}: the dynamics needs mass, com and "
                         f"inertia for every joint")
    q, qd, qdd = (np.atleast_2d(np.asarray(v, dtype=np.float64)) for v in (q, qd, qdd))
    for name, value in (("q", q), ("qd", qd), ("qdd", qdd)):
        if value.shape[-1] != robot.dof:
            raise ValueError(f"{name} must have {robot.dof} columns for {robot.name}, not "
                             f"{value.shape[-1]}")
    count = len(q)
    zero, one = np.zeros(count), np.ones(count)
    transforms = [joint_transform(joint, q[:, k]) for k, joint in enumerate(robot.joints)]
    identity = tuple(tuple(one if r == c else zero for c in range(3)) for r in range(3))
    states = []
    for k, joint in enumerate(robot.joints):
        transform = transforms[k]
        R = _rotation(transform)
        # AS = R^T (origin of frame i in frame i-1): (a, d sin(alpha), d cos(alpha)).
        AS = matTvec(R, tuple(transform[:, r, 3] for r in range(3)))
        ixx, iyy, izz, ixy, iyz, ixz = joint.inertia
        revolute = joint.type == JointType.REVOLUTE
        axis = tuple(R[2][c] for c in range(3))          # R^T Z0: the third row of R
        states.append(LinkState(
            revolute=revolute, R=R,
            R_next=_rotation(transforms[k + 1]) if k + 1 < robot.dof else identity,
            AS=AS, z_qd=(zero, zero, qd[:, k]), z_qdd=(zero, zero, qdd[:, k]),
            z0=(zero, zero, one), mass=joint.mass, com=tuple(joint.com),
            inertia=((ixx, ixy, ixz), (ixy, iyy, iyz), (ixz, iyz, izz)),
            slide_qd=None if revolute else tuple(2 * x * qd[:, k] for x in axis),
            slide_qdd=None if revolute else tuple(x * qdd[:, k] for x in axis)))
    return states


def base_terms(robot, count):
    """The base's ``AW``, ``AWd``, ``Aa`` at ``count`` samples (what link 1 receives)."""
    zero = np.zeros(count)
    gravity = np.asarray(robot.gravity, dtype=np.float64)
    return {"AW": (zero, zero, zero), "AWd": (zero, zero, zero),
            "Aa": tuple(np.full(count, -g) for g in gravity)}


def end_terms(count):
    """``Af`` and ``An`` beyond the last link at ``count`` samples (no load)."""
    zero = np.zeros(count)
    return {"Af": (zero, zero, zero), "An": (zero, zero, zero)}


def angular_velocity(link, W_prev):
    """``AW`` (``f1``) from the previous link's."""
    if link.revolute:
        return matTvec(link.R, vadd(W_prev, link.z_qd))
    return matTvec(link.R, W_prev)


def angular_acceleration(link, W_prev, Wd_prev):
    """``AWd`` (``f2``) from the previous link's ``AW`` and ``AWd``."""
    if link.revolute:
        return matTvec(link.R, vadd(vadd(Wd_prev, link.z_qdd), cross(W_prev, link.z_qd)))
    return matTvec(link.R, Wd_prev)


def linear_acceleration(link, W, Wd, a_prev):
    """``Aa`` (``f3``): the acceleration of the link's origin, from its ``AW``, ``AWd`` and the
    previous link's ``Aa``."""
    if link.revolute:
        return vadd(vadd(cross(Wd, link.AS), cross(W, cross(W, link.AS))),
                    matTvec(link.R, a_prev))
    # The terms of W alone first (they need no neighbour's value).
    spin = cross(W, vadd(cross(W, link.AS), link.slide_qd))
    return vadd(vadd(vadd(matTvec(link.R, a_prev), link.slide_qdd), cross(Wd, link.AS)), spin)


def centre_force(link, W, Wd, a):
    """``AF`` (``f4``): the force on the link's centre of mass."""
    return vscale(link.mass, vadd(vadd(cross(Wd, link.com), cross(W, cross(W, link.com))), a))


def centre_moment(link, W, Wd):
    """``AN`` (``f5``): the moment about the centre of mass."""
    return vadd(matvec(link.inertia, Wd), cross(W, matvec(link.inertia, W)))


def link_force(link, F, f_next):
    """``Af`` (``f6``): the force link ``i - 1`` exerts on the link, from the next link's;
    also ``R_next f_next``, which ``An`` reuses."""
    rotated = matvec(link.R_next, f_next)
    return vadd(rotated, F), rotated


def link_moment(link, F, N, n_next, rotated):
    """``An`` (``f7``): the moment link ``i - 1`` exerts on the link (about origin ``i - 1``),
    from the next link's and ``R_next f_next`` (``rotated``, from :func:`link_force`)."""
    return vadd(vadd(vadd(matvec(link.R_next, n_next), cross(link.AS, rotated)),
                     cross(vadd(link.AS, link.com), F)), N)


def forward_terms(link, W_prev, Wd_prev, a_prev):
    """``AW``, ``AWd``, ``Aa`` of the link from the previous link's (``f1`` to ``f3``); each
    input may be a different sample's or a prediction."""
    W = angular_velocity(link, W_prev)
    Wd = angular_acceleration(link, W_prev, Wd_prev)
    return W, Wd, linear_acceleration(link, W, Wd, a_prev)


def body_terms(link, W, Wd, a):
    """``AF`` and ``AN`` (``f4``, ``f5``)."""
    return centre_force(link, W, Wd, a), centre_moment(link, W, Wd)


def backward_terms(link, F, N, f_next, n_next):
    """``Af`` and ``An`` (``f6``, ``f7``) from the next link's (each may be a different
    sample's or a prediction)."""
    f, rotated = link_force(link, F, f_next)
    return f, link_moment(link, F, N, n_next, rotated)


def joint_torque(link, f, n):
    """``u`` (``f8``): the joint's torque (revolute) or force (prismatic)."""
    return dot(n if link.revolute else f, matTvec(link.R, link.z0))
