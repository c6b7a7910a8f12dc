"""A parallel manipulator's inverse dynamics as a task graph of CCMs: Gosselin's three phases
(1996, section 3; :mod:`robohw.legs.platform_dynamics`) on one identical processor per leg
and one platform solve, the CORDIC way.

1. **Legs** (every leg the same CCMs, its own constants). The leg processor's kinematics
   (:func:`robohw.legs.ik_graph.leg_processors` with the rows of ``K / rho``) give its length
   ``rho``, azimuth ``psi`` and elevation ``theta``, ``Q b'`` and its row ``(Q b' x e, e)``.
   The joint's velocity and acceleration ``s_dot = r_dot + w x Q b'`` and ``s_ddot`` are
   multiply-adds (linear rotations, ``y + x z``); two circular rotations (by ``-psi``, then
   ``-theta``) take them and gravity into the leg's frame, where ``e = (1, 0, 0)`` and the
   leg's equations (the paper's eq. (36) "in the local frame") are short:

   - ``w_leg = (0, -u3, u2) / rho``, ``w_leg_dot = (0, -(v3 + 2 u1 w2), v2 - 2 u1 w3) / rho``
     (``u``, ``v``: ``s_dot``, ``s_ddot`` in the leg's frame; divisions are linear
     vectorings);
   - Euler's equation about the base joint, ``Z = e x X + I_t w_leg_dot`` with ``X = l_l F_l +
     (rho - l_u) F_u``, ``F = m (a - g)``, gives the force across the leg ``g = (0, -Z3, Z2) /
     rho``: two chains of three multiply-adds and a division each.

   Two rotations take ``g`` back to the base frame, two more ``Q b' x g``.
2. **Gather and solve.** The platform's wrench about its origin ``r``, computed in the
   platform's frame (``Q^T`` by three rotations, ``Q`` back by three), ``F = m (a_c - g)`` and
   ``M = I w_dot + w x I w + c x F``, minus the legs' ``sum g_i`` and ``sum Q b'_i x g_i``, is
   the right-hand side of ``M f = w``, whose column ``i`` is ``(e_i, Q b'_i x e_i)``, leg ``i``'s
   row of ``K / rho``: Givens rotations (:func:`robohw.legs.givens.givens_solve`). Moments
   about ``r`` rather than the centre of mass make the matrix the legs' own rows (the same
   forces: the two sets of equations differ by ``c x`` the force equation).
3. **Scatter.** Every leg processor (CCMs ``leg{i}_h_``) adds ``m_u (a_u - g) . e = m_u (v1 -
   g1 + l_u |w_leg|^2)`` to its ``f_i``: the actuator's force ``h_i``.

A planar platform is the same graph with its structural zeros: constants that are zero drop
their products, and a leg has no elevation.

Units (:class:`DynamicsScale`): the graph computes in a time unit ``T`` and a mass unit ``M``,
powers of two chosen from the platform and its :class:`StateLimits`, so that velocities
``v T``, accelerations ``a T^2`` and forces ``F T^2 / M`` stay inside the reals' format and the
linear rotations' ``|z| < 2``. A value beyond them saturates and flags its state; the states
inside the limits stay inside (``tests/legs/test_platform_dynamics.py`` measures the margin).
"""

import math
from dataclasses import dataclass, replace

import numpy as np

from robohw.cordic.config import Direction, System
from robohw.hw.checks import check_number
from robohw.hw.fixed import FixedFormat, angle_to_code
from robohw.legs.givens import MIN_PIVOT, givens_solve
from robohw.legs.ik_graph import (
    angle_fields,
    leg_ports,
    leg_processors,
    platform_format,
    pose_bounds,
)
from robohw.legs.platform_dynamics import SYSTEM_ROWS, gosselin_dynamics
from robohw.robots.magnitudes import platform_largest_value
from robohw.robots.sampling import sample_poses
from robohw.taskgraph.graph import Ccm, Operand, TaskGraph, const
from robohw.taskgraph.ranges import graph_ranges

__all__ = ["dynamics_graph", "dynamics_format", "rate_fields", "state_fields", "state_bounds",
           "proven_ranges", "STROKE_MARGIN", "StateLimits", "DynamicsScale", "dynamics_scale",
           "state_inputs", "state_codes", "sample_states", "reference_dynamics",
           "DYNAMICS_GUARD_BITS", "STATE_LIMITS", "ConstantRangeError"]

CIRC, LIN = System.CIRCULAR, System.LINEAR
ROT, VEC = Direction.ROTATION, Direction.VECTORING

# A linear rotation converges for |z| < 2 (robohw.cordic.config: the sum of 2^-i); constants
# kept below this leave the last micro-steps as margin.
Z_LIMIT = 1.75

# Guard bits inside the CCMs (the values travel with them from CCM to CCM; only the outputs
# are rounded to the ports): measured in tests/legs/test_platform_dynamics.py and the README.
DYNAMICS_GUARD_BITS = 4


@dataclass(frozen=True)
class StateLimits:
    """The largest ``|component|`` of a state's platform velocity (m/s), angular velocity
    (rad/s), acceleration (m/s^2) and angular acceleration (rad/s^2), base frame: the states
    the hardware is scaled for. A state beyond them is ``outside_limits``."""
    velocity: float
    angular_velocity: float
    acceleration: float
    angular_acceleration: float

    def __post_init__(self):
        for name in ("velocity", "angular_velocity", "acceleration", "angular_acceleration"):
            check_number(f"StateLimits.{name}", getattr(self, name), above=0)

    def within(self, platform, rates, accelerations):
        """``(N,)``: which rows of ``rates`` and ``accelerations`` (``(N, dof)``, the columns
        of :func:`rate_fields`) are inside the limits."""
        linear = _linear_columns(platform)
        limit_v = np.where(linear, self.velocity, self.angular_velocity)
        limit_a = np.where(linear, self.acceleration, self.angular_acceleration)
        return np.all(np.abs(rates) <= limit_v, axis=1) & \
            np.all(np.abs(accelerations) <= limit_a, axis=1)


# The limits by kind (ours; the paper gives none): a fast motion simulator's platform, and a
# planar one half as fast, whose legs can be as short as 0.2 m (a leg's angular rates grow as
# 1 / rho; tests/legs/test_platform_dynamics.py measures the margin at the limits' corners).
STATE_LIMITS = {
    "spatial": StateLimits(velocity=1.0, angular_velocity=2.0, acceleration=10.0,
                           angular_acceleration=20.0),
    "planar": StateLimits(velocity=0.5, angular_velocity=1.0, acceleration=5.0,
                          angular_acceleration=10.0),
}


@dataclass(frozen=True)
class DynamicsScale:
    """The graph's units: ``time`` (s) and ``mass`` (kg), powers of two. A velocity enters as
    ``v time``, an acceleration as ``a time^2``; a force leaves as ``F time^2 / mass``."""
    time: float
    mass: float

    @property
    def force(self):
        """Newtons of one unit of force."""
        return self.mass / self.time ** 2


def rate_fields(platform):
    """The columns of a platform's twist: ``vx, vy, vz, wx, wy, wz`` (planar ``vx, vy, wz``)."""
    return ("vx", "vy", "vz", "wx", "wy", "wz") if platform.spatial else ("vx", "vy", "wz")


def state_fields(platform):
    """The graph's inputs: the pose fields, :func:`rate_fields` and their derivatives
    (``d`` + each)."""
    rates = rate_fields(platform)
    return tuple(platform.pose_fields) + rates + tuple(f"d{name}" for name in rates)


def _linear_columns(platform):
    return np.array([name.startswith("v") for name in rate_fields(platform)])


def dynamics_scale(platform, limits=None):
    """The :class:`DynamicsScale` of ``platform`` for states inside ``limits`` (default
    :data:`STATE_LIMITS` of the platform's kind), from bounds of the values the legs compute:
    a platform joint's velocity ``|s_dot| <= V`` and acceleration ``|s_ddot| <= A``, a leg's
    angular velocity ``V / rho_min`` and acceleration ``(A + 2 V^2 / rho_min) / rho_min``
    (``rho_min`` the shortest stroke). The time unit puts the velocities below a half and the
    accelerations, gravity's too, below one; the mass unit puts the platform's mass times its
    acceleration below one and every constant factor (a mass, an inertia) below 1.5, inside
    the linear rotations' range. Powers of two, so a unit costs no multiplier."""
    limits = STATE_LIMITS[platform.kind] if limits is None else limits
    arm = max(math.hypot(*leg.platform) for leg in platform.legs)
    shortest = min(leg.stroke[0] for leg in platform.legs)
    root3 = math.sqrt(3)                     # a vector's norm from its components' limits
    velocity = root3 * (limits.velocity + limits.angular_velocity * arm)
    acceleration = root3 * (limits.acceleration + limits.angular_acceleration * arm) + \
        3 * limits.angular_velocity ** 2 * arm
    rates = max(velocity, limits.angular_velocity, velocity / shortest)
    accelerations = max(acceleration + math.hypot(*platform.gravity),
                        (acceleration + 2 * velocity ** 2 / shortest) / shortest)
    time = 2.0 ** -max(0, math.ceil(math.log2(2 * rates)),
                       math.ceil(math.log2(accelerations) / 2))
    factors = [platform.mass, *np.abs(np.ravel(platform.inertia))]
    for leg in platform.legs:
        lower, upper = leg.lower, leg.upper
        factors += [upper.mass, lower.mass * lower.com_distance,
                    lower.mass * lower.com_distance ** 2 + lower.inertia + upper.inertia]
    mass = 2.0 ** math.ceil(math.log2(max(platform.mass * accelerations * time ** 2,
                                          max(factors) / 1.5)))
    return DynamicsScale(time, mass)


def reference_dynamics(platform, states):
    """The float64 reference's ``(forces (N, legs), condition (N,))`` of states ``(N,
    len(state_fields))`` (:func:`robohw.legs.platform_dynamics.gosselin_dynamics`)."""
    states = np.asarray(states, dtype=np.float64)
    pose, dof = len(platform.pose_fields), len(rate_fields(platform))
    # The columns vx.. wz as the references' twists (omega, r_dot); planar (phi_dot, x, y).
    order = [3, 4, 5, 0, 1, 2] if platform.spatial else [2, 0, 1]
    return gosselin_dynamics(platform, states[:, :pose],
                             states[:, pose:pose + dof][:, order],
                             states[:, pose + dof:][:, order])


def sample_states(platform, count, rng, limits=None):
    """``(count, len(state_fields))`` states: poses of
    :func:`robohw.robots.sampling.sample_poses`, rates and accelerations uniform within
    ``limits`` (default :data:`STATE_LIMITS` of the platform's kind)."""
    limits = STATE_LIMITS[platform.kind] if limits is None else limits
    poses = sample_poses(platform, count, rng)
    linear = _linear_columns(platform)
    rates = rng.uniform(-1, 1, (count, len(linear))) * \
        np.where(linear, limits.velocity, limits.angular_velocity)
    accelerations = rng.uniform(-1, 1, (count, len(linear))) * \
        np.where(linear, limits.acceleration, limits.angular_acceleration)
    return np.column_stack([poses, rates, accelerations])


def state_bounds(platform, scale, limits=None):
    """``{field: bound}`` of the graph's real inputs for states as :func:`sample_states` draws
    them: positions within home plus or minus
    :data:`~robohw.robots.sampling.POSE_SPREAD`, rates and accelerations within ``limits``
    (default :data:`STATE_LIMITS` of the platform's kind) in the graph's units (the angles are
    binary angles: no bound)."""
    limits = STATE_LIMITS[platform.kind] if limits is None else limits
    out = pose_bounds(platform)
    for name, linear in zip(rate_fields(platform), _linear_columns(platform)):
        out[name] = (limits.velocity if linear else limits.angular_velocity) * scale.time
        out[f"d{name}"] = (limits.acceleration if linear else limits.angular_acceleration) * \
            scale.time ** 2
    return out


# Below the shortest stroke by this much (m): the assumed least length of a leg's CCM, whose
# lengths are within 0.4 um of float64 at 24 bits (README; tests/legs/test_platform_hardware.py).
STROKE_MARGIN = 2.0 ** -12


def proven_ranges(platform, scale, width, limits=None):
    """:func:`robohw.taskgraph.ranges.graph_ranges` of the dynamics graph at ``width`` bits for
    states within :func:`state_bounds` whose legs are within their strokes (each leg's length at
    least its shortest stroke less :data:`STROKE_MARGIN`: the divisions by it are bounded). The
    bounds of the legs' values and the platform's wrench are below the format's range; the
    solve's depend on the conditioning and are guarded by its flags instead."""
    least = {(f"leg{i + 1}_rho", "x"): leg.stroke[0] - STROKE_MARGIN
             for i, leg in enumerate(platform.legs)}
    return graph_ranges(dynamics_graph(platform, scale), state_bounds(platform, scale, limits),
                        **dynamics_format(platform, width), lower_bounds=least)


def dynamics_format(platform, width):
    """The graph's formats at ``width``-bit ports: :func:`~robohw.legs.ik_graph.
    platform_format` with :data:`DYNAMICS_GUARD_BITS` inside."""
    return {**platform_format(platform, width), "guard_bits": DYNAMICS_GUARD_BITS}


def state_inputs(platform, states, scale):
    """The graph inputs ``{field: column}`` of states ``(N, len(state_fields))`` (SI units,
    :func:`state_fields` order): rates times ``scale.time``, accelerations times its square."""
    states = np.asarray(states, dtype=np.float64)
    fields, dof = state_fields(platform), len(rate_fields(platform))
    pose = len(platform.pose_fields)
    factor = np.ones(len(fields))
    factor[pose:pose + dof] = scale.time
    factor[pose + dof:] = scale.time ** 2
    return {name: states[:, k] * factor[k] for k, name in enumerate(fields)}


def state_codes(platform, states, width, scale):
    """The payload codes ``{field: int64 array}`` of states at ``width``-bit ports, as
    :func:`robohw.taskgraph.model.evaluate_model` rounds :func:`state_inputs`: reals in the format
    of :func:`dynamics_format` (``OverflowError`` beyond it), angles as binary angles."""
    real = FixedFormat(width, dynamics_format(platform, width)["frac_bits"])
    angles = angle_fields(platform)
    return {name: (angle_to_code(column, width) if name in angles else real.from_float(column))
            for name, column in state_inputs(platform, states, scale).items()}


# --- values: a float is a constant, an Operand a port (with a sign, a constant, an addend) ---

def _zero(value):
    return isinstance(value, float) and value == 0.0


def _operand(value):
    return const(value) if isinstance(value, float) else value


def _neg(value):
    if isinstance(value, float):
        return -value
    addend = value.addend and replace(value.addend, sign=-value.addend.sign)
    return replace(value, sign=-value.sign, constant=-value.constant, addend=addend)


class _Emitter:
    """Emits CCMs named ``prefix`` + a name, folding constants and dropping products of
    zero."""

    def __init__(self, prefix):
        self.prefix, self.ccms = prefix, []

    def _ccm(self, name, system, direction, x, y, z, label):
        name = f"{self.prefix}{name}"
        self.ccms.append(Ccm(name, system, direction, _operand(x), _operand(y), _operand(z),
                             label=label))
        return name

    def add(self, name, a, b):
        """``a + b``: an operand's constant or addend where it can, else a linear CCM."""
        if isinstance(b, float) or (isinstance(a, Operand) and isinstance(b, Operand) and
                                    b.addend is None and not b.turns and b.branch is None
                                    and a.addend is None):
            if isinstance(a, float) and isinstance(b, float):
                return a + b
            if isinstance(b, float):
                return replace(a, constant=a.constant + b)
            return replace(a, constant=a.constant + b.constant,
                           addend=Operand(b.source, b.port, sign=b.sign))
        if isinstance(a, float):
            return self.add(name, b, a)
        return self.mac(name, a, [(b, 1.0)], "sum")

    def mac(self, name, base, terms, label):
        """``base + sum x z`` over ``terms`` ``(x, z)``, one linear rotation a product
        (``z``: the factor below 2)."""
        y = base
        for k, (x, z) in enumerate(terms):
            if _zero(x) or _zero(z):
                continue
            if isinstance(x, float) and isinstance(z, float):
                y = self.add(f"{name}c{k}", y, x * z)
                continue
            if isinstance(z, float) and abs(z) >= Z_LIMIT:
                raise ConstantRangeError(f"{self.prefix}{name}: the constant factor {z:g} is "
                                         f"beyond the linear rotations' range")
            y = Operand(self._ccm(f"{name}{k}", LIN, ROT, x, y, z, label), "y")
        return y

    def div(self, name, y, x, label):
        """``y / x`` by a linear vectoring (``x``: a positive length)."""
        if _zero(y):
            return 0.0
        return Operand(self._ccm(name, LIN, VEC, x, y, 0.0, label), "z")

    def rotate(self, name, a, b, angle, label):
        """``(a, b)`` turned by ``angle`` (an operand; ``None``: not turned)."""
        if angle is None or (_zero(a) and _zero(b)):
            return a, b
        turn = self._ccm(name, CIRC, ROT, a, b, angle, label)
        return Operand(turn, "x"), Operand(turn, "y")

    def cross(self, name, a, b, factor_first, label):
        """``a x b``; ``factor_first``: ``a``'s components are the ``z`` factors."""
        out = []
        for k, (i, j) in enumerate(((1, 2), (2, 0), (0, 1))):
            terms = [(b[j], a[i]), (_neg(b[i]), a[j])] if factor_first else \
                [(a[i], b[j]), (_neg(a[j]), b[i])]
            out.append(self.mac(f"{name}{'xyz'[k]}", 0.0, terms, label))
        return tuple(out)

    def turn_axes(self, name, vector, axes, label):
        """``vector`` turned about base axes, ``axes`` ``[(axis, angle)]`` in order."""
        pairs = {"x": (1, 2), "y": (2, 0), "z": (0, 1)}
        vector = list(vector)
        for axis, angle in axes:
            i, j = pairs[axis]
            vector[i], vector[j] = self.rotate(f"{name}{axis}", vector[i], vector[j], angle,
                                               label)
        return tuple(vector)


def _negated(angle):
    return replace(angle, sign=-angle.sign)


class _Leg:
    """One leg processor's kinematic ports: ``rho``, ``psi``, ``theta`` (``None`` planar),
    ``Q b'`` in the base and the leg frame, and the matrix column ``(e, Q b' x e)``."""

    def __init__(self, platform, prefix, outputs):
        ports = leg_ports(platform, prefix)
        self.rho, self.psi, self.theta = ports["rho"], ports["psi"], ports["theta"]
        self.qb, self.qb_leg = ports["qb"], ports["qb_leg"]
        row = {key: Operand(*port) for key, port in outputs.items()}
        # The column of M f = w: (e, Q b' x e) in the rows of SYSTEM_ROWS; the leg's row of
        # K / rho is (Q b' x e, e) (planar ((Q b' x e)_z, e_x, e_y)).
        self.column = tuple(row[f"k_{j}"] for j in (4, 5, 6, 1, 2, 3)) if platform.spatial \
            else (row["k_2"], row["k_3"], 0.0, 0.0, 0.0, row["k_1"])

    def to_leg(self, emit, name, v, label):
        a, v2 = emit.rotate(f"{name}a", v[0], v[1], _negated(self.psi), label)
        theta = None if self.theta is None else _negated(self.theta)
        v1, v3 = emit.rotate(f"{name}b", a, v[2], theta, label)
        return v1, v2, v3

    def to_base(self, emit, name, v, label):
        a, vz = emit.rotate(f"{name}a", v[0], v[2], self.theta, label)
        vx, vy = emit.rotate(f"{name}b", a, v[1], self.psi, label)
        return vx, vy, vz


def _vector3(values, spatial):
    return tuple(float(v) for v in values) + (() if spatial else (0.0,))


def _leg_phase1(emit, platform, leg, ports, state, scale):
    """Phase 1 of one leg: ``(g, Q b' x g, actuator)``, the force across the leg on the
    platform and its moment about ``r`` (base frame), and phase 3's term as a function of
    ``f``."""
    omega, r_dot, omega_dot, r_ddot = state
    gravity = tuple(g * scale.time ** 2 for g in _vector3(platform.gravity, platform.spatial))
    w_qb = emit.cross("wqb", omega, ports.qb, True, "w x Q b'")
    s_dot = tuple(emit.add(f"sd{c}", r_dot[k], w_qb[k]) for k, c in enumerate("xyz"))
    dw_qb = emit.cross("dwqb", omega_dot, ports.qb, True, "w_dot x Q b'")
    ww_qb = emit.cross("wwqb", omega, w_qb, True, "w x (w x Q b')")
    s_ddot = tuple(emit.mac(f"sdd{c}", r_ddot[k], [(dw_qb[k], 1.0), (ww_qb[k], 1.0)],
                            "s_ddot") for k, c in enumerate("xyz"))
    u = ports.to_leg(emit, "u", s_dot, "s_dot in the leg's frame")
    v = ports.to_leg(emit, "v", s_ddot, "s_ddot in the leg's frame")
    gamma = ports.to_leg(emit, "g", gravity, "gravity in the leg's frame")
    rho = ports.rho
    # w_leg = (0, w2, w3) and w_leg_dot = (0, wd2, wd3), leg frame.
    w2 = emit.div("w2", _neg(u[2]), rho, "w_leg 2")
    w3 = emit.div("w3", u[1], rho, "w_leg 3")
    twice_u1 = u[0] if _zero(u[0]) else replace(u[0], addend=Operand(u[0].source, u[0].port,
                                                                     sign=u[0].sign))
    wd2 = emit.div("wd2", _neg(emit.mac("t2", v[2], [(twice_u1, w2)], "v3 + 2 u1 w2")), rho,
                   "w_leg_dot 2")
    wd3 = emit.div("wd3", emit.mac("t3", v[1], [(_neg(twice_u1), w3)], "v2 - 2 u1 w3"), rho,
                   "w_leg_dot 3")
    lower, upper = leg.lower, leg.upper
    transverse = (lower.com_distance ** 2 * lower.mass + lower.inertia + upper.inertia) / \
        scale.mass
    lower_moment = lower.com_distance * lower.mass / scale.mass
    arm = replace(rho, constant=-upper.com_distance)          # rho - l_u
    # Euler's equation about the base joint: Z3 and Z2, then g = (0, -Z3, Z2) / rho.
    b2 = emit.mac("b2", emit.add("b2g", v[1], _neg(gamma[1])),
                  [(wd3, -upper.com_distance)], "a_u2 - g2")
    b3 = emit.mac("b3", emit.add("b3g", v[2], _neg(gamma[2])),
                  [(wd2, upper.com_distance)], "a_u3 - g3")
    z3 = emit.mac("z3", 0.0, [(wd3, transverse), (gamma[1], -lower_moment),
                              (emit.mac("y2", 0.0, [(b2, arm)], "(rho - l_u) (a_u2 - g2)"),
                               upper.mass / scale.mass)], "Z3")
    z2 = emit.mac("z2", 0.0, [(wd2, transverse), (gamma[2], lower_moment),
                              (emit.mac("y3", 0.0, [(b3, arm)], "(rho - l_u) (a_u3 - g3)"),
                               -upper.mass / scale.mass)], "Z2")
    g_leg = (0.0, emit.div("g2", _neg(z3), rho, "g_2"), emit.div("g3", z2, rho, "g_3"))
    g_base = ports.to_base(emit, "gb", g_leg, "g in the base frame")
    pe, p2, p3 = ports.qb_leg
    moment_leg = (emit.mac("mq1", 0.0, [(p2, g_leg[2]), (_neg(p3), g_leg[1])], "Q b' x g"),
                  emit.mac("mq2", 0.0, [(_neg(pe), g_leg[2])], "Q b' x g"),
                  emit.mac("mq3", 0.0, [(pe, g_leg[1])], "Q b' x g"))
    moment = ports.to_base(emit, "mb", moment_leg, "Q b' x g in the base frame")
    spin = emit.mac("ww", 0.0, [(w2, w2), (w3, w3)], "|w_leg|^2")
    upper_axial = emit.mac("axial", emit.add("axialg", v[0], _neg(gamma[0])),
                           [(spin, upper.com_distance)], "a_u1 - g1")
    return g_base, moment, upper_axial


def _platform_wrench(emit, platform, pose_axes, state, scale):
    """The platform's ``(F, M)`` about its origin, base frame: ``F = m (a_c - g)``, ``M = I
    w_dot + w x I w + c x F``, computed in the platform's frame."""
    omega, _, omega_dot, r_ddot = state
    gravity = tuple(g * scale.time ** 2 for g in _vector3(platform.gravity, platform.spatial))
    back = [(axis, _negated(angle)) for axis, angle in reversed(pose_axes)]
    w = emit.turn_axes("w", omega, back, "w in the platform's frame")
    dw = emit.turn_axes("dw", omega_dot, back, "w_dot in the platform's frame")
    free = emit.turn_axes("a", tuple(emit.add(f"ag{c}", r_ddot[k], -gravity[k])
                                     for k, c in enumerate("xyz")), back,
                          "r_ddot - g in the platform's frame")
    com = _vector3(platform.com, platform.spatial)
    if platform.spatial:
        inertia = np.array(platform.inertia, dtype=float) / scale.mass
    else:
        inertia = np.diag([0.0, 0.0, float(platform.inertia)]) / scale.mass
    wc = emit.cross("wc", w, com, True, "w x c")
    dwc = emit.cross("dwc", dw, com, True, "w_dot x c")
    wwc = emit.cross("wwc", w, wc, True, "w x (w x c)")
    accel = tuple(emit.mac(f"ac{c}", free[k], [(dwc[k], 1.0), (wwc[k], 1.0)], "a_c - g")
                  for k, c in enumerate("xyz"))
    force = tuple(emit.mac(f"f{c}", 0.0, [(accel[k], platform.mass / scale.mass)], "m (a - g)")
                  for k, c in enumerate("xyz"))
    iw = tuple(emit.mac(f"iw{c}", 0.0, [(w[j], float(inertia[k, j])) for j in range(3)],
                        "I w") for k, c in enumerate("xyz"))
    wiw = emit.cross("wiw", w, iw, True, "w x I w")
    cf = emit.cross("cf", com, force, True, "c x F")
    moment = tuple(emit.mac(f"m{c}", 0.0, [(dw[j], float(inertia[k, j])) for j in range(3)] +
                            [(wiw[k], 1.0), (cf[k], 1.0)], "M about r")
                   for k, c in enumerate("xyz"))
    return (emit.turn_axes("fb", force, pose_axes, "F in the base frame"),
            emit.turn_axes("mb", moment, pose_axes, "M in the base frame"))


def _total(emit, name, values, label):
    """The sum of ``values``: constants folded, up to four ports a linear CCM (``y + x``
    with an addend on each)."""
    constant = sum(v for v in values if isinstance(v, float))
    ports = [v for v in values if not isinstance(v, float)]
    if not ports:
        return constant
    while len(ports) > 1:
        merged = []
        for k in range(0, len(ports), 4):
            group = ports[k:k + 4]
            if len(group) == 1:
                merged.append(group[0])
                continue
            y = emit.add(f"{name}y{len(merged)}_{k}", group[0], group[1])
            if len(group) == 2:
                merged.append(y)
                continue
            x = group[2] if len(group) == 3 else \
                emit.add(f"{name}x{len(merged)}_{k}", group[2], group[3])
            merged.append(emit.mac(f"{name}s{len(merged)}_{k}", y, [(x, 1.0)], label))
        ports = merged
    return emit.add(f"{name}c", ports[0], constant) if constant else ports[0]


class ConstantRangeError(ValueError):
    """A constant factor of the graph beyond the linear rotations' range (:data:`Z_LIMIT`)."""


def dynamics_graph(platform, scale=None, min_pivot=MIN_PIVOT):
    """The :class:`~robohw.taskgraph.graph.TaskGraph` of ``platform``'s inverse dynamics in the
    units of ``scale`` (default :func:`dynamics_scale`): inputs :func:`state_fields` (the pose,
    angles as angle inputs; rates times ``scale.time``, accelerations times its square, base
    frame), outputs the actuators' forces ``f1..fN`` in units of ``scale.force`` (positive
    extending, gravity included). A platform one of whose constant factors no linear rotation
    takes (a joint coordinate of metres: the scale makes masses and inertias fit, not
    lengths) is refused (``ValueError``, naming the file and its largest value)."""
    try:
        return _dynamics_graph(platform, scale, min_pivot)
    except ConstantRangeError as error:
        raise ValueError(f"{platform.source or platform.name}: {error}: the leg processors "
                         f"cannot compute this platform's dynamics (its largest value: "
                         f"{platform_largest_value(platform)})") from None


def _dynamics_graph(platform, scale, min_pivot):
    scale = dynamics_scale(platform) if scale is None else scale
    spatial = platform.spatial
    fields = state_fields(platform)
    pose = [Operand(f) for f in platform.pose_fields]
    rates = rate_fields(platform)

    def vector(prefix, kind):        # a planar platform's missing components are zeros
        return tuple(Operand(f"{prefix}{kind}{c}") if f"{kind}{c}" in rates else 0.0
                     for c in "xyz")

    omega, r_dot = vector("", "w"), vector("", "v")
    omega_dot, r_ddot = vector("d", "w"), vector("d", "v")
    state = (omega, r_dot, omega_dot, r_ddot)
    ccms, outputs = leg_processors(platform, "", pose, jacobian=True)
    legs, rhs_g, rhs_m, axial = [], [], [], []
    for i, leg in enumerate(platform.legs, start=1):
        prefix = f"leg{i}_"
        row = {f"k_{j}": outputs[f"k{i}_{j}"] for j in range(1, (6 if spatial else 3) + 1)}
        ports = _Leg(platform, prefix, row)
        emit = _Emitter(f"{prefix}d_")
        g_base, moment, upper_axial = _leg_phase1(emit, platform, leg, ports, state, scale)
        ccms += emit.ccms
        legs.append(ports)
        rhs_g.append(g_base)
        rhs_m.append(moment)
        axial.append(upper_axial)
    emit = _Emitter("p_")
    if spatial:
        pose_axes = [("x", pose[3]), ("y", pose[4]), ("z", pose[5])]
    else:
        pose_axes = [("z", pose[2])]
    force, moment = _platform_wrench(emit, platform, pose_axes, state, scale)
    wrench = force + moment
    legs_share = [[g[k] for g in rhs_g] for k in range(3)] + \
        [[m[k] for m in rhs_m] for k in range(3)]
    rows = SYSTEM_ROWS[platform.kind]
    rhs = [_operand(_total(emit, f"w{k}", [wrench[k]] + [_neg(v) for v in legs_share[k]],
                           "wrench - the legs' share")) for k in rows]
    ccms += emit.ccms
    matrix = [[ports.column[k] for ports in legs] for k in rows]
    solve, forces, guards = givens_solve("s_", matrix, rhs, min_pivot)
    ccms += solve
    results = {}
    for i, (f, term, leg) in enumerate(zip(forces, axial, platform.legs), start=1):
        scatter = _Emitter(f"leg{i}_h_")            # phase 3, back on the leg's processor
        h = scatter.mac("", f, [(term, leg.upper.mass / scale.mass)], "h = f + m_u a_u.e")
        results[f"f{i}"] = (h.source, h.port)
        ccms += scatter.ccms
    return TaskGraph(f"{platform.name}-dynamics", fields, ccms, results,
                     description=f"inverse dynamics of {platform.name}, one processor per leg, "
                                 f"a Givens platform solve", angle_inputs=angle_fields(platform),
                     guards=guards)
