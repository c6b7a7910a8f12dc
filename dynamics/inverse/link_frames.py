"""The Newton-Euler recursion of Luh, Walker & Paul in link frames, written over scalars for
hardware: what the engine (:mod:`robohw.dynamics.inverse.engine`) traces.

Every vector of link ``i`` is expressed in its own frame ``i`` (standard DH: ``^{i-1}R_i =
Rz(theta_i) Rx(alpha_i)``). Turning a vector from frame ``i - 1`` into frame ``i`` is
``Rz(theta)^T`` (four products of the joint's cos and sin) then ``Rx(alpha)^T``, a signed
permutation for the hardware form's twists (multiples of 90 degrees: no product). The robot's
constants are folded exactly: ``omega x (omega x r)`` and ``omega x (I omega)`` are constant
combinations of the six monomials of ``omega`` (``wx^2, wy^2, wz^2, wx wy, wy wz, wx wz``), and
each link's force ``F`` and moment ``G = (p* + s) x F + N`` (the part of ``n_i`` the link
itself adds) are constant combinations of its incoming acceleration, ``omega-dot`` and the
monomials; the combinations' coefficients are computed in exact rational arithmetic from the
robot's float64 constants and rounded once.

Notation as in :func:`robohw.dynamics.inverse.reference.link_frame_torques` (link ``i`` 0-based;
``a`` the acceleration of frame ``i``'s origin, gravity as the base accelerating upwards; ``f_i``,
``n_i`` what link ``i - 1`` exerts on link ``i``, ``n_i`` about the origin of frame ``i - 1``):

- outward: ``omega_i = R^T (omega_{i-1} + z qd_i)``, ``omega-dot_i = R^T (omega-dot_{i-1} + z
  qdd_i + omega_{i-1} x z qd_i)``, ``a_i = R^T a_{i-1} + omega-dot_i x p*_i + omega_i x
  (omega_i x p*_i)`` (a prismatic joint: ``omega`` only turned, ``a_i`` plus ``z qdd + 2 omega_i
  x z qd``);
- ``F_i = m_i (a_i + omega-dot_i x s_i + omega_i x (omega_i x s_i))``, ``N_i = I_i omega-dot_i
  + omega_i x I_i omega_i``;
- inward: ``g = ^iR_{i+1} f_{i+1}``, ``f_i = g + F_i``, ``n_i = ^iR_{i+1} n_{i+1} + p*_i x g +
  G_i``; ``tau_i = z_{i-1} . n_i`` (``. f_i`` for a prismatic joint), ``z_{i-1}`` in frame ``i``
  being ``(0, sin alpha_i, cos alpha_i)``.

Every vector's norm is bounded by :class:`robohw.dynamics.inverse.bounds.DynamicsBounds` (norms do
not depend on the frame), handed to ``arith.bound`` as in
:func:`robohw.dynamics.inverse.reference.base_coordinate_steps`.
"""

import math
from fractions import Fraction

from robohw.robots.algebra import cross, difference, dot, negate, product, snap, total, vadd
from robohw.robots.joint_type import JointType

__all__ = ["link_frame_steps", "MONOMIALS", "turn_into", "turn_out"]

# The monomials of omega's components, as index pairs.
MONOMIALS = ((0, 0), (1, 1), (2, 2), (0, 1), (1, 2), (0, 2))
_ZERO = (0, 0, 0)


def _monomial(a, b):
    return MONOMIALS.index((min(a, b), max(a, b)))


def _cross_matrix(r):
    """``C`` with ``C v = v x r`` (exact)."""
    x, y, z = r
    return [[0, z, -y], [-z, 0, x], [y, -x, 0]]


def _lever_matrix(r):
    """``C`` with ``C v = r x v`` (exact)."""
    x, y, z = r
    return [[0, -z, y], [z, 0, -x], [-y, x, 0]]


def _double_cross(r):
    """The 3 x 6 coefficients of ``omega x (omega x r) = omega (omega . r) - r |omega|^2`` over
    :data:`MONOMIALS`."""
    out = [[Fraction(0)] * 6 for _ in range(3)]
    for k in range(3):
        for j in range(3):
            out[k][_monomial(k, j)] += r[j]
            out[k][_monomial(j, j)] -= r[k]
    return out


def _gyroscopic(inertia):
    """The 3 x 6 coefficients of ``omega x (I omega)`` over :data:`MONOMIALS`:
    ``sum_{j,l,m} eps_{kjl} I_{lm} w_j w_m``."""
    out = [[Fraction(0)] * 6 for _ in range(3)]
    for k in range(3):
        j, l = (k + 1) % 3, (k + 2) % 3           # eps_{kjl} = 1; eps_{klj} = -1
        for m in range(3):
            out[k][_monomial(j, m)] += inertia[l][m]
            out[k][_monomial(l, m)] -= inertia[j][m]
    return out


def _matmul(a, b):
    return [[sum((a[r][k] * b[k][c] for k in range(len(b))), Fraction(0))
             for c in range(len(b[0]))] for r in range(len(a))]


def _add(*matrices):
    return [[sum(column, Fraction(0)) for column in zip(*rows)] for rows in zip(*matrices)]


def _identity(k=1):
    return [[Fraction(k) if r == c else Fraction(0) for c in range(3)] for r in range(3)]


def _zeros(rows, columns):
    return [[Fraction(0)] * columns for _ in range(rows)]


def _side_by_side(*blocks):
    return [sum((list(block[r]) for block in blocks), []) for r in range(3)]


def _combine(matrix, variables, arith):
    """``matrix @ variables`` over scalars, each coefficient rounded once to float64; zero
    coefficients cost nothing."""
    return tuple(total([product(arith.const(float(k)), x) for k, x in zip(row, variables)
                        if k and not (isinstance(x, (int, float)) and x == 0)])
                 for row in matrix)


def _cost(matrix):
    """``(products, sums)`` of ``matrix @ variables``: a coefficient of 0 costs nothing, one of
    +-1 a sum without a product."""
    terms = [sum(1 for k in row if k) for row in matrix]
    return (sum(1 for row in matrix for k in row if k not in (0, 1, -1)),
            sum(max(count - 1, 0) for count in terms))


def _link_moment(lever, f_matrix, own_matrix, force, variables, arith):
    """``lever x F + own @ variables``, the cheaper of two ways (fewer products, then fewer
    sums): ``F``'s nodes crossed with the constant ``lever``, or one combination of the
    ``variables`` with ``lever x F`` folded into it."""
    folded = _add(_matmul(_lever_matrix(lever), f_matrix), own_matrix)
    crossed = _cost(_lever_matrix(lever)), _cost(own_matrix)
    crossed = (crossed[0][0] + crossed[1][0], crossed[0][1] + crossed[1][1] + 3)
    if _cost(folded) <= crossed:
        return _combine(folded, variables, arith)
    return vadd(_combine(_lever_matrix(lever), force, arith),
                _combine(own_matrix, variables, arith))


def turn_into(c, s, ca, sa, v):
    """``Rx(alpha)^T Rz(theta)^T v``: the vector ``v`` of frame ``i - 1`` in frame ``i``."""
    x = total([product(c, v[0]), product(s, v[1])])
    y = difference(product(c, v[1]), product(s, v[0]))
    return (x, total([product(ca, y), product(sa, v[2])]),
            difference(product(ca, v[2]), product(sa, y)))


def turn_out(c, s, ca, sa, v):
    """``Rz(theta) Rx(alpha) v``: the vector ``v`` of frame ``i`` in frame ``i - 1``."""
    y = difference(product(ca, v[1]), product(sa, v[2]))
    return (difference(product(c, v[0]), product(s, y)), total([product(s, v[0]), product(c, y)]),
            total([product(sa, v[1]), product(ca, v[2])]))


def link_frame_steps(robot, joints, qd, qdd, arith, bounds=None):
    """The ``N`` joint torques (forces) of a standard-DH ``robot`` over scalars, no tool
    wrench.

    ``joints[i]``: joint ``i + 1``'s input, ``(cos, sin)`` of ``q + offset`` (revolute) or ``q +
    offset`` (prismatic); ``qd[i]``, ``qdd[i]``: its rate and acceleration; ``arith``: see
    :mod:`robohw.robots.algebra`; ``bounds``: a
    :class:`robohw.dynamics.inverse.bounds.DynamicsBounds` whose norm bounds are handed to
    ``arith.bound`` (the hardware's proven ranges). Link ``i``'s outward work runs in
    ``arith.cell("outward", None, i)``, its inward work in ``arith.cell("inward", None, i)``.
    """
    n = robot.dof
    members = robot.joints
    const = arith.const

    def fit(vector, limit):
        return vector if bounds is None else arith.bound(vector, limit)

    twists = [(snap(math.cos(j.alpha)), snap(math.sin(j.alpha))) for j in members]
    turns = []
    for joint, value in zip(members, joints):
        if joint.type == JointType.REVOLUTE:
            turns.append(value)
        else:
            turns.append((const(snap(math.cos(joint.theta))),
                          const(snap(math.sin(joint.theta)))))
    gravity = tuple(const(-g) for g in robot.gravity)
    w, dw, acc = _ZERO, _ZERO, gravity
    forward = []                  # per link: (F, G, p)
    for i, joint in enumerate(members):
        ca, sa = (const(v) for v in twists[i])
        c, s = turns[i]
        revolute = joint.type == JointType.REVOLUTE
        mass = Fraction(joint.mass)
        com = [Fraction(v) for v in joint.com]
        ixx, iyy, izz, ixy, iyz, ixz = (Fraction(v) for v in joint.inertia)
        inertia = [[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]
        with arith.cell("outward", None, i):
            w_before = bounds and (bounds.omega[i - 1] if i else 0.0)
            if revolute:
                spun = (w[0], w[1], total([w[2], qd[i]]))
                turning = (product(w[1], qd[i]), negate(product(w[0], qd[i])), 0)
                turning = fit(turning, bounds and bounds.velocity[i] * w_before)
                dspun = fit(vadd(vadd(dw, (0, 0, qdd[i])), turning),
                            bounds and bounds.omega_dot[i])
                w_i = fit(turn_into(c, s, ca, sa, fit(spun, bounds and bounds.omega[i])),
                          bounds and bounds.omega[i])
                dw_i = fit(turn_into(c, s, ca, sa, dspun), bounds and bounds.omega_dot[i])
            else:
                w_i = fit(turn_into(c, s, ca, sa, w), bounds and bounds.omega[i])
                dw_i = fit(turn_into(c, s, ca, sa, dw), bounds and bounds.omega_dot[i])
            a_in = fit(turn_into(c, s, ca, sa, acc), bounds and bounds.a_in[i])
            spin = bounds and bounds.omega[i] ** 2
            monomials = tuple(fit([product(w_i[a], w_i[b])], bounds and (
                spin if a == b else spin / 2))[0] for a, b in MONOMIALS)
            variables = (*a_in, *dw_i, *monomials)
            # N_i = I omega-dot_i + omega_i x I omega_i, over the variables.
            own = _side_by_side(_zeros(3, 3), inertia, _gyroscopic(inertia))
            if revolute:
                p = [Fraction(joint.a), Fraction(joint.d) * Fraction(twists[i][1]),
                     Fraction(joint.d) * Fraction(twists[i][0])]
                lever = [x + y for x, y in zip(p, com)]
                # a_i, F_i and G_i as constant combinations of (a_in, omega-dot_i, monomials).
                a_matrix = _side_by_side(_identity(), _cross_matrix(p), _double_cross(p))
                f_matrix = _side_by_side(_identity(mass), _cross_matrix(
                    [mass * x for x in lever]), _double_cross([mass * x for x in lever]))
                acc = fit(_combine(a_matrix, variables, arith), bounds and bounds.p_ddot[i])
                force = fit(_combine(f_matrix, variables, arith), bounds and bounds.force[i])
                g_link = fit(_link_moment(lever, f_matrix, own, force, variables, arith),
                             bounds and ((bounds.p[i] + bounds.s[i]) * bounds.force[i] +
                                         bounds.moment[i]))
                p_nodes = tuple(const(float(v)) for v in p)
            else:
                # p*_i = (a, d sin alpha, d cos alpha) with d the joint's input.
                d = joints[i]
                p_nodes = (const(joint.a), product(d, sa), product(d, ca))
                p_nodes = fit(p_nodes, bounds and bounds.p[i])
                axis = (0, sa, ca)
                swept = fit(cross(w_i, p_nodes), bounds and bounds.omega[i] * bounds.p[i])
                slide = fit(cross(w_i, tuple(product(qd[i], x) for x in axis)),
                            bounds and bounds.omega[i] * bounds.velocity[i])
                sweep = vadd(fit(cross(dw_i, p_nodes), bounds and
                                 bounds.omega_dot[i] * bounds.p[i]),
                             fit(cross(w_i, swept), bounds and bounds.omega[i] ** 2 * bounds.p[i]))
                glide = vadd(tuple(product(qdd[i], x) for x in axis),
                             tuple(product(const(2.0), x) for x in slide))
                acc = fit(vadd(vadd(a_in, sweep), glide), bounds and bounds.p_ddot[i])
                variables = (*acc, *dw_i, *monomials)
                com_m = [mass * x for x in com]
                f_matrix = _side_by_side(_identity(mass), _cross_matrix(com_m),
                                         _double_cross(com_m))
                force = fit(_combine(f_matrix, variables, arith), bounds and bounds.force[i])
                own = fit(_link_moment(com, f_matrix, own, force, variables, arith),
                          bounds and bounds.s[i] * bounds.force[i] + bounds.moment[i])
                g_link = fit(vadd(fit(cross(p_nodes, force), bounds and
                                      bounds.p[i] * bounds.force[i]), own),
                             bounds and (bounds.p[i] + bounds.s[i]) * bounds.force[i] +
                             bounds.moment[i])
        forward.append((force, g_link, p_nodes))
        w, dw = w_i, dw_i

    tau = [0] * n
    f_next = n_next = _ZERO
    for i in reversed(range(n)):
        force, g_link, p_nodes = forward[i]
        with arith.cell("inward", None, i):
            if i + 1 < n:
                ca, sa = (const(v) for v in twists[i + 1])
                c, s = turns[i + 1]
                g = fit(turn_out(c, s, ca, sa, f_next), bounds and bounds.f_out[i + 1])
                moment = fit(turn_out(c, s, ca, sa, n_next), bounds and bounds.n_out[i + 1])
            else:
                g = moment = _ZERO
            f_i = fit(vadd(g, force), bounds and bounds.f[i])
            lever = fit(cross(p_nodes, g), bounds and bounds.p[i] * bounds.f_out[i + 1])
            n_i = fit(vadd(vadd(moment, lever), g_link), bounds and bounds.n[i])
            axis = (0, const(twists[i][1]), const(twists[i][0]))
            tau[i] = dot(n_i if members[i].type == JointType.REVOLUTE else f_i, axis)
        f_next, n_next = f_i, n_i
    return tau
