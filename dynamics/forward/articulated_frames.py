"""Featherstone's articulated-body algorithm in link frames, written over scalars for hardware:
what the forward-dynamics plan (:mod:`robohw.dynamics.forward.plan`) traces.

Frames and joints as in :mod:`robohw.dynamics.inverse.link_frames` (standard DH, twists multiples of
90 degrees in the hardware form: ``Rx(alpha)`` is a signed permutation, no product). Spatial
vectors are 6-tuples ``(angular, linear)`` in frame ``i`` about its origin ``O_i``; an inertia
is a symmetric 6 x 6 matrix (lists of rows; the entries above the diagonal computed, the ones
below them the same scalars). Joint ``i``'s motion in frame ``i`` is ``S = (z, z x p)`` for a
revolute joint (it turns about ``z_{i-1} = (0, sin alpha, cos alpha)`` through ``O_{i-1}``,
``p = p*_i`` the origin of frame ``i`` from ``O_{i-1}``) and ``(0, z)`` for a prismatic one. A
motion vector of frame ``i - 1`` is ``(E w, E v + (E w) x p)`` in frame ``i`` (``E = Rx(alpha)^T
Rz(theta)^T``); a force ``(n, f)`` of frame ``i`` is ``(E^T (n + p x f), E^T f)`` in frame ``i -
1``; an inertia ``K`` of frame ``i`` is ``X^T K X`` there, translated by ``p`` then turned.

Three sweeps (``tau`` the joint torques less damping and Coulomb friction):

- outward: ``v_i = X_i v_{i-1} + S qd_i``, the velocity-product acceleration ``c_i = v_i x
  (S qd_i)``, the link's bias force ``p_i = v_i x* (I_i v_i)``;
- inward: ``U = K_i S``, ``D = S^T U + armature``, ``u = tau_i - S^T P_i``, ``r = 1 /
  sqrt(D)``, ``g = U r``, ``h = u r``; the parent gets ``X^T (K_i - g g^T) X`` and ``X^T (P_i +
  (K_i - g g^T) c_i + g h)``;
- outward: ``a'_i = X_i a_{i-1} + c_i`` (``a_{-1}`` the base accelerating against gravity),
  ``qdd_i = (u - U . a'_i) / D``, ``a_i = a'_i + S qdd_i``.

``D`` enters twice a joint: as its reciprocal square root (``arith.reciprocal_sqrt``) inward,
where ``g`` is at most ``sqrt(alpha)`` while ``U`` alone reaches ``sqrt(alpha D_max)``, so the
error bounds of ``K - g g^T`` carry the algorithm's own sensitivity to ``D`` (about ``alpha /
D_min``) instead of the scalar analysis's ``alpha D_max / D_min^2`` for ``U U^T / D``; and as
its reciprocal (``arith.reciprocal``) outward, where the quotient's error is bounded through
the acceleration's own range (``h r`` would carry ``h``'s, from the torque limits).
Every value is handed its proven range
(:class:`robohw.dynamics.forward.bounds.ForwardBounds`) through ``arith.bound`` and
``arith.within``; the ranges that hold only where the accelerations are within their limits
(each link's articulated bias, each acceleration) through ``arith.assume``, which a machine
checks.
"""

import math

from robohw.dataflow.graph import RangeError
from robohw.dynamics.inverse.link_frames import turn_into, turn_out
from robohw.robots.algebra import cross, difference, dot, negate, product, snap, total, vadd
from robohw.robots.joint_type import JointType

__all__ = ["articulated_body_steps", "link_inertia", "joint_motion", "link_geometry"]

# The name of joint k's articulated inertia D (a divisor), as a refusal says it.
_ARTICULATED_INERTIA = "joint {}'s articulated inertia"


def _symmetric(entry):
    """A symmetric 6 x 6 matrix from ``entry(j, k)`` for ``j <= k``."""
    upper = {(j, k): entry(j, k) for j in range(6) for k in range(j, 6)}
    return [[upper[min(j, k), max(j, k)] for k in range(6)] for j in range(6)]


def _motion_cross(v, m):
    """``v x m`` of spatial motion vectors."""
    w, lin = v[:3], v[3:]
    return (*cross(w, m[:3]), *vadd(cross(w, m[3:]), cross(lin, m[:3])))


def _force_cross(v, f):
    """``v x* f``: a motion vector crossed into a force."""
    w, lin = v[:3], v[3:]
    return (*vadd(cross(w, f[:3]), cross(lin, f[3:])), *cross(w, f[3:]))


def _apply(matrix, vector):
    return tuple(total([product(matrix[j][k], vector[k]) for k in range(6)]) for j in range(6))


def link_inertia(joint):
    """Link ``joint``'s spatial inertia about ``O_i`` in frame ``i`` (floats): ``[[J + m C C^T,
    m C], [m C^T, m 1]]`` with ``C`` the cross-product matrix of its centre of mass."""
    m = float(joint.mass)
    cx, cy, cz = (float(v) for v in joint.com)
    ixx, iyy, izz, ixy, iyz, ixz = (float(v) for v in joint.inertia)
    skew = [[0.0, -cz, cy], [cz, 0.0, -cx], [-cy, cx, 0.0]]
    rotational = [[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]
    out = [[0.0] * 6 for _ in range(6)]
    for j in range(3):
        for k in range(3):
            out[j][k] = rotational[j][k] + m * sum(skew[j][l] * skew[k][l] for l in range(3))
            out[j][k + 3] = m * skew[j][k]
            out[k + 3][j] = m * skew[j][k]
        out[j + 3][j + 3] = m
    return out


def joint_motion(joint, p):
    """``S`` of ``joint`` (see the module docstring), ``p`` its ``p*`` (scalars)."""
    sa, ca = snap(math.sin(joint.alpha)), snap(math.cos(joint.alpha))
    z = (0, sa, ca)
    if joint.type == JointType.REVOLUTE:
        return (*z, *cross(z, p))
    return (0, 0, 0, *z)


def link_geometry(joint):
    """``p*_i`` of a revolute ``joint`` (floats): ``(a, d sin alpha, d cos alpha)``."""
    sa, ca = snap(math.sin(joint.alpha)), snap(math.cos(joint.alpha))
    return (float(joint.a), float(joint.d) * sa, float(joint.d) * ca)


def articulated_body_steps(robot, joints, qd, tau, arith, bounds=None):
    """The ``N`` joint accelerations of a standard-DH ``robot`` over scalars.

    ``joints[i]``: joint ``i + 1``'s input, ``(cos, sin)`` of ``q + offset`` (revolute) or ``q +
    offset`` (prismatic); ``qd[i]``: its rate; ``tau[i]``: its torque (force) less damping and
    Coulomb friction; ``arith``: see :mod:`robohw.robots.algebra`; ``bounds``: a
    :class:`~robohw.dynamics.forward.bounds.ForwardBounds` whose bounds are handed to
    ``arith.bound`` and ``arith.within``. Link ``i``'s work runs in ``arith.cell(sweep, None,
    i)``, ``sweep`` one of ``"velocity"``, ``"inertia"`` and ``"acceleration"``.
    """
    n = robot.dof
    members = robot.joints
    b = bounds

    def fit(values, limit):
        return values if b is None else arith.bound(values, limit)

    def fit_spatial(vector, angular, linear):
        return (*fit(vector[:3], angular), *fit(vector[3:], linear))

    def assume(values, limit, name):
        """A range that holds where the accelerations are within their limits: checked (each
        traced value called ``name``, as a refusal says it)."""
        for value in values:
            if hasattr(value, "name"):
                value.name = name
        return values if b is None else arith.assume(values, limit)

    def fit_inertia(matrix, angular, linear):
        """The entries of a positive semidefinite matrix whose blocks' norms are at most
        ``angular`` and ``linear``: ``|K_jk| <= sqrt(K_jj K_kk)``."""
        if b is None:
            return matrix
        limits = (angular, math.sqrt(angular * linear), linear)
        for j in range(6):
            for k in range(j, 6):
                arith.bound([matrix[j][k]], limits[(j >= 3) + (k >= 3)])
        return matrix

    twists = [(snap(math.cos(j.alpha)), snap(math.sin(j.alpha))) for j in members]
    turns, levers, motions = [], [], []
    for i, (joint, value) in enumerate(zip(members, joints)):
        ca, sa = twists[i]
        if joint.type == JointType.REVOLUTE:
            turns.append(value)
            levers.append(link_geometry(joint))
        else:
            turns.append((snap(math.cos(joint.theta)), snap(math.sin(joint.theta))))
            with arith.cell("velocity", None, i):
                levers.append(fit((float(joint.a), product(value, sa), product(value, ca)),
                                  b and b.p[i]))
        motions.append(joint_motion(joint, levers[i]))

    def into(i, vector):
        """A motion vector of frame ``i - 1`` in frame ``i``."""
        c, s = turns[i]
        ca, sa = twists[i]
        w = turn_into(c, s, ca, sa, vector[:3])
        return (*w, *vadd(turn_into(c, s, ca, sa, vector[3:]), cross(w, levers[i])))

    def out_of(i, force):
        """A force of frame ``i`` in frame ``i - 1``."""
        c, s = turns[i]
        ca, sa = twists[i]
        moment = vadd(force[:3], fit(cross(levers[i], force[3:]), b and b.p[i] * b.f_a[i]))
        return (*turn_out(c, s, ca, sa, moment), *turn_out(c, s, ca, sa, force[3:]))

    # Outward: velocities, velocity-product accelerations, the links' bias forces.
    v = (0,) * 6
    drifts, biases = [], []
    for i, joint in enumerate(members):
        with arith.cell("velocity", None, i):
            rate = tuple(product(x, qd[i]) for x in motions[i])
            rate = fit_spatial(rate, b and b.rate_w[i], b and b.rate_v[i])
            v = fit_spatial(vadd6(into(i, v), rate) if i else rate, b and b.w[i], b and b.v[i])
            drifts.append(fit_spatial(_motion_cross(v, rate), b and b.c_w[i], b and b.c_v[i]))
            inertia = link_inertia(joint)
            momentum = fit_spatial(_apply(inertia, v), b and b.h_n[i], b and b.h_f[i])
            biases.append(fit_spatial(_force_cross(v, momentum), b and b.p_n[i], b and b.p_f[i]))
    # Inward: articulated inertias and bias forces.
    inertias = [link_inertia(joint) for joint in members]
    tail = [None] * n                                 # per joint: (U, 1 / D, u)
    passed = [None] * n                               # what link i hands link i - 1
    for i in reversed(range(n)):
        joint = members[i]
        with arith.cell("inertia", None, i):
            k_i, p_i = inertias[i], biases[i]
            if i + 1 < n:
                k_i = _symmetric(lambda j, k: total([k_i[j][k], passed[i + 1][0][j][k]]))
                k_i = fit_inertia(k_i, b and b.alpha[i], b and b.mu[i])
                p_i = vadd6(p_i, passed[i + 1][1])
                bias = f"link {i + 1}'s articulated bias force"
                p_i = (*assume(p_i[:3], b and b.big_n[i], bias),
                       *assume(p_i[3:], b and b.big_f[i], bias))
            s = motions[i]
            u_vec = fit_spatial(_apply(k_i, s), b and b.u_w[i], b and b.u_v[i])
            d = total([dot(s, u_vec), joint.armature or 0])
            if hasattr(d, "name"):          # a traced node: a refusal names it in words
                d.name = _ARTICULATED_INERTIA.format(i + 1)
            if b is not None:
                arith.within([d], b.d_min[i], b.d_max[i])
            u = fit([difference(tau[i], dot(s, p_i))], b and b.u[i])[0]
            tail[i] = (u_vec, arith.reciprocal(d), u)
            if i == 0:
                continue
            # U U^T / D and U u / D as products of g = U / sqrt(D) and h = u / sqrt(D), whose
            # ranges (|U| <= sqrt(alpha D)) keep the errors at the algorithm's own
            # sensitivity to D.
            root = arith.reciprocal_sqrt(d)
            gain = fit_spatial(tuple(product(x, root) for x in u_vec), b and b.gain_w[i],
                               b and b.gain_v[i])
            drive = fit([product(u, root)], b and b.drive[i])[0]
            reduced = fit_inertia(_symmetric(lambda j, k: difference(
                k_i[j][k], product(gain[j], gain[k]))), b and b.alpha[i], b and b.mu[i])
            force = vadd6(vadd6(p_i, fit_spatial(_apply(reduced, drifts[i]), b and b.kc_n[i],
                                                 b and b.kc_f[i])),
                          fit_spatial(tuple(product(x, drive) for x in gain),
                                      b and b.uu_n[i], b and b.uu_f[i]))
            force = fit_spatial(force, b and b.n_a[i], b and b.f_a[i])
            passed[i] = (_to_parent(i, reduced, turns, twists, levers, fit_inertia, b),
                         fit_spatial(out_of(i, force), b and b.n_parent[i], b and b.f_a[i]))
    # Outward: accelerations.
    gravity = tuple(-float(g) for g in robot.gravity)
    a = (0, 0, 0, *gravity)
    qdd = []
    for i in range(n):
        with arith.cell("acceleration", None, i):
            u_vec, inverse, u = tail[i]
            a = fit_spatial(vadd6(into(i, a), drifts[i]), b and b.a_w_in[i], b and b.a_v_in[i])
            pushed = fit([dot(u_vec, a)], b and b.pushed[i])[0]
            numerator = fit([difference(u, pushed)], b and b.numerator[i])[0]
            try:
                qdd.append(assume([product(numerator, inverse)], b and b.qdd[i],
                                  f"joint {i + 1}'s acceleration")[0])
            except RangeError as error:
                raise RangeError(f"joint {i + 1}'s acceleration, {error}: no state within "
                                 f"the velocity and torque limits has it within its "
                                 f"acceleration limit") from None
            a = fit_spatial(vadd6(a, tuple(product(x, qdd[i]) for x in motions[i])),
                            b and b.a_w[i], b and b.a_v[i])
    return qdd


def vadd6(a, b):
    return tuple(total([x, y]) for x, y in zip(a, b))


def _to_parent(i, matrix, turns, twists, levers, fit_inertia, b):
    """``X^T K X``: the inertia ``matrix`` of frame ``i`` about ``O_i`` as frame ``i - 1`` sees it
    about ``O_{i-1}``: translated by ``p`` (``T^T K T``, ``T = [[1, 0], [-P, 1]]``, ``P`` the
    cross-product matrix of ``p``), then turned (``R K R^T``, ``R = diag(E^T, E^T)``)."""
    p = levers[i]
    lever = [[0, negate(p[2]), p[1]], [p[2], 0, negate(p[0])], [negate(p[1]), p[0], 0]]

    def block(r, c):
        return [[matrix[3 * r + j][3 * c + k] for k in range(3)] for j in range(3)]

    rot, mixed, lin = block(0, 0), block(0, 1), block(1, 1)
    # T^T K T = [[A - B P + P B^T - P M P, B + P M], [., M]].
    pm = [[total([product(lever[j][l], lin[l][k]) for l in range(3)]) for k in range(3)]
          for j in range(3)]

    def entry(j, k):
        if j >= 3:
            return lin[j - 3][k - 3]
        if k >= 3:
            return total([mixed[j][k - 3], pm[j][k - 3]])
        terms = [rot[j][k]]
        for l in range(3):
            terms += [negate(product(mixed[j][l], lever[l][k])),
                      product(lever[j][l], mixed[k][l]),
                      negate(product(pm[j][l], lever[l][k]))]
        return total(terms)

    moved = fit_inertia(_symmetric(entry), b and b.alpha_parent[i], b and b.mu[i])
    c, s = turns[i]
    ca, sa = twists[i]
    # R K R^T: every half-row turned out (K R^T), then the half-columns of the upper blocks.
    rows = [(*turn_out(c, s, ca, sa, row[:3]), *turn_out(c, s, ca, sa, row[3:]))
            for row in moved]
    columns = {}
    for k in range(6):
        for half in ((0,) if k < 3 else (0, 1)):
            turned = turn_out(c, s, ca, sa, [rows[3 * half + j][k] for j in range(3)])
            for j in range(3):
                columns[3 * half + j, k] = turned[j]
    return fit_inertia(_symmetric(lambda j, k: columns[j, k]), b and b.alpha_parent[i],
                       b and b.mu[i])
