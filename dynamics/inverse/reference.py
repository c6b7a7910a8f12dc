"""Inverse dynamics of serial robots in float64: the joint torques (or forces) ``tau`` that give
the accelerations ``qdd`` at the state ``(q, qd)``, three independent ways, vectorized over
states.

- :func:`link_frame_torques`: the Newton-Euler recursion of Luh, Walker & Paul in link
  coordinates (velocities and accelerations outward, forces and moments inward).
- :func:`scan_torques`: Lee & Chang's base-coordinate form (their eqs. (15)-(31), with the
  corrections of our reading (docs/dynamics.md): eq. (17) uses ``qd``, eq. (29)'s "a_i" is the
  centre of mass): eleven steps of which one is a 3x3 matrix-product scan and five are vector scans,
  each evaluated serially, by recursive doubling or by PFP on ``p`` processors
  (:mod:`robohw.dynamics.inverse.scans`); every evaluation gives the same torques.
- :func:`lagrange_torques`: ``H(q) qdd + C(q, qd) qd + g(q)`` from the inertia matrix of
  :func:`robohw.systolic.reference.link_jacobians`, its derivatives by complex step
  (``c_i = sum_jk (dH_ij/dq_k - dH_jk/dq_i / 2) qd_j qd_k``) and ``g`` from the potential energy.

Conventions: standard DH (``A_i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)``); a revolute joint's
``theta = q + offset``, a prismatic joint's ``d = q + offset`` (its ``theta`` fixed). The robot's
``gravity`` is the gravitational acceleration in the base frame; the base is given the
acceleration ``-gravity`` (Luh, Walker & Paul's device), so ``tau`` is what the joints must
exert, gravity included. An optional ``wrench`` ``(B, 6)`` or ``(6,)``, ``(fx, fy, fz, mx, my,
mz)``, is exerted by the environment on the tool, in the last link's frame, about its origin.
"""

import math

import numpy as np

from robohw.dynamics.inverse.scans import (
    doubling_schedule,
    pfp_schedule,
    run_schedule,
    serial_schedule,
)
from robohw.hw.checks import check_choice, check_positive_integer
from robohw.robots.algebra import (
    FloatArith,
    cross,
    dot,
    matmul,
    matTvec,
    matvec,
    negate,
    product,
    snap,
    vadd,
    vscale,
)
from robohw.robots.chain import (
    Chain,
    DistalLink,
    as_chain,
    distal_gravity,
    distal_links,
    distal_transform,
    joint_terms,
)
from robohw.robots.joint_type import JointType
from robohw.robots.kinematics import jacobian_inertia, link_jacobians, tool_jacobian
from robohw.robots.loading import require_dynamics

__all__ = ["link_frame_torques", "rigid_link_frame_torques", "base_coordinate_steps",
           "scan_torques", "lagrange_torques", "inverse_dynamics", "joint_terms", "link_motions",
           "joint_arrays", "FORMULATIONS", "SCANS", "SCHEDULES", "PHASES"]

FORMULATIONS = ("link", "scan", "lagrange")
SCANS = ("serial", "doubling", "pfp")


def joint_arrays(robot, computation, **arrays):
    """``arrays`` (by name, each ``(N,)`` or ``(B, N)``) as float64 ``(B, N)`` arrays broadcast
    together, in their order, for ``robot``'s ``computation`` (named where a robot without
    dynamics is refused); ``ValueError`` naming an array without ``robot.dof`` columns."""
    require_dynamics(robot, computation)
    out = [np.atleast_2d(np.asarray(v, dtype=np.float64)) for v in arrays.values()]
    for name, value in zip(arrays, out):
        if value.shape[-1] != robot.dof:
            raise ValueError(f"{name} must have {robot.dof} columns for {robot.name}, not "
                             f"{value.shape[-1]}")
    return np.broadcast_arrays(*out)


def _states(robot, q, qd, qdd, wrench):
    q, qd, qdd = joint_arrays(robot, "the dynamics", q=q, qd=qd, qdd=qdd)
    wrench = np.zeros(6) if wrench is None else np.asarray(wrench, dtype=np.float64)
    if wrench.shape[-1] != 6:
        raise ValueError(f"wrench must have 6 components (fx, fy, fz, mx, my, mz), not "
                         f"{wrench.shape[-1]}")
    return q, qd, qdd, np.broadcast_to(wrench, (len(q), 6))


def link_motions(robot, q):
    """Per joint of ``robot`` at joint vectors ``q`` ``(B, N)``, in the distal form
    (:func:`robohw.robots.chain.distal_links`): ``(R, p, revolute, axis, link)``:
    ``^{i-1}R_i`` ``(B, 3, 3)``, ``^i p*_i`` ``(B, 3)`` (the origin of frame ``i`` from that of
    ``i - 1``, in frame ``i``), the joint's axis in frame ``i`` ``(B, 3)`` and the
    :class:`~robohw.robots.chain.DistalLink`."""
    out = []
    for k, link in enumerate(distal_links(as_chain(robot))):
        rot, origin = distal_transform(link, q[:, k])
        p = _mtv(rot, origin)
        axis = _mtv(rot, np.broadcast_to(np.array(link.axis), (len(q), 3)))
        out.append((rot, p, link.type == JointType.REVOLUTE, axis, link))
    return out


def _mv(m, v):
    return np.einsum("bij,bj->bi", m, v)


def _mtv(m, v):
    return np.einsum("bji,bj->bi", m, v)


def link_frame_torques(robot, q, qd, qdd, wrench=None):
    """Torques ``(B, N)`` by the link-frame Newton-Euler recursion (Luh, Walker & Paul), in the
    distal form of any chain, with the joint terms (:func:`joint_terms`)."""
    q, qd, qdd, wrench = _states(robot, q, qd, qdd, wrench)
    return rigid_link_frame_torques(robot, q, qd, qdd, wrench) + joint_terms(robot, qd, qdd)


def rigid_link_frame_torques(robot, q, qd, qdd, wrench):
    """The rigid body's torques ``(B, N)`` of :func:`link_frame_torques`, without the joint
    terms, on arrays ``(B, N)`` (and ``wrench`` ``(B, 6)``) of any numeric type, taken as they
    are: complex states give complex torques (the gradient's complex step,
    :mod:`robohw.dynamics.gradient.reference`)."""
    batch = len(q)
    links = link_motions(robot, q)
    w = dw = np.zeros((batch, 3))
    gravity = distal_gravity(as_chain(robot))
    a = np.broadcast_to(-np.asarray(gravity, dtype=np.float64), (batch, 3))
    forces, moments = [], []
    for k, (rot, p, revolute, axis, link) in enumerate(links):
        w_in, dw_in = _mtv(rot, w), _mtv(rot, dw)
        if revolute:
            w = w_in + axis * qd[:, k, None]
            dw = dw_in + axis * qdd[:, k, None] + np.cross(w_in, axis * qd[:, k, None])
        else:
            w, dw = w_in, dw_in
        a = _mtv(rot, a) + np.cross(dw, p) + np.cross(w, np.cross(w, p))
        if not revolute:
            a = a + axis * qdd[:, k, None] + 2 * np.cross(w, axis * qd[:, k, None])
        com, inertia = np.array(link.com), np.array(link.inertia)
        ac = a + np.cross(dw, com) + np.cross(w, np.cross(w, com))
        jw = np.einsum("ij,bj->bi", inertia, w)
        forces.append(link.mass * ac)
        moments.append(np.einsum("ij,bj->bi", inertia, dw) + np.cross(w, jw))
    # Backward: f, n exerted on link i by link i-1, n about the origin of frame i-1.
    f, n = -wrench[:, :3], -wrench[:, 3:]     # what the hand exerts on the environment
    tau = np.zeros((batch, robot.dof), dtype=np.result_type(q, qd, qdd, np.float64))
    for k in range(robot.dof - 1, -1, -1):
        rot_next = links[k + 1][0] if k + 1 < robot.dof else np.broadcast_to(np.eye(3),
                                                                              (batch, 3, 3))
        _, p, revolute, axis, link = links[k]
        f_next, n_next = _mv(rot_next, f), _mv(rot_next, n)
        f = f_next + forces[k]
        n = n_next + np.cross(p, f_next) + np.cross(p + np.array(link.com), forces[k]) + \
            moments[k]
        tau[:, k] = np.einsum("bi,bi->b", n if revolute else f, axis)
    return tau


SCHEDULES = {"serial": lambda count, processors: serial_schedule(count),
             "doubling": doubling_schedule, "pfp": pfp_schedule}

# The phases of Lee & Chang's steps, in order, and what each is: the cells of the operation
# counts (robohw.dynamics.inverse.counts) are (phase, step, processor) for a scan, (phase, None,
# link) for local work.
PHASES = {
    "rotations": "inputs",          # (i-1)R_i and ip*_i from the joint inputs
    "R": "matrix scan",             # step 1 (15)
    "axes": "local",                # step 2 (16), the b of step 3 (17)
    "omega": "vector scan",         # (18)
    "b omega-dot": "local",         # (19)
    "omega-dot": "vector scan",     # (20)
    "b p-ddot": "local",            # (21)
    "p-ddot": "vector scan",        # (22)
    "F, N": "local",                # steps 6-8 (23)-(27)
    "hand": "inputs",               # the tool wrench in base coordinates
    "f": "vector scan",             # step 9 (28)
    "b n": "local",                 # (29)
    "n": "vector scan",             # (30)
    "tau": "local",                 # step 11 (31)
}

_ZERO = (0, 0, 0)
_IDENTITY = ((1, 0, 0), (0, 1, 0), (0, 0, 1))


def _link_input(joint, value, arith):
    """``(^{i-1}R_i, ^ip*_i)`` of ``joint`` from its input ``value``: for a DH joint, ``(cos,
    sin)`` of its angle (revolute) or its length ``d`` (prismatic); for a
    :class:`~robohw.robots.chain.DistalLink` (float64 only), its ``q``."""
    if isinstance(joint, DistalLink):
        rot, origin = distal_transform(joint, value)
        p = _mtv(rot, origin)
        return (tuple(tuple(rot[:, r, c] for c in range(3)) for r in range(3)),
                tuple(p[:, r] for r in range(3)))
    ca, sa = snap(math.cos(joint.alpha)), snap(math.sin(joint.alpha))
    if joint.type == JointType.REVOLUTE:
        (c, s), d = value, joint.d
        p = (arith.const(joint.a), arith.const(d * sa), arith.const(d * ca))
    else:
        c, s, d = snap(math.cos(joint.theta)), snap(math.sin(joint.theta)), value
        p = (arith.const(joint.a), product(d, arith.const(sa)), product(d, arith.const(ca)))
    ca, sa = arith.const(ca), arith.const(sa)
    rot = ((c, negate(product(s, ca)), product(s, sa)),
           (s, product(c, ca), negate(product(c, sa))),
           (0, sa, ca))
    return rot, p


def base_coordinate_steps(robot, joints, qd, qdd, hand, arith, scan, bounds=None):
    """Lee & Chang's steps (15)-(31) over scalars: the ``N`` joint torques (forces).

    ``joints[i]``: joint ``i + 1``'s input, ``(cos, sin)`` of ``q + offset`` (revolute) or
    ``q + offset`` (prismatic); ``qd[i]``, ``qdd[i]``: its rate and acceleration; ``hand``:
    ``None`` or ``(force, moment)`` exerted by the environment on the tool, in the last link's
    frame (3 scalars each); ``arith``: see :mod:`robohw.robots.algebra`;
    ``scan(phase, elements, combine)``: the prefixes of ``elements`` (see
    :mod:`robohw.dynamics.inverse.scans`). Local work runs in ``arith.cell(phase, None, link)``.
    ``bounds``: a :class:`robohw.dynamics.inverse.bounds.DynamicsBounds`, whose norm bounds
    are handed to ``arith.bound`` (the hardware's proven ranges; float arithmetic ignores them).
    """
    n = robot.dof
    # A DH robot's links as its file gives them (the hardware traces these); a chain's in
    # its distal form (float64 only).
    chain = isinstance(robot, Chain)
    members = distal_links(robot) if chain else robot.joints
    revolute = [member.type == JointType.REVOLUTE for member in members]

    def fit(vector, limit):
        return vector if bounds is None else arith.bound(vector, limit)

    def local(phase, function):
        out = []
        for i in range(n):
            with arith.cell(phase, None, i):
                out.append(function(i))
        return out

    links = local("rotations", lambda i: _link_input(members[i], joints[i], arith))
    # Step 1: 0R_i = 0R_{i-1} (i-1)R_i (0R_0 = I, the identity: a scan of the N others). Every
    # product of rotations is a rotation: its entries are within 1.
    rot = [_IDENTITY] + scan("R", [r for r, _ in links],
                             lambda a, b: tuple(fit(row, 1.0) for row in matmul(a, b)))
    # Step 2: axes z_i (a column: no arithmetic), p*_i and the centres of mass in base
    # coordinates, and the b of step 3 (eq. (17) with qd: the printed qdd is a slip).
    z = [matvec(rot[i], members[i].axis) for i in range(n)] if chain else \
        [tuple(row[2] for row in r) for r in rot]

    def axes(i):
        com = tuple(arith.const(v) for v in members[i].com)
        spin = vscale(qd[i], z[i])                                    # z_{i-1} qd_i
        return (fit(matvec(rot[i + 1], links[i][1]), bounds and bounds.p[i]),
                fit(matvec(rot[i + 1], com), bounds and bounds.s[i]),
                fit(spin, bounds and bounds.velocity[i]))

    p, s, spin = zip(*local("axes", axes))
    w = scan("omega", [_ZERO] + [spin[i] if revolute[i] else _ZERO for i in range(n)], vadd)

    def turning(i):  # w_{i-1} x (z_{i-1} qd_i)
        return fit(cross(w[i], spin[i]), bounds and bounds.velocity[i] * (
            bounds.omega[i - 1] if i else 0.0))

    dw_b = local("b omega-dot", lambda i: fit(vadd(vscale(qdd[i], z[i]), turning(i)),
                                              bounds and bounds.wd_b[i])
                 if revolute[i] else _ZERO)
    dw = scan("omega-dot", [_ZERO] + dw_b, vadd)

    def motion(i, r, size):  # dw_i x r + w_i x (w_i x r), |r| <= size
        inner = fit(cross(w[i + 1], r), bounds and bounds.omega[i] * size)
        return vadd(fit(cross(dw[i + 1], r), bounds and bounds.omega_dot[i] * size),
                    fit(cross(w[i + 1], inner), bounds and bounds.omega[i] ** 2 * size))

    def ddp_b(i):
        b = motion(i, p[i], bounds and bounds.p[i])
        if not revolute[i]:
            b = vadd(b, vadd(vscale(qdd[i], z[i]), vscale(arith.const(2.0), turning(i))))
        return fit(b, bounds and bounds.acc_b[i])

    # p-ddot_0 = -gravity: the base accelerates upwards (Luh, Walker & Paul's device).
    base = tuple(arith.const(-g) for g in (distal_gravity(robot) if chain else robot.gravity))
    ddp = scan("p-ddot", [base] + local("b p-ddot", ddp_b), vadd)

    def force_moment(i):
        joint = members[i]
        if chain:
            inertia = tuple(tuple(arith.const(v) for v in row) for row in joint.inertia)
        else:
            ixx, iyy, izz, ixy, iyz, ixz = (arith.const(v) for v in joint.inertia)
            inertia = ((ixx, ixy, ixz), (ixy, iyy, iyz), (ixz, iyz, izz))
        acc = fit(vadd(motion(i, s[i], bounds and bounds.s[i]), ddp[i + 1]),
                  bounds and bounds.r_ddot[i])
        # Steps 7-8: F = m r-ddot; N by turning omega into the link frame, not J out of it.
        w_local = fit(matTvec(rot[i + 1], w[i + 1]), bounds and bounds.omega[i])
        dw_local = fit(matTvec(rot[i + 1], dw[i + 1]), bounds and bounds.omega_dot[i])
        spun = fit(matvec(inertia, w_local), bounds and bounds.inertia[i] * bounds.omega[i])
        moment = fit(vadd(fit(matvec(inertia, dw_local),
                              bounds and bounds.inertia[i] * bounds.omega_dot[i]),
                          fit(cross(w_local, spun),
                              bounds and bounds.inertia[i] * bounds.omega[i] ** 2)),
                     bounds and bounds.moment[i])
        return (fit(vscale(arith.const(joint.mass), acc), bounds and bounds.force[i]),
                fit(matvec(rot[i + 1], moment), bounds and bounds.moment[i]))

    force, moment = zip(*local("F, N", force_moment))
    # Steps 9-11: suffix scans from the hand (f_{N+1}, n_{N+1}: what the tool exerts on the
    # environment, so the negated wrench, turned into base coordinates).
    f_hand = n_hand = _ZERO
    if hand is not None:
        with arith.cell("hand", None, n - 1):
            f_hand = fit(vscale(-1, matvec(rot[n], hand[0])), bounds and bounds.f[n])
            n_hand = fit(vscale(-1, matvec(rot[n], hand[1])), bounds and bounds.n[n])
    f = scan("f", [f_hand] + list(force[::-1]), vadd)[::-1]       # f[i] = f_{i+1}

    def n_b(i):
        lever = fit(vadd(p[i], s[i]), bounds and bounds.p[i] + bounds.s[i])
        return fit(vadd(vadd(moment[i], fit(cross(lever, force[i]),
                                            bounds and lever_bound(i))),
                        fit(cross(p[i], f[i + 1]), bounds and bounds.p[i] * bounds.f[i + 1])),
                   bounds and bounds.n_b[i])

    def lever_bound(i):
        return (bounds.p[i] + bounds.s[i]) * bounds.force[i]

    moments = scan("n", [n_hand] + local("b n", n_b)[::-1], vadd)[::-1]
    return local("tau", lambda i: dot(moments[i] if revolute[i] else f[i], z[i]))


def scan_torques(robot, q, qd, qdd, wrench=None, *, scan="serial", processors=None):
    """Torques ``(B, N)`` by Lee & Chang's base-coordinate steps
    (:func:`base_coordinate_steps` over numpy arrays), each recurrence evaluated by ``scan``
    (``"serial"``, ``"doubling"`` or ``"pfp"``) on ``processors`` (default: ``N``)."""
    q, qd, qdd, wrench = _states(robot, q, qd, qdd, wrench)
    check_choice("scan", scan, SCHEDULES)
    processors = robot.dof if processors is None else processors
    check_positive_integer("processors", processors)
    schedule = SCHEDULES[scan]

    def run(phase, elements, combine):
        return run_schedule(schedule(len(elements), processors), elements, combine)

    # The float reference takes every robot as a general chain (a DH robot's exactly, through
    # as_chain): its twists are never snapped to multiples of 90 degrees, as the hardware's are.
    hand = (tuple(wrench[:, :3].T), tuple(wrench[:, 3:].T))
    tau = base_coordinate_steps(as_chain(robot), list(q.T), list(qd.T), list(qdd.T), hand,
                                FloatArith(), run)
    out = np.zeros(q.shape)
    for i, value in enumerate(tau):
        out[:, i] = value
    return out + joint_terms(robot, qd, qdd)


def lagrange_torques(robot, q, qd, qdd, wrench=None):
    """Torques ``(B, N)`` as ``H qdd + C qd + g - J^T wrench`` plus the joint terms
    (:func:`joint_terms`; the armature is in ``H``), derivatives of ``H`` by complex step (step
    1e-30: exact to float64 rounding)."""
    q, qd, qdd, wrench = _states(robot, q, qd, qdd, wrench)
    chain = as_chain(robot)
    n = q.shape[1]
    step = 1e-30

    links = link_jacobians(chain, q)
    h = jacobian_inertia(chain, q)
    dh = []                                          # dH/dq_k (the armature is constant)
    for k in range(n):
        shifted = q.astype(complex)
        shifted[:, k] += 1j * step
        dh.append(jacobian_inertia(chain, shifted).imag / step)
    coriolis = sum(_mv(dh[k], qd) * qd[:, k, None] for k in range(n))
    coriolis = coriolis - 0.5 * np.stack([np.einsum("bi,bij,bj->b", qd, dh[i], qd)
                                          for i in range(n)], -1)
    gravity = np.asarray(chain.gravity, dtype=np.float64)
    potential = -sum(j.mass * np.einsum("i,bij->bj", gravity, jv)
                     for (jv, _, _, _), j in zip(links, chain.joints))
    tool, tip = tool_jacobian(chain, q)
    rot = tip[:, :3, :3]
    external = np.concatenate([_mv(rot, wrench[:, :3]), _mv(rot, wrench[:, 3:])], -1)
    rigid = _mv(h, qdd) + coriolis + potential - np.einsum("bki,bk->bi", tool, external)
    return rigid + np.array([j.damping for j in chain.joints]) * qd + \
        np.array([j.friction for j in chain.joints]) * np.sign(qd)


def inverse_dynamics(robot, q, qd, qdd, formulation="link", wrench=None):
    """Torques ``(B, N)`` by ``formulation``: ``"link"``, ``"scan"`` (serial evaluation) or
    ``"lagrange"``."""
    functions = {"link": link_frame_torques, "scan": scan_torques, "lagrange": lagrange_torques}
    check_choice("formulation", formulation, functions)
    return functions[formulation](robot, q, qd, qdd, wrench)
