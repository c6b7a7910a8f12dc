"""Inverse dynamics of serial robots in float64: the joint torques (or forces) ``tau`` that give
the accelerations ``qdd`` at the state ``(q, qd)``, three independent ways, vectorized over
states.

- :func:`link_frame_torques`: the Newton-Euler recursion of Luh, Walker & Paul in link
  coordinates (velocities and accelerations outward, forces and moments inward).
- :func:`scan_torques`: Lee & Chang's base-coordinate form (their eqs. (15)-(31), with the
  corrections of the specification notes: eq. (17) uses ``qd``, eq. (29)'s "a_i" is the centre
  of mass): eleven steps of which one is a 3x3 matrix-product scan and five are vector scans,
  each evaluated serially, by recursive doubling or by PFP on ``p`` processors
  (:mod:`robohw.reference.scans`); every evaluation gives the same torques.
- :func:`lagrange_torques`: ``H(q) qdd + C(q, qd) qd + g(q)`` from the inertia matrix of
  :func:`robohw.reference.inertia.link_jacobians`, its derivatives by complex step
  (``c_i = sum_jk (dH_ij/dq_k - dH_jk/dq_i / 2) qd_j qd_k``) and ``g`` from the potential energy.

Conventions: standard DH (``A_i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)``); a revolute joint's
``theta = q + offset``, a prismatic joint's ``d = q + offset`` (its ``theta`` fixed). The robot's
``gravity`` is the gravitational acceleration in the base frame; the base is given the
acceleration ``-gravity`` (Luh, Walker & Paul's device), so ``tau`` is what the joints must
exert, gravity included. An optional ``wrench`` ``(B, 6)`` or ``(6,)``, ``(fx, fy, fz, mx, my,
mz)``, is exerted by the environment on the tool, in the last link's frame, about its origin.
"""

import numpy as np

from robohw.reference.inertia import link_jacobians
from robohw.reference.scans import doubling_scan, pfp_scan, serial_scan

__all__ = ["link_frame_torques", "scan_torques", "lagrange_torques", "inverse_dynamics",
           "FORMULATIONS", "SCANS"]

FORMULATIONS = ("link", "scan", "lagrange")
SCANS = ("serial", "doubling", "pfp")


def _states(robot, q, qd, qdd, wrench):
    if not robot.has_dynamics:
        raise ValueError(f"{robot.source or robot.name}: the dynamics needs mass, com and "
                         f"inertia for every joint")
    arrays = [np.atleast_2d(np.asarray(v, dtype=np.float64)) for v in (q, qd, qdd)]
    for name, value in zip(("q", "qd", "qdd"), arrays):
        if value.shape[-1] != robot.dof:
            raise ValueError(f"{name} must have {robot.dof} columns for {robot.name}, not "
                             f"{value.shape[-1]}")
    q, qd, qdd = np.broadcast_arrays(*arrays)
    wrench = np.zeros(6) if wrench is None else np.asarray(wrench, dtype=np.float64)
    if wrench.shape[-1] != 6:
        raise ValueError(f"wrench must have 6 components (fx, fy, fz, mx, my, mz), not "
                         f"{wrench.shape[-1]}")
    return q, qd, qdd, np.broadcast_to(wrench, (len(q), 6))


def _links(robot, q):
    """Per joint: ``(R, p, revolute)``: ``^{i-1}R_i`` ``(B, 3, 3)``, ``^i p*_i`` ``(B, 3)`` (the
    origin of frame ``i`` from that of ``i - 1``, in frame ``i``)."""
    out = []
    for k, joint in enumerate(robot.joints):
        value = q[:, k] + joint.offset
        revolute = joint.type == "revolute"
        theta = value if revolute else np.full_like(value, joint.theta)
        d = np.full_like(value, joint.d) if revolute else value
        ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(joint.alpha), np.sin(joint.alpha)
        rot = np.zeros((len(q), 3, 3))
        rot[:, 0] = np.stack([ct, -st * ca, st * sa], -1)
        rot[:, 1] = np.stack([st, ct * ca, -ct * sa], -1)
        rot[:, 2] = np.stack([np.zeros_like(ct), np.full_like(ct, sa), np.full_like(ct, ca)], -1)
        p = np.stack([np.full_like(d, joint.a), d * sa, d * ca], -1)
        out.append((rot, p, revolute))
    return out


def _body(joint):
    ixx, iyy, izz, ixy, iyz, ixz = joint.inertia
    return joint.mass, np.array(joint.com), np.array([[ixx, ixy, ixz], [ixy, iyy, iyz],
                                                       [ixz, iyz, izz]])


def _mv(m, v):
    return np.einsum("bij,bj->bi", m, v)


def _mtv(m, v):
    return np.einsum("bji,bj->bi", m, v)


def link_frame_torques(robot, q, qd, qdd, wrench=None):
    """Torques ``(B, N)`` by the link-frame Newton-Euler recursion (Luh, Walker & Paul)."""
    q, qd, qdd, wrench = _states(robot, q, qd, qdd, wrench)
    batch, z0 = len(q), np.array([0.0, 0.0, 1.0])
    links = _links(robot, q)
    w = dw = np.zeros((batch, 3))
    a = np.broadcast_to(-np.asarray(robot.gravity, dtype=np.float64), (batch, 3))
    forces, moments, axes = [], [], []
    for k, (rot, p, revolute) in enumerate(links):
        axis = _mtv(rot, np.broadcast_to(z0, (batch, 3)))       # z_{i-1} in frame i
        w_in, dw_in = _mtv(rot, w), _mtv(rot, dw)
        if revolute:
            w = w_in + axis * qd[:, k, None]
            dw = dw_in + axis * qdd[:, k, None] + np.cross(w_in, axis * qd[:, k, None])
        else:
            w, dw = w_in, dw_in
        a = _mtv(rot, a) + np.cross(dw, p) + np.cross(w, np.cross(w, p))
        if not revolute:
            a = a + axis * qdd[:, k, None] + 2 * np.cross(w, axis * qd[:, k, None])
        mass, com, inertia = _body(robot.joints[k])
        ac = a + np.cross(dw, com) + np.cross(w, np.cross(w, com))
        jw = np.einsum("ij,bj->bi", inertia, w)
        forces.append(mass * ac)
        moments.append(np.einsum("ij,bj->bi", inertia, dw) + np.cross(w, jw))
        axes.append(axis)
    # Backward: f, n exerted on link i by link i-1, n about the origin of frame i-1.
    f, n = -wrench[:, :3], -wrench[:, 3:]     # what the hand exerts on the environment
    tau = np.zeros((batch, robot.dof))
    for k in range(robot.dof - 1, -1, -1):
        rot_next = links[k + 1][0] if k + 1 < robot.dof else np.broadcast_to(np.eye(3),
                                                                              (batch, 3, 3))
        _, p, revolute = links[k]
        _, com, _ = _body(robot.joints[k])
        f_next, n_next = _mv(rot_next, f), _mv(rot_next, n)
        f = f_next + forces[k]
        n = n_next + np.cross(p, f_next) + np.cross(p + com, forces[k]) + moments[k]
        tau[:, k] = np.einsum("bi,bi->b", n if revolute else f, axes[k])
    return tau


def _scan(kind, processors):
    if kind == "serial":
        return lambda elements, combine, identity: serial_scan(elements, combine)
    if kind == "doubling":
        return lambda elements, combine, identity: doubling_scan(elements, combine)
    if kind == "pfp":
        return lambda elements, combine, identity: pfp_scan(elements, combine, processors,
                                                            identity)
    raise ValueError(f"scan must be one of {', '.join(SCANS)}, not {kind!r}")


def _add(a, b):
    return a + b


def scan_torques(robot, q, qd, qdd, wrench=None, *, scan="serial", processors=None):
    """Torques ``(B, N)`` by Lee & Chang's base-coordinate steps, each recurrence evaluated by
    ``scan`` (``"serial"``, ``"doubling"`` or ``"pfp"`` on ``processors``)."""
    q, qd, qdd, wrench = _states(robot, q, qd, qdd, wrench)
    if scan == "pfp" and processors is None:
        processors = robot.dof
    run = _scan(scan, processors)
    batch, n = len(q), robot.dof
    links = _links(robot, q)
    eye, zero = np.broadcast_to(np.eye(3), (batch, 3, 3)), np.zeros((batch, 3))
    # Step 1: 0R_i = 0R_{i-1} (i-1)R_i, a prefix scan of matrix products (0R_0 = I).
    rot = run([eye] + [link[0] for link in links], lambda x, y: x @ y, eye)
    # Step 2: axes z_{i-1}, p*_i and the centres of mass in base coordinates.
    z = [r[:, :, 2] for r in rot]                            # z[i] = z_i, i = 0..n
    p = [_mv(rot[i + 1], links[i][1]) for i in range(n)]       # p[i] = p*_{i+1}
    s = [_mv(rot[i + 1], np.broadcast_to(robot.joints[i].com, (batch, 3))) for i in range(n)]
    lam = [0.0 if link[2] else 1.0 for link in links]
    # Steps 3-5: omega, omega-dot, p-ddot by vector scans (omega_0 = 0, p-ddot_0 = -g).
    spin = [z[i] * qd[:, i, None] for i in range(n)]          # z_{i-1} qd_i
    w = run([zero] + [spin[i] * (1 - lam[i]) for i in range(n)], _add, zero)
    dw = run([zero] + [(z[i] * qdd[:, i, None] + np.cross(w[i], spin[i])) * (1 - lam[i])
                       for i in range(n)], _add, zero)
    gravity = np.broadcast_to(-np.asarray(robot.gravity, dtype=np.float64), (batch, 3))
    ddp = run([gravity] + [np.cross(dw[i + 1], p[i]) + np.cross(w[i + 1], np.cross(w[i + 1], p[i]))
                           + (z[i] * qdd[:, i, None] + 2 * np.cross(w[i], spin[i])) * lam[i]
                           for i in range(n)], _add, zero)
    # Steps 6-8: accelerations of the centres of mass, forces, moments (rotating omega, not J).
    force, moment = [], []
    for i in range(n):
        mass, _, inertia = _body(robot.joints[i])
        force.append(mass * (np.cross(dw[i + 1], s[i]) +
                             np.cross(w[i + 1], np.cross(w[i + 1], s[i])) + ddp[i + 1]))
        w_local, dw_local = _mtv(rot[i + 1], w[i + 1]), _mtv(rot[i + 1], dw[i + 1])
        jw = np.einsum("ij,bj->bi", inertia, w_local)
        moment.append(_mv(rot[i + 1], np.einsum("ij,bj->bi", inertia, dw_local) +
                          np.cross(w_local, jw)))
    # Steps 9-11: suffix scans of f and n from the hand (f_{n+1}, n_{n+1}: on the environment).
    f_hand, n_hand = -_mv(rot[n], wrench[:, :3]), -_mv(rot[n], wrench[:, 3:])
    f = run([f_hand] + force[::-1], _add, zero)[::-1]          # f[i] = f_{i+1}, f[n] = hand
    b = [moment[i] + np.cross(p[i] + s[i], force[i]) + np.cross(p[i], f[i + 1])
         for i in range(n)]
    moments = run([n_hand] + b[::-1], _add, zero)[::-1]
    tau = np.zeros((batch, n))
    for i in range(n):
        tau[:, i] = np.einsum("bi,bi->b", f[i] if lam[i] else moments[i], z[i])
    return tau


def lagrange_torques(robot, q, qd, qdd, wrench=None):
    """Torques ``(B, N)`` as ``H qdd + C qd + g - J^T wrench``, derivatives of ``H`` by complex
    step (step 1e-30: exact to float64 rounding)."""
    q, qd, qdd, wrench = _states(robot, q, qd, qdd, wrench)
    batch, n = q.shape
    step = 1e-30

    def inertia(links):
        return sum(j.mass * jv.transpose(0, 2, 1) @ jv + jw.transpose(0, 2, 1) @ world @ jw
                   for (jv, jw, world, _), j in zip(links, robot.joints))

    links = link_jacobians(robot, q)
    h = inertia(links)
    dh = []                                          # dH/dq_k
    for k in range(n):
        shifted = q.astype(complex)
        shifted[:, k] += 1j * step
        dh.append(inertia(link_jacobians(robot, shifted)).imag / step)
    coriolis = sum(_mv(dh[k], qd) * qd[:, k, None] for k in range(n))
    coriolis = coriolis - 0.5 * np.stack([np.einsum("bi,bij,bj->b", qd, dh[i], qd)
                                          for i in range(n)], -1)
    gravity = np.asarray(robot.gravity, dtype=np.float64)
    potential = -sum(j.mass * np.einsum("i,bij->bj", gravity, jv)
                     for (jv, _, _, _), j in zip(links, robot.joints))
    tool = _tool_jacobian(robot, links)
    rot = links[-1][3][:, :3, :3]
    external = np.concatenate([_mv(rot, wrench[:, :3]), _mv(rot, wrench[:, 3:])], -1)
    return _mv(h, qdd) + coriolis + potential - np.einsum("bki,bk->bi", tool, external)


def _tool_jacobian(robot, links):
    """``(B, 6, N)``: linear velocity of the last frame's origin and angular velocity."""
    end = links[-1][3][:, :3, 3]
    batch, n = end.shape[0], robot.dof
    jac = np.zeros((batch, 6, n))
    pose = np.broadcast_to(np.eye(4), (batch, 4, 4))
    for k, joint in enumerate(robot.joints):
        axis, origin = pose[:, :3, 2], pose[:, :3, 3]
        if joint.type == "revolute":
            jac[:, :3, k] = np.cross(axis, end - origin)
            jac[:, 3:, k] = axis
        else:
            jac[:, :3, k] = axis
        pose = links[k][3].real
    return jac


def inverse_dynamics(robot, q, qd, qdd, formulation="link", wrench=None):
    """Torques ``(B, N)`` by ``formulation``: ``"link"``, ``"scan"`` (serial evaluation) or
    ``"lagrange"``."""
    functions = {"link": link_frame_torques, "scan": scan_torques, "lagrange": lagrange_torques}
    if formulation not in functions:
        raise ValueError(f"formulation must be one of {', '.join(FORMULATIONS)}, not "
                         f"{formulation!r}")
    return functions[formulation](robot, q, qd, qdd, wrench)
