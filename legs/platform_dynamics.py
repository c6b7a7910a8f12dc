"""Inverse dynamics of parallel manipulators: Gosselin's leg-decoupled Newton-Euler (1996,
eqs. 20-38), and independently the principle of virtual power.

Gosselin's decomposition, written once over scalars (:mod:`robohw.robots.algebra`; planar
platforms by structural zeros, as in :mod:`robohw.legs.platform_kinematics`):

1. per leg (:func:`leg_dynamics`): the leg's motion (spin-free: ``omega_L = s x s_dot /
   rho^2``), Euler's equation of the whole leg about its base joint (eq. 36, which the paper
   notes) solved in closed form for the force across the leg on the platform,
   ``g = (s x Z) / rho^2`` with ``-s x g = Z`` (eq. 37 with gravity);
2. one platform solve (:func:`platform_system`): the forces ``f_i`` along the legs from the
   platform's Newton and Euler equations, ``M f = w``, 6 x 6 (planar 3 x 3);
3. per leg: the actuator force ``h_i = f_i + m_u (a_u - g) . e_i`` (eq. 38 with gravity).

Corrections to the printed equations (``docs/legs.md``): the sign of eq. (9), the
sign of the inertia term of eq. (30) and of ``f_i`` in eq. (32) (so ``h = f + m_u a_u||`` in
both cases), and gravity, absent from every equation of the paper (``a`` becomes ``a - g``).
Leg model (ours; the paper leaves it to "the kinematic analysis"): the lower part's centre of
mass ``com_distance`` from the base joint, the upper part's from the platform joint, both on
the leg's axis, inertia across the axis only, no spin about it.

Forces are positive when the actuator pushes the platform away (extends the leg).
"""

import numpy as np

from robohw.legs.platform_kinematics import leg_geometry, pose_arrays
from robohw.legs.singularity import condition_numbers
from robohw.robots.algebra import FloatArith, cross, dot, matmul, matvec, total, vadd, vscale, vsub

__all__ = ["leg_motion", "leg_equilibrium", "leg_dynamics", "actuator_force", "platform_system",
           "gosselin_dynamics",
           "virtual_power_dynamics", "motion_arrays", "SYSTEM_ROWS"]

# The rows of the platform's Newton-Euler equations (forces x, y, z, moments x, y, z) that a
# planar platform's forces enter: x, y and the moment about z.
SYSTEM_ROWS = {"spatial": (0, 1, 2, 3, 4, 5), "planar": (0, 1, 5)}


def _vector(arith, values, spatial):
    return tuple(arith.const(v) for v in values) + (() if spatial else (0,))


class LegMotion:
    """One leg's motion: its geometry, ``1 / rho``, its unit vector ``e``, its angular
    acceleration (no spin about its axis) and its parts' centres of mass' accelerations."""
    __slots__ = ("geometry", "inv", "e", "w_leg_dot", "a_lower", "a_upper")

    def __init__(self, geometry, inv, e, w_leg_dot, a_lower, a_upper):
        self.geometry, self.inv, self.e = geometry, inv, e
        self.w_leg_dot, self.a_lower, self.a_upper = w_leg_dot, a_lower, a_upper


class LegDynamics:
    """Phase 1 of one leg: its unit vector ``e``, the force across it on the platform ``g``
    and the upper part's ``m_u (a_u - g)`` (phase 3's term), with its geometry."""
    __slots__ = ("geometry", "e", "g", "upper_force")

    def __init__(self, geometry, e, g, upper_force):
        self.geometry, self.e, self.g, self.upper_force = geometry, e, g, upper_force


def leg_motion(platform, leg, r, Q, motion, arith):
    """The leg's kinematics from the platform's (the paper assumes them known):
    ``motion`` is ``(omega, r_dot, omega_dot, r_ddot)``, base frame, scalar 3-tuples."""
    omega, r_dot, omega_dot, r_ddot = motion
    geometry = leg_geometry(platform, leg, r, Q, arith)
    s, qb = geometry.s, geometry.qb
    inv = arith.reciprocal(geometry.rho)
    inv2 = inv * inv
    e = vscale(inv, s)
    w_qb = cross(omega, qb)
    s_dot = vadd(r_dot, w_qb)
    s_ddot = vadd(vadd(r_ddot, cross(omega_dot, qb)), cross(omega, w_qb))
    rho_dot = dot(e, s_dot)
    # The leg's angular velocity and acceleration (no spin about its axis), e's derivatives.
    w_leg = vscale(inv2, cross(s, s_dot))
    w_leg_dot = vsub(vscale(inv2, cross(s, s_ddot)), vscale(2 * (rho_dot * inv), w_leg))
    e_dot = cross(w_leg, e)
    e_ddot = vadd(cross(w_leg_dot, e), cross(w_leg, e_dot))
    # The parts' centres of mass: l_l e and (rho - l_u) e from the base joint.
    a_lower = vscale(arith.const(leg.lower.com_distance), e_ddot)
    a_upper = vsub(s_ddot, vscale(arith.const(leg.upper.com_distance), e_ddot))
    return LegMotion(geometry, inv, e, w_leg_dot, a_lower, a_upper)


def leg_equilibrium(platform, leg, moving, arith):
    """Phase 1's solve (eqs. 33-37, gravity included): Euler's equation of the whole leg
    about its base joint, ``-s x g = Z``, in closed form ``g = (s x Z) / rho^2``."""
    gravity = _vector(arith, platform.gravity, platform.spatial)
    lower, upper = leg.lower, leg.upper
    e, s = moving.e, moving.geometry.s
    lower_force = vscale(arith.const(lower.mass), vsub(moving.a_lower, gravity))
    upper_force = vscale(arith.const(upper.mass), vsub(moving.a_upper, gravity))
    arm = moving.geometry.rho - arith.const(upper.com_distance)
    z = vadd(cross(e, vadd(vscale(arith.const(lower.com_distance), lower_force),
                           vscale(arm, upper_force))),
             vscale(arith.const(lower.inertia + upper.inertia), moving.w_leg_dot))
    g = vscale(moving.inv * moving.inv, cross(s, z))
    return LegDynamics(moving.geometry, e, g, upper_force)


def leg_dynamics(platform, leg, r, Q, motion, arith):
    """Phase 1 of Gosselin's decomposition for one leg: :func:`leg_motion`, then
    :func:`leg_equilibrium`."""
    return leg_equilibrium(platform, leg, leg_motion(platform, leg, r, Q, motion, arith),
                           arith)


def actuator_force(leg, f):
    """Phase 3 (eq. 38 with gravity): the actuator's force ``h = f + m_u (a_u - g) . e`` from
    the force ``f`` along the leg on the platform."""
    return f + dot(leg.upper_force, leg.e)


def platform_system(platform, Q, motion, legs, arith):
    """Phase 2's system ``M f = w``: ``(M, w)``, M's column i ``[e_i; p_i x e_i]`` with ``p_i``
    the arm from the platform's centre of mass to leg i's joint, ``w`` the platform's
    ``m (a - g) - sum g_i`` and ``I omega_dot + omega x I omega - sum p_i x g_i`` (base
    frame), both restricted to :data:`SYSTEM_ROWS`."""
    spatial = platform.spatial
    omega, _, omega_dot, r_ddot = motion
    com = matvec(Q, _vector(arith, platform.com, spatial))
    if spatial:
        inertia = tuple(tuple(arith.const(v) for v in row) for row in platform.inertia)
        transposed = tuple(zip(*Q))
        inertia = matmul(matmul(Q, inertia), transposed)
    else:
        inertia = ((0, 0, 0), (0, 0, 0), (0, 0, arith.const(platform.inertia)))
    gravity = _vector(arith, platform.gravity, spatial)
    a_com = vadd(vadd(r_ddot, cross(omega_dot, com)), cross(omega, cross(omega, com)))
    force = vscale(arith.const(platform.mass), vsub(a_com, gravity))
    moment = vadd(matvec(inertia, omega_dot), cross(omega, matvec(inertia, omega)))
    arms = [vsub(leg.geometry.qb, com) for leg in legs]
    force = vsub(force, tuple(total(c) for c in zip(*(leg.g for leg in legs))))
    moment = vsub(moment, tuple(total(c) for c in zip(*(cross(p, leg.g)
                                                          for p, leg in zip(arms, legs)))))
    columns = [leg.e + cross(p, leg.e) for p, leg in zip(arms, legs)]
    rows = SYSTEM_ROWS[platform.kind]
    matrix = [[column[k] for column in columns] for k in rows]
    return matrix, [(force + moment)[k] for k in rows]


def motion_arrays(platform, velocities, accelerations):
    """``(omega, r_dot, omega_dot, r_ddot)`` scalar tuples from ``(N, 6)`` arrays ``omega,
    r_dot`` and their derivatives (planar ``(N, 3)``: ``phi_dot, x_dot, y_dot``), a planar
    platform's with literal zeros."""
    v, a = np.asarray(velocities, dtype=float), np.asarray(accelerations, dtype=float)
    if platform.spatial:
        return tuple(v[:, :3].T), tuple(v[:, 3:].T), tuple(a[:, :3].T), tuple(a[:, 3:].T)
    return ((0, 0, v[:, 0]), (v[:, 1], v[:, 2], 0), (0, 0, a[:, 0]), (a[:, 1], a[:, 2], 0))


def _stack(matrix, count):
    return np.stack([np.stack([np.broadcast_to(np.asarray(v, dtype=float), (count,))
                               for v in row], axis=-1) for row in matrix], axis=-2)


def gosselin_dynamics(platform, poses, velocities, accelerations):
    """Actuator forces ``(N, legs)`` (N, positive extending) by Gosselin's decomposition, and
    the condition number ``(N,)`` of each platform system (infinite where it is singular: its
    forces are then NaN)."""
    count = len(poses)
    arith = FloatArith()
    r, Q = pose_arrays(platform, poses)
    motion = motion_arrays(platform, velocities, accelerations)
    legs = [leg_dynamics(platform, leg, r, Q, motion, arith) for leg in platform.legs]
    matrix, rhs = platform_system(platform, Q, motion, legs, arith)
    matrix, rhs = _stack(matrix, count), _stack([rhs], count)[:, 0, :]
    condition = condition_numbers(matrix)         # inf where it is not finite
    solvable = np.isfinite(condition) & (condition < 1 / np.finfo(float).eps)
    f = np.full(rhs.shape, np.nan)
    if solvable.any():
        f[solvable] = np.linalg.solve(matrix[solvable], rhs[solvable][..., None])[..., 0]
    forces = np.column_stack([np.broadcast_to(actuator_force(leg, f[:, k]), (count,))
                              for k, leg in enumerate(legs)])
    return forces, np.where(solvable, condition, np.inf)


def virtual_power_dynamics(platform, poses, velocities, accelerations):
    """Actuator forces ``(N, legs)`` by the principle of virtual power, independently of
    :func:`gosselin_dynamics` (plain numpy, no per-leg decomposition): for each of the
    platform's unit virtual twists, the actuators' power ``sum_i h_i rho_dot_i`` equals the
    bodies' ``sum m (a - g) . v + (I omega_dot + omega x I omega) . omega`` (legs spin-free,
    inertia across their axis). One linear solve per state."""
    poses = np.asarray(poses, dtype=float)
    count, spatial = len(poses), platform.spatial
    full_v = _full_twists(platform, velocities)
    full_a = _full_twists(platform, accelerations)
    w, v, wd, vd = full_v[:, :3], full_v[:, 3:], full_a[:, :3], full_a[:, 3:]
    r, Q = pose_arrays(platform, poses)
    Q = _stack(Q, count)
    r = np.column_stack([np.broadcast_to(np.asarray(c, dtype=float), (count,)) for c in r])
    gravity = np.array(tuple(platform.gravity) + (() if spatial else (0.0,)))
    dof = 6 if spatial else 3
    # Unit virtual twists (omega*, v*) of the platform's degrees of freedom.
    virtual = np.eye(6)[[0, 1, 2, 3, 4, 5] if spatial else [2, 3, 4]]
    power = np.zeros((count, dof))            # the bodies' virtual power per twist
    rates = np.zeros((count, dof, len(platform.legs)))  # rho_dot_i per twist
    com = Q @ np.array(tuple(platform.com) + (() if spatial else (0.0,)))
    inertia = (np.array(platform.inertia) if spatial else np.diag([0.0, 0.0, platform.inertia]))
    inertia = Q @ inertia @ np.swapaxes(Q, 1, 2)
    a_com = vd + np.cross(wd, com) + np.cross(w, np.cross(w, com))
    euler = np.einsum("nij,nj->ni", inertia, wd) + np.cross(w, np.einsum("nij,nj->ni", inertia, w))
    for k, (ws, vs) in enumerate(zip(virtual[:, :3], virtual[:, 3:])):
        v_com = vs + np.cross(ws, com)
        power[:, k] += np.einsum("ni,ni->n", platform.mass * (a_com - gravity),
                                 np.broadcast_to(v_com, (count, 3)))
        power[:, k] += euler @ ws
    for i, leg in enumerate(platform.legs):
        a = np.array(tuple(leg.base) + (() if spatial else (0.0,)))
        qb = Q @ np.array(tuple(leg.platform) + (() if spatial else (0.0,)))
        s = r + qb - a
        rho = np.linalg.norm(s, axis=1)
        e = s / rho[:, None]
        s_dot = v + np.cross(w, qb)
        s_ddot = vd + np.cross(wd, qb) + np.cross(w, np.cross(w, qb))
        w_leg = np.cross(s, s_dot) / rho[:, None] ** 2
        # Differentiated directly: d/dt (s x s_dot / rho^2).
        rho_dot = np.einsum("ni,ni->n", s, s_dot) / rho
        w_leg_dot = np.cross(s, s_ddot) / rho[:, None] ** 2 - \
            2 * (rho_dot / rho)[:, None] * w_leg
        p_lower = leg.lower.com_distance * e
        # Accelerations of the parts' centres of mass: second derivatives of their positions,
        # p = l e and p = s - l e with e_dot = w x e.
        e_dot = np.cross(w_leg, e)
        e_ddot = np.cross(w_leg_dot, e) + np.cross(w_leg, e_dot)
        a_lower = leg.lower.com_distance * e_ddot
        a_upper = s_ddot - leg.upper.com_distance * e_ddot
        transverse = leg.lower.inertia + leg.upper.inertia
        for k, (ws, vs) in enumerate(zip(virtual[:, :3], virtual[:, 3:])):
            sv = vs + np.cross(ws, qb)            # the joint's virtual velocity
            wv = np.cross(s, sv) / rho[:, None] ** 2
            rates[:, k, i] = np.einsum("ni,ni->n", e, sv)
            v_lower = np.cross(wv, p_lower)
            v_upper = sv - leg.upper.com_distance * np.cross(wv, e)
            power[:, k] += np.einsum("ni,ni->n", leg.lower.mass * (a_lower - gravity), v_lower)
            power[:, k] += np.einsum("ni,ni->n", leg.upper.mass * (a_upper - gravity), v_upper)
            power[:, k] += transverse * np.einsum("ni,ni->n", w_leg_dot, wv)
    return np.linalg.solve(rates, power[..., None])[..., 0]


def _full_twists(platform, values):
    """``(N, 6)`` twists (omega, r_dot) from a platform's ``(N, 6)`` or planar ``(N, 3)``."""
    values = np.asarray(values, dtype=float)
    if platform.spatial:
        return values
    full = np.zeros((len(values), 6))
    full[:, [2, 3, 4]] = values
    return full
