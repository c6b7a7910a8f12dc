"""The manipulator inertia matrix by the composite-rigid-body method: Amin-Javaheri & Orin's
O(N) algorithm (their Table 1) and O(log2 N) recursive-doubling algorithm (their Table 2).

Both algorithms are written once, over *scalars* of any type that supports ``+``, ``-`` and
``*``: numpy arrays (one entry per configuration: the vectorized float64 references),
:class:`robohw.dataflow.graph.Tracer` nodes (the operation counts, and the dataflow graph the
hardware arrays are built from). An ``arith`` object supplies what differs between the two
(:class:`robohw.robots.algebra.FloatArith` for floats): link constants, reciprocals of composite
masses, ``cell`` marks (which processing element an operation belongs to) and ``bound`` marks
(proven ranges).

Frames (the paper's, derived from standard DH; the paper's Figure 1 frames are not in our copy):
frame ``i`` is fixed to link ``i`` with its z axis on joint ``i``, ``J_i = DH_{i-1} Rz(theta_i)
Tz(d_i)``. Then ``^iU_{i+1} = Rx(alpha_i) Rz(theta_{i+1})`` and ``^ip*_{i+1} = (a_i,
-sin(alpha_i) d_{i+1}, cos(alpha_i) d_{i+1})``: the transform across link ``i`` needs joint
``i + 1`` and never joint 1 (H does not depend on q1, as the paper notes). The link's centre
of mass ``s*_i = (a_i, 0, 0) + Rx(alpha_i) r_i`` and inertia ``Rx(alpha_i) I_i Rx(alpha_i)^T``
are constants. Joint axes are ``z0 = (0, 0, 1)`` in their own frames, so products with ``z0``
are wiring.

Corrections to the printed tables (OCR slips and notation), each checked by the tests against
the independent :func:`jacobian_inertia`:

- Table 1, ``n_{j,i} := ^jU_{j+1} n_{j+1,i} + ^jp*_{j+1} x f_{j,i}``: the printed
  ``^jU_{j+1} (n + ^jp* x f)`` mixes frames (``^jp*`` is in frame ``j``).
- ``F_i`` and ``H_{i,i}``: the prismatic terms carry ``1 - sigma_i``, not ``sigma_i``.
- Table 2: the combination runs when ``j + 1 <= N`` (the text), not ``j + 1 < N``; the
  second outer product of ``E`` pairs the same vector twice (``P_{i+v,j+1}``, ``c_{i+v,k}``).
"""

import math
from dataclasses import dataclass

import numpy as np

from robohw.robots.algebra import (
    FloatArith,
    cross,
    dot,
    matmul,
    matvec,
    negate,
    product,
    snap,
    total,
    vadd,
    vscale,
    vsub,
)
from robohw.robots.chain import Chain, Placement, as_chain, inertia_matrix3, rotation
from robohw.robots.joint_type import JointType
from robohw.robots.kinematics import jacobian_inertia, link_jacobians
from robohw.robots.loading import require_dynamics

__all__ = [
    "LinkFrame", "link_frames", "joint_inputs", "link_transforms",
    "table1", "table2", "inertia_matrix", "jacobian_inertia", "link_jacobians", "log2_levels",
]


@dataclass(frozen=True)
class LinkFrame:
    """Constants of link ``i`` in the paper's frame ``i`` (see the module docstring)."""
    revolute: bool
    alpha: float
    a: float
    d: float            # joint i's offset along its axis (revolute; prismatic: q + offset)
    offset: float       # joint i's angle offset (revolute) or length offset (prismatic)
    theta: float        # prismatic: joint i's fixed angle (revolute: q + offset, not here)
    mass: float
    com: tuple          # s*_i, 3 floats
    inertia: tuple      # about the centre of mass, 3 rows of 3 floats
    limits: "tuple | None"
    # A general chain's link (robohw.robots.chain): joint i's axis in frame i and its placement
    # in frame i - 1 (None: a DH link, its axis z and its transform from alpha, a, d, theta).
    axis: "tuple | None" = None
    placement: "Placement | None" = None
    # Joint i's rotor inertia (robohw.robots.chain.JOINT_TERMS): added to H_ii.
    armature: float = 0.0


def _rx(alpha):
    c, s = snap(math.cos(alpha)), snap(math.sin(alpha))
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def link_frames(robot):
    """The :class:`LinkFrame` of every link of a :class:`robohw.robots.Robot` or
    :class:`robohw.robots.chain.Chain` with inertial data (a chain's frame ``i`` is its joint
    frame ``i``)."""
    require_dynamics(robot, "the inertia matrix")
    if isinstance(robot, Chain):
        return [LinkFrame(revolute=j.type == JointType.REVOLUTE, alpha=0.0, a=0.0, d=0.0,
                          offset=0.0,
                          theta=0.0, mass=j.mass, com=tuple(j.com),
                          inertia=tuple(tuple(float(v) for v in row)
                                        for row in inertia_matrix3(j.inertia)),
                          limits=j.limits, axis=tuple(j.axis), placement=j.placement,
                          armature=j.armature)
                for j in robot.joints]
    frames = []
    for k, joint in enumerate(robot.joints, start=1):
        if joint.type == JointType.PRISMATIC and joint.limits is None and k > 1:
            raise ValueError(f"{robot.source or robot.name}: joint {k}: limits: a prismatic "
                             f"joint needs limits (they bound the hardware's number formats)")
        rx = _rx(joint.alpha)
        ixx, iyy, izz, ixy, iyz, ixz = joint.inertia
        tensor = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
        com = np.array([joint.a, 0.0, 0.0]) + rx @ np.array(joint.com)
        frames.append(LinkFrame(
            revolute=joint.type == JointType.REVOLUTE, alpha=joint.alpha, a=joint.a, d=joint.d,
            offset=joint.offset, theta=joint.theta, mass=joint.mass,
            com=tuple(float(v) for v in com),
            inertia=tuple(tuple(float(v) for v in row) for row in rx @ tensor @ rx.T),
            limits=joint.limits, armature=joint.armature))
    return frames


def log2_levels(n):
    """``ceil(log2 n)``: the levels of recursive doubling over ``n`` links (0 for one)."""
    return (n - 1).bit_length()


def _symmetric(entry):
    rows = [[None] * 3 for _ in range(3)]
    for r in range(3):
        for c in range(r, 3):
            rows[r][c] = rows[c][r] = entry(r, c)
    return tuple(tuple(row) for row in rows)


def rotate_tensor(u, e):
    """``U E U^T`` of a symmetric ``E``: the upper triangle, mirrored."""
    ue = matmul(u, e)
    return _symmetric(lambda r, c: total([product(ue[r][k], u[c][k]) for k in range(3)]))


def parallel_axis(mass, r):
    """``mass (r.r 1 - r r^T)``, symmetric."""
    def entry(a, b):
        if a == b:
            return product(mass, total([product(r[k], r[k]) for k in range(3) if k != a]))
        return negate(product(mass, product(r[a], r[b])))
    return _symmetric(entry)


def tadd(*tensors):
    return tuple(tuple(total([t[r][c] for t in tensors]) for c in range(3)) for r in range(3))


def joint_inputs(frames, q):
    """Float joint inputs for :func:`link_transforms`: ``(cos, sin)`` of ``q + offset`` for a
    revolute joint, ``q + offset`` for a prismatic one; ``q`` of shape ``(B, N)``."""
    q = np.asarray(q, dtype=np.float64)
    inputs = []
    for k, frame in enumerate(frames):
        value = q[:, k] + frame.offset
        general = frame.placement is not None    # a chain's link: its q (float64 only)
        inputs.append((np.cos(value), np.sin(value)) if frame.revolute and not general
                      else value)
    return inputs


def link_transforms(frames, joints, arith):
    """``(^kU_{k+1}, ^kp*_{k+1})`` for ``k = 1 .. N-1`` (list index ``k - 1``), from the inputs
    of joints ``2 .. N`` (``joints[k]``, see :func:`joint_inputs`); ``U`` as 3 rows."""
    out = []
    for k in range(len(frames) - 1):
        here, nxt = frames[k], frames[k + 1]
        if nxt.placement is not None:
            out.append(_chain_transform(nxt, joints[k + 1]))
            continue
        with arith.cell("T", k + 1):
            ca = arith.const(snap(math.cos(here.alpha)))
            sa = arith.const(snap(math.sin(here.alpha)))
            if nxt.revolute:
                (c, s), d = joints[k + 1], arith.const(nxt.d)
            elif nxt.theta == 0:
                (c, s), d = (1, 0), joints[k + 1]
            else:  # a prismatic joint turned by its fixed theta
                c = arith.const(snap(math.cos(nxt.theta)))
                s = arith.const(snap(math.sin(nxt.theta)))
                d = joints[k + 1]
            u = ((c, negate(s), 0),
                 (product(ca, s), product(ca, c), negate(sa)),
                 (product(sa, s), product(sa, c), ca))
            p = (arith.const(here.a), negate(product(sa, d)), product(ca, d))
            out.append((u, p))
    return out


def _chain_transform(frame, value):
    """``(^kU_{k+1}, ^kp*_{k+1})`` of a chain's link ``k + 1`` at ``q = value`` (float64
    arrays, as 3 rows of per-state arrays)."""
    rot, value = np.array(frame.placement.rotation), np.asarray(value)
    if frame.revolute:
        u, p = rot @ rotation(frame.axis, value), np.asarray(frame.placement.translation)
        p = np.broadcast_to(p, value.shape + (3,))
    else:
        u = np.broadcast_to(rot, value.shape + (3, 3))
        p = np.asarray(frame.placement.translation) + value[:, None] * (rot @ frame.axis)
    return (tuple(tuple(u[:, r, c] for c in range(3)) for r in range(3)),
            tuple(p[:, r] for r in range(3)))


def _along(frame, vector):
    """The component of ``vector`` along the joint axis of ``frame``'s link: ``z`` for a DH
    link (wiring), ``axis . vector`` for a chain's."""
    return vector[2] if frame.axis is None else dot(frame.axis, vector)


class _Bounds:
    """Proven ranges of the algorithms' vectors (norm bounds, so every component obeys them),
    from the link constants and joint limits: what the hardware sizes its formats from."""
    def __init__(self, frames):
        self.frames = frames
        n = len(frames)
        self.plen = []  # max |^kp*_{k+1}|
        for k in range(n - 1):
            nxt = frames[k + 1]
            travel = 0.0 if nxt.revolute or nxt.limits is None else \
                max(abs(limit + nxt.offset) for limit in nxt.limits)
            if nxt.placement is not None:
                self.plen.append(math.hypot(*nxt.placement.translation) + travel)
                continue
            d = abs(nxt.d) if nxt.revolute else travel
            self.plen.append(math.hypot(frames[k].a, d))
        self.trace = [sum(f.inertia[r][r] for r in range(3)) for f in frames]
        self.com = [math.sqrt(sum(v * v for v in f.com)) for f in frames]

    def mass(self, a, b):
        """Composite mass of links ``a .. b`` (1-based, inclusive)."""
        return sum(f.mass for f in self.frames[a - 1:b])

    def path(self, a, b):
        """Bound on ``|p_{a,b}|``, the origin of frame ``b`` seen from frame ``a``."""
        return sum(self.plen[a - 1:b - 1])

    def reach(self, a, b):
        """Bound on the distance from origin ``a`` to the centre of mass of any link in
        ``a .. b``, and so to their composite centre of mass."""
        return max(self.path(a, k) + self.com[k - 1] for k in range(a, b + 1))

    def tensor(self, a, b):
        """Bound on the entries of the inertia of links ``a .. b`` about any point within
        ``reach`` of origin ``a``: ``|E_rc| <= lambda_max <= trace``."""
        r = 2 * self.reach(a, b)
        return sum(self.trace[k - 1] + 2 * self.frames[k - 1].mass * r * r
                   for k in range(a, b + 1))

    def force(self, i):
        """Bound on ``|f_{j,i}|``, any ``j``: the force a unit acceleration of joint ``i``
        needs, turned into other frames."""
        n = len(self.frames)
        mass = self.mass(i, n)
        return mass * self.reach(i, n) if self.frames[i - 1].revolute else mass

    def moment(self, j, i):
        """Bound on ``|n_{j,i}|``: the moment about origin ``j`` of that motion."""
        n = len(self.frames)
        if self.frames[i - 1].revolute:
            return sum(self.trace[i - 1:]) + self.mass(i, n) * self.reach(j, n) * self.reach(i, n)
        return self.mass(i, n) * self.reach(j, n)


def _constants(frame, arith):
    mass = arith.const(frame.mass)
    com = tuple(arith.const(v) for v in frame.com)
    inertia = tuple(tuple(arith.const(v) for v in row) for row in frame.inertia)
    return mass, com, inertia


def _combine(arith, bounds, lower, upper, transform, a, k):
    """Composite ``(M, c, E)`` of links ``a .. k`` from the lower set (links ``a .. j``, frame
    ``a``) and the upper set (links ``j+1 .. k``, frame ``j+1``) seen through ``transform``
    (``^aU_{j+1}``, ``p_{a,j+1}``). Masses are floats: constants of the robot."""
    (m_lo, c_lo, e_lo), (m_up, c_up, e_up), (u, p) = lower, upper, transform
    mass = m_lo + m_up
    if mass == 0:
        return mass, (0, 0, 0), tadd(e_lo, rotate_tensor(u, e_up))
    reach, tensor = bounds.reach(a, k), bounds.tensor(a, k)
    r = arith.bound(vadd(matvec(u, c_up), p), reach)
    inverse = arith.reciprocal(mass)
    c = arith.bound(vscale(inverse, vadd(vscale(arith.const(m_lo), c_lo),
                                         vscale(arith.const(m_up), r))), reach)
    d_up = arith.bound(vsub(r, c), 2 * reach)
    d_lo = arith.bound(vsub(c_lo, c), 2 * reach)
    e = tadd(rotate_tensor(u, e_up), e_lo, parallel_axis(arith.const(m_up), d_up),
             parallel_axis(arith.const(m_lo), d_lo))
    return mass, c, tuple(arith.bound(row, tensor) for row in e)


def _diagonal(arith, bounds, frame, i, mass, c, e):
    """``f_{i,i}``, ``n_{i,i}`` and ``H_{i,i}`` of the composite body ``i .. N``."""
    mass_ = arith.const(mass)
    if frame.axis is not None:           # a chain's link: its axis u, float64
        u = frame.axis
        if frame.revolute:
            force = cross(u, vscale(mass_, c))                       # u x M c
            moment = vadd(matvec(e, u), cross(c, force))             # E u + c x F
        else:
            force = vscale(mass_, u)                                 # M u
            moment = cross(c, force)
    elif frame.revolute:
        force = (negate(product(mass_, c[1])), product(mass_, c[0]), 0)      # z0 x M c
        moment = vadd((e[0][2], e[1][2], e[2][2]), cross(c, force))  # E z0 + c x F
    else:
        force = (0, 0, mass_)                                        # M z0
        moment = cross(c, force)
    force = arith.bound(force, bounds.force(i))
    moment = arith.bound(moment, bounds.moment(i, i))
    h = _along(frame, moment if frame.revolute else force)
    if frame.armature:              # the rotor's inertia, on the diagonal alone
        h = total([h, arith.const(frame.armature)])
    return force, moment, h


def _resolve(arith, bounds, frame, transform, force, moment, j, i):
    """``f_{j,i}``, ``n_{j,i}``, ``H_{j,i}``: the force and moment at joint ``j'`` (frame of
    ``transform``'s base) moved down to joint ``j``."""
    u, p = transform
    f = arith.bound(matvec(u, force), bounds.force(i))
    n = arith.bound(vadd(matvec(u, moment), cross(p, f)), bounds.moment(j, i))
    return f, n, _along(frame, n if frame.revolute else f)


def table1(frames, joints, arith=None):
    """The O(N) algorithm (Table 1): ``{(j, i): H_ji}`` for ``j <= i`` (1-based).

    Processing element ``i`` (``arith.cell("A", i)``) folds link ``i`` into the composite body
    of links ``i+1 .. N``, and its diagonal; elements ``j < i`` (``arith.cell("B", j, i)``)
    carry column ``i``'s force and moment down the arm.
    """
    arith = arith or FloatArith()
    bounds = _Bounds(frames)
    transforms = link_transforms(frames, joints, arith)
    n = len(frames)
    h, body = {}, None
    for i in range(n, 0, -1):
        frame = frames[i - 1]
        with arith.cell("A", i):
            own = _constants(frame, arith)
            own = (frame.mass, *own[1:])
            body = own if body is None else _combine(arith, bounds, own, body,
                                                    transforms[i - 1], i, n)
            mass, c, e = body
            force, moment, h[i, i] = _diagonal(arith, bounds, frame, i, mass, c, e)
        for j in range(i - 1, 0, -1):
            with arith.cell("B", j, i):
                force, moment, h[j, i] = _resolve(arith, bounds, frames[j - 1],
                                                  transforms[j - 1], force, moment, j, i)
    return h


def table2(frames, joints, arith=None):
    """The O(log2 N) algorithm (Table 2): ``{(j, i): H_ji}`` for ``j <= i`` (1-based).

    Stage A, level ``l`` (``arith.cell("A", l, a)``): the composite body of links ``a .. k``
    from ``a .. j`` and ``j+1 .. k``, and the transform across it, for every suffix of every
    block of ``2**l`` links. Diagonal (``arith.cell("D", i)``). Stage B, level ``l``
    (``arith.cell("B", l, a, x)``): column ``x``'s force and moment from joint ``j+1`` to joint
    ``a`` in one step through Stage A's transform ``^aU_{j+1}``; only when ``x`` lies in the
    upper half ``j+1 .. k`` (the dashed boxes of Figure 3 are left out).
    """
    arith = arith or FloatArith()
    bounds = _Bounds(frames)
    n = len(frames)
    transform = {(k, k + 1): t for k, t in enumerate(link_transforms(frames, joints, arith), 1)}
    body = {}
    for k, frame in enumerate(frames, 1):
        body[k, k] = (frame.mass, *_constants(frame, arith)[1:])
    levels = log2_levels(n)
    for level in range(1, levels + 1):
        w = 1 << level
        for u in range(1, (1 << (levels - level)) + 1):
            i, j, k = w * (u - 1), w * (u - 1) + w // 2, min(w * u, n)
            if j + 1 > n:
                continue
            for a in range(i + 1, j + 1):
                with arith.cell("A", level, a):
                    body[a, k] = _combine(arith, bounds, body[a, j], body[j + 1, k],
                                          transform[a, j + 1], a, k)
                    if k < n:  # the transform across the new set, for the next level
                        (u1, p1), (u2, p2) = transform[a, j + 1], transform[j + 1, k + 1]
                        rot = tuple(tuple(arith.bound(row, 1.0)) for row in matmul(u1, u2))
                        pos = arith.bound(vadd(p1, matvec(u1, p2)), bounds.path(a, k + 1))
                        transform[a, k + 1] = (rot, pos)
    h, force, moment = {}, {}, {}
    for i in range(1, n + 1):
        with arith.cell("D", i):
            force[i, i], moment[i, i], h[i, i] = _diagonal(arith, bounds, frames[i - 1], i,
                                                           *body[i, n])
    for x in range(2, n + 1):
        levels_x = log2_levels(x)
        for level in range(1, levels_x + 1):
            w = 1 << level
            for u in range(1, (1 << (levels_x - level)) + 1):
                i, j, k = w * (u - 1), w * (u - 1) + w // 2, w * u
                if not j + 1 <= x <= k:
                    continue
                for a in range(i + 1, j + 1):
                    with arith.cell("B", level, a, x):
                        force[a, x], moment[a, x], h[a, x] = _resolve(
                            arith, bounds, frames[a - 1], transform[a, j + 1],
                            force[j + 1, x], moment[j + 1, x], a, x)
    return h


def _matrix(h, n, shape):
    out = np.zeros(shape + (n, n))
    for (j, i), value in h.items():
        out[..., j - 1, i - 1] = out[..., i - 1, j - 1] = value
    return out


def inertia_matrix(robot, q, method="table1"):
    """H(q) of shape ``(B, N, N)`` for joint vectors ``q`` of shape ``(B, N)``, by
    ``"table1"``, ``"table2"`` or ``"jacobian"``."""
    q = np.atleast_2d(np.asarray(q, dtype=np.float64))
    if q.shape[-1] != robot.dof:
        raise ValueError(f"q must have {robot.dof} columns for {robot.name}, not {q.shape[-1]}")
    if method == "jacobian":
        return jacobian_inertia(robot, q)
    algorithms = {"table1": table1, "table2": table2}
    if method not in algorithms:
        raise ValueError(f"method must be table1, table2 or jacobian, not {method!r}")
    # The float reference takes every robot as a general chain (a DH robot's exactly, through
    # as_chain): its twists are never snapped to multiples of 90 degrees, as the hardware's are.
    frames = link_frames(as_chain(robot))
    h = algorithms[method](frames, joint_inputs(frames, q))     # the armature included
    return _matrix(h, robot.dof, q.shape[:1])
