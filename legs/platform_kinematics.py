"""Kinematics of parallel manipulators, one computation per leg (Gosselin 1996, eqs. 1-19).

Written once over scalars (:mod:`robohw.robots.algebra`): numpy arrays with one entry per
pose (the float64 reference) or counting nodes. A planar platform is the spatial one with
structural zeros: its points, its rotation ``Rz(phi)`` and its twist have literal ``0``
components (free in every scalar world), so the same code gives the planar equations
(24)-(29) and their operation counts.

Conventions: ``r`` is the platform origin in the base frame, ``Q`` the rotation from the
platform frame to the base frame, ``R = Rz(yaw) Ry(pitch) Rx(roll)`` (planar: ``Rz(phi)``); the
twist is ``(omega, r_dot)`` in the base frame, angular first (G:L76). Leg i runs from its base
joint ``a_i`` to its platform joint ``b_i = r + Q b_i'``; ``s_i = b_i - a_i``,
``rho_i = |s_i|``. The Jacobian rows ``k_i = [(Q b_i') x s_i, s_i]`` satisfy
``rho_i rho_dot_i = k_i . t``: ``J rho_dot = K t``, the opposite sign of the printed eq. (9).
"""

import numpy as np

from robohw.legs.singularity import condition_numbers
from robohw.robots.algebra import FloatArith, cross, dot, matvec, vadd, vsub

__all__ = ["rotation", "angles", "pose_arrays", "LegGeometry", "leg_geometry", "jacobian_row",
           "jacobian_derivative_row", "inverse_kinematics", "jacobian", "leg_rates",
           "forward_kinematics", "finest_tolerance", "check_tolerance", "displaced",
           "FK_TOLERANCE", "FK_ITERATIONS", "RESOLVABLE_ULPS"]

# Forward kinematics: converged when every leg length is within this of the measured one (m),
# given up after this many Newton steps.
FK_TOLERANCE = 1e-12
FK_ITERATIONS = 50
# A leg's length computed in float64 is within a few units in the last place (4 at most over
# 5,000 poses of each shipped platform, measured as the finest tolerance every one met); twice
# that is the finest tolerance accepted.
RESOLVABLE_ULPS = 8


def rotation(roll, pitch, yaw):
    """``Rz(yaw) Ry(pitch) Rx(roll)`` as a 3 x 3 tuple of arrays."""
    cr, sr, cp, sp, cy, sy = (f(np.asarray(a, dtype=float)) for a, f in
                              ((roll, np.cos), (roll, np.sin), (pitch, np.cos),
                               (pitch, np.sin), (yaw, np.cos), (yaw, np.sin)))
    return ((cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr),
            (sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr),
            (-sp, cp * sr, cp * cr))


def angles(Q):
    """``(roll, pitch, yaw)`` of a rotation ``Rz(yaw) Ry(pitch) Rx(roll)``, pitch in
    [-pi/2, pi/2], roll and yaw in (-pi, pi]. ``Q``: arrays of shape (..., 3, 3)."""
    Q = np.asarray(Q, dtype=float)
    pitch = np.arcsin(np.clip(-Q[..., 2, 0], -1.0, 1.0))
    roll = np.arctan2(Q[..., 2, 1], Q[..., 2, 2])
    yaw = np.arctan2(Q[..., 1, 0], Q[..., 0, 0])
    # atan2 gives [-pi, pi]; the CSV convention is (-pi, pi].
    return tuple(np.where(a <= -np.pi, np.pi, a) for a in (roll, pitch, yaw))


def pose_arrays(platform, poses):
    """``(r, Q)`` of poses (an ``(N, 6)`` array ``x, y, z, roll, pitch, yaw``, or ``(N, 3)``
    ``x, y, phi`` for a planar platform) as scalar tuples, planar with literal zeros."""
    poses = np.asarray(poses, dtype=float)
    if platform.spatial:
        return tuple(poses[:, :3].T), rotation(*poses[:, 3:].T)
    c, s = np.cos(poses[:, 2]), np.sin(poses[:, 2])
    return (poses[:, 0], poses[:, 1], 0), ((c, -s, 0), (s, c, 0), (0, 0, 1))


def _point(arith, values, spatial):
    """A constant point: every coordinate a link constant, a planar z a structural zero."""
    return tuple(arith.const(v) for v in values) + (() if spatial else (0,))


class LegGeometry:
    """One leg at one pose: ``qb = Q b'`` (the platform joint relative to the platform
    origin, base frame), ``s = b - a`` and ``rho = |s|``."""
    __slots__ = ("qb", "s", "rho")

    def __init__(self, qb, s, rho):
        self.qb, self.s, self.rho = qb, s, rho


def leg_geometry(platform, leg, r, Q, arith):
    """Eqs. (1)-(8), (24)-(26): 12 mult, 14 add, 1 sqrt per spatial leg (planar: 6, 7, 1)."""
    spatial = platform.spatial
    qb = matvec(Q, _point(arith, leg.platform, spatial))
    s = vsub(vadd(r, qb), _point(arith, leg.base, spatial))
    return LegGeometry(qb, s, arith.sqrt(dot(s, s)))


def jacobian_row(geometry):
    """``k_i = [(Q b') x s, s]`` (eq. 13; planar eq. 28: ``[U, V, W]`` in the components
    ``x, y`` of ``s`` and ``z`` of the cross product): ``rho rho_dot = k . t``."""
    return cross(geometry.qb, geometry.s) + geometry.s


def jacobian_derivative_row(geometry, omega, r_dot):
    """``k_dot_i`` (eq. 19): ``[(omega x Q b') x s + Q b' x s_dot, s_dot]`` with
    ``s_dot = r_dot + omega x Q b'``; returns ``(k_dot, s_dot)``."""
    w_qb = cross(omega, geometry.qb)
    s_dot = vadd(r_dot, w_qb)
    return vadd(cross(w_qb, geometry.s), cross(geometry.qb, s_dot)) + s_dot, s_dot


def inverse_kinematics(platform, poses):
    """Leg lengths ``(N, legs)`` of poses (see :func:`pose_arrays`)."""
    r, Q = pose_arrays(platform, poses)
    arith = FloatArith()
    return np.stack([np.broadcast_to(leg_geometry(platform, leg, r, Q, arith).rho,
                                     (len(poses),)) for leg in platform.legs], axis=1)


def _as_array(values, count):
    return np.stack([np.broadcast_to(np.asarray(v, dtype=float), (count,)) for v in values],
                    axis=-1)


def _twist_components(platform):
    """The components of a twist (omega, r_dot) that a platform's motion has: all six, or
    ``phi_dot, x_dot, y_dot`` (planar)."""
    return [0, 1, 2, 3, 4, 5] if platform.spatial else [2, 3, 4]


def jacobian(platform, poses):
    """``(lengths, rows)``: leg lengths ``(N, legs)`` and the rows of ``K / rho``, ``(N, legs,
    dof)``, so that ``rho_dot = (K / rho) t`` (planar ``t = (phi_dot, x_dot, y_dot)``)."""
    r, Q = pose_arrays(platform, poses)
    return _lengths_and_rows(platform, r, Q, len(poses))


def _lengths_and_rows(platform, r, Q, count):
    arith = FloatArith()
    lengths, rows = [], []
    for leg in platform.legs:
        geometry = leg_geometry(platform, leg, r, Q, arith)
        rho = np.broadcast_to(geometry.rho, (count,))
        row = _as_array(jacobian_row(geometry), count)[:, _twist_components(platform)]
        lengths.append(rho)
        rows.append(row / rho[:, None])
    return np.stack(lengths, axis=1), np.stack(rows, axis=1)


def leg_rates(platform, poses, twists):
    """``rho_dot`` ``(N, legs)`` of poses moving with ``twists`` (``(N, 6)`` omega, r_dot; planar
    ``(N, 3)`` phi_dot, x_dot, y_dot), from the Jacobian rows."""
    _, rows = jacobian(platform, poses)
    return np.einsum("nij,nj->ni", rows, np.asarray(twists, dtype=float))


def finest_tolerance(platform):
    """The finest forward-kinematics tolerance float64 can meet (m): :data:`RESOLVABLE_ULPS`
    units in the last place of the platform's longest stroke (a leg's computed length carries
    a few of them; 1e-16 m on the hexapod left 44 % of reachable poses unconverged)."""
    return RESOLVABLE_ULPS * float(np.spacing(max(leg.stroke[1] for leg in platform.legs)))


def check_tolerance(platform, tolerance):
    """Refuse (``ValueError``) a forward-kinematics ``tolerance`` finer than
    :func:`finest_tolerance`, naming the finest."""
    finest = finest_tolerance(platform)
    if not tolerance >= finest:
        raise ValueError(f"tolerance must be at least {finest:.2g} m, not {tolerance:g}: "
                         f"float64 resolves a leg's length only to about that "
                         f"({RESOLVABLE_ULPS} units in the last place of the longest stroke)")


def forward_kinematics(platform, lengths, guess=None, tolerance=FK_TOLERANCE,
                       iterations=FK_ITERATIONS, max_cond=1e12):
    """Poses from leg lengths by Newton-Raphson (ours: Gosselin gives none; the iteration is
    his A.9 structure, legs' residuals and Jacobian rows, then one platform solve).

    Every row starts from ``guess``: a pose, one pose per row (``(N, fields)``), or ``None``
    (the platform's home). Newton-Raphson returns the solution whose basin holds the start:
    where the lengths admit several poses (assembly modes), a start far from the wanted one
    can give another, with every leg right. A step solves
    ``(K / rho) (d_theta, d_r) = lengths - rho`` and moves ``r`` by ``d_r`` and ``Q`` by the
    rotation ``exp(skew(d_theta))`` (Rodrigues), so ``Q`` stays a rotation. Returns
    ``(poses, iterations, reasons)``: ``reasons`` is ``""`` for a converged row, else
    ``"near_singular"`` (the Jacobian's condition number passed ``max_cond``) or
    ``"unreachable"`` (no convergence in ``iterations`` steps, or a step that left the reals).
    """
    check_tolerance(platform, tolerance)
    lengths = np.asarray(lengths, dtype=float)
    count, spatial = len(lengths), platform.spatial
    guess = np.asarray(platform.home if guess is None else guess, dtype=float)
    pose = guess.copy() if guess.ndim == 2 else np.tile(guess, (count, 1))
    if pose.shape != (count, len(platform.pose_fields)):
        raise ValueError(f"guess must be a pose of {len(platform.pose_fields)} numbers or one "
                         f"per row, not of shape {guess.shape}")
    r = pose[:, :3].copy() if spatial else np.column_stack([pose[:, :2], np.zeros(count)])
    if spatial:
        Q = np.moveaxis(np.array(rotation(*pose[:, 3:].T)), -1, 0)
    else:
        Q = np.moveaxis(np.array(_planar_rotation(pose[:, 2])), -1, 0)
    steps = np.zeros(count, dtype=int)
    reasons = np.full(count, "unreachable", dtype=object)
    active = np.ones(count, dtype=bool)
    for step in range(iterations + 1):
        if not active.any():
            break
        index = np.flatnonzero(active)
        rho, rows = _lengths_and_rows(platform, tuple(r[index].T),
                                      tuple(tuple(row) for row in np.moveaxis(Q[index], 0, -1)),
                                      len(index))
        residual = lengths[index] - rho
        done = np.all(np.abs(residual) <= tolerance, axis=1)
        reasons[index[done]] = ""
        steps[index[done]] = step
        active[index[done]] = False
        if step == iterations:
            steps[index[~done]] = step
            break
        index, rows, residual = index[~done], rows[~done], residual[~done]
        if not len(index):
            break
        condition = condition_numbers(rows)      # inf where rows are not finite
        singular = ~(condition <= max_cond)
        reasons[index[singular]] = "near_singular"
        steps[index[singular]] = step
        active[index[singular]] = False
        index, rows, residual = index[~singular], rows[~singular], residual[~singular]
        if not len(index):
            continue
        delta = np.linalg.solve(rows, residual[..., None])[..., 0]
        full = np.zeros((len(index), 6))
        full[:, _twist_components(platform)] = delta
        r[index] += full[:, 3:]
        Q[index] = _rodrigues(full[:, :3]) @ Q[index]
        bad = ~np.all(np.isfinite(r[index]), axis=1)
        active[index[bad]] = False
        steps[index[bad]] = step + 1
    return _pose_of(r, Q, spatial), steps, reasons


def displaced(platform, poses, twists, step):
    """Poses moved by ``twists * step``: ``r`` by ``r_dot step``, ``Q`` by the rotation
    ``exp(skew(omega step))`` (base frame); twists as :func:`leg_rates` takes them."""
    poses, twists = np.asarray(poses, dtype=float), np.asarray(twists, dtype=float)
    if not platform.spatial:
        return poses + step * twists[:, [1, 2, 0]]
    Q = np.moveaxis(np.array(rotation(*poses[:, 3:].T)), -1, 0)
    return np.column_stack([poses[:, :3] + step * twists[:, 3:],
                            *angles(_rodrigues(step * twists[:, :3]) @ Q)])


def _planar_rotation(phi):
    c, s = np.cos(phi), np.sin(phi)
    zero, one = np.zeros_like(phi), np.ones_like(phi)
    return ((c, -s, zero), (s, c, zero), (zero, zero, one))


def _pose_of(r, Q, spatial):
    """Pose rows from positions ``(N, 3)`` and rotations ``(N, 3, 3)``."""
    if spatial:
        return np.column_stack([r, *angles(Q)])
    phi = np.arctan2(Q[:, 1, 0], Q[:, 0, 0])
    return np.column_stack([r[:, :2], np.where(phi <= -np.pi, np.pi, phi)])


def _rodrigues(theta):
    """Rotations ``exp(skew(theta))``, ``(N, 3, 3)``."""
    angle = np.linalg.norm(theta, axis=1)
    safe = np.where(angle > 0, angle, 1.0)
    axis = theta / safe[:, None]
    k = np.zeros((len(theta), 3, 3))
    k[:, 0, 1], k[:, 0, 2], k[:, 1, 2] = -axis[:, 2], axis[:, 1], -axis[:, 0]
    k[:, 1, 0], k[:, 2, 0], k[:, 2, 1] = axis[:, 2], -axis[:, 1], axis[:, 0]
    sin, cos = np.sin(angle)[:, None, None], np.cos(angle)[:, None, None]
    return np.eye(3) + sin * k + (1 - cos) * (k @ k)
