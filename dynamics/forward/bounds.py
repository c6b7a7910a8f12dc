"""Proven bounds on the articulated-body algorithm's quantities
(:mod:`robohw.dynamics.forward.articulated_frames`) of a serial robot, from its link constants and
its joints' position, velocity, acceleration and torque limits.

Each bound is on a 3-vector's Euclidean norm (so on each component) or on a scalar. Notation as
in :mod:`robohw.dynamics.inverse.bounds` (link ``i`` 0-based; ``P_i`` the largest ``|p*_i|``,
``S_i = |s_i|``, ``J_i`` the Frobenius norm of the link's inertia about its centre of mass, ``m_i``;
``v_i`` the velocity limit, ``t_i`` the torque limit).

**Unconditional** (any state within the position, velocity and torque limits):

- velocities: ``|omega_i| <= W_i = W_{i-1} + v_i`` (revolute), ``|v_i| <= V_i = V_{i-1} +
  W_{i-1} P_i + |S_v| v_i``; ``c_i``: angular ``W_{i-1} v_i``, linear ``W_i |S_v| v_i + V_i
  |S_w| v_i``; the link's bias force from ``|I_i v_i|``.
- inertias: the articulated inertia ``K_i`` is positive semidefinite and at most (in the
  positive semidefinite order) the composite rigid inertia of links ``i..N-1``, so its entries
  obey ``|K_jk| <= sqrt(K_jj K_kk)`` with the composite's diagonal: ``alpha_i = sum_{k >= i}
  (J_k + m_k R_ik^2)`` (``R_ik = S_k + sum_{i < j <= k} P_j`` reaches link ``k``'s centre of
  mass from ``O_i``) for the angular block, ``mu_i = sum_{k >= i} m_k`` for the linear one, and
  so the blocks' norms. ``K - U U^T / D`` obeys the same.
- the divisor ``D_i``: at least :mod:`robohw.dynamics.forward.divisors`' lower bound (the armature,
  the link's own inertia about the joint's motion and the least the next link adds), at most
  the armature plus the composite's, ``alpha`` about ``O_{i-1}`` (revolute) or ``mu_i``.
- ``|U|``: ``|x^T K S| <= sqrt(x^T K x) sqrt(S^T K S)``, so ``|U_w| <= sqrt(alpha_i D_i)`` and
  ``g = U / sqrt(D)`` has ``|g_w| <= sqrt(alpha_i)``; the same with ``mu_i`` for the linear
  part.

**Where the accelerations are within their limits** (``|qdd_i| <=`` the acceleration limit:
the ranges a machine checks, :meth:`robohw.dataflow.graph.Tracer.assume`): every link's
spatial acceleration and every joint's transmitted force obey inverse dynamics' bounds
(:class:`robohw.dynamics.inverse.bounds.DynamicsBounds`; a spatial acceleration's linear part is the
origin's less ``omega x v``), so

- the articulated bias ``P_i = f_i - K_i a_i``: ``|n_i| + alpha |a_w| + beta |a_v|`` (``beta =
  sqrt(alpha mu)``), ``|f_i| + beta |a_w| + mu |a_v|``, checked;
- ``|u_i| <= t_i + damping v_i + friction + |S^T P_i|``, ``h = u / sqrt(D)`` that over
  ``sqrt(D_min)``; what link ``i`` hands its parent, ``P_i + K' c_i + g h``, term by term;
  translated, ``n + p x f``;
- ``a'_i = X a_{i-1} + c_i`` term by term, ``|U . a'| <= sqrt(S^T K S) sqrt(a'^T K a') <=
  sqrt(D) (sqrt(alpha) |a'_w| + sqrt(mu) |a'_v|)``, ``D qdd`` their sum, ``qdd`` the limit
  (checked), ``a_i`` the smaller of ``a'_i + S qdd`` and inverse dynamics' bound (the joints
  up to ``i`` checked by then).

A range that rests on the accelerations is used only where the checks before it (in the
graph's order) establish them: ``P_i`` is checked itself, ``a_i`` follows the checks of
``qdd_0 .. qdd_i``; everything else is what its operands' ranges imply.
"""

import math

from robohw.dynamics.forward.divisors import outboard_least, own_least
from robohw.dynamics.inverse.bounds import DynamicsBounds
from robohw.robots import is_urdf
from robohw.robots.joint_type import JointType
from robohw.robots.magnitudes import largest_value
from robohw.robots.urdf_sidecar import sidecar_path

__all__ = ["ForwardBounds"]

# The margin the exact lower bound of a divisor keeps below its float64 value.
_BELOW = 1 - 1e-9


class ForwardBounds:
    """The bounds above for ``robot`` (every joint needs ``velocity_limit``,
    ``acceleration_limit`` and ``torque_limit``; a prismatic joint its ``limits``). Lists are
    indexed by link, 0-based; ``d_own`` and ``d_min`` bound each joint's divisor ``D_i`` from
    below (the link alone; with the next link), ``d_max`` from above, ``qdd`` its
    acceleration."""

    def __init__(self, robot):
        missing = [f"joint {k}" for k, j in enumerate(robot.joints, start=1)
                   if j.velocity_limit is None or j.acceleration_limit is None or
                   not j.torque_limit]
        if missing:
            where = f" (or in its sidecar {sidecar_path(robot.source)})" \
                if is_urdf(robot.source) else ""
            raise ValueError(f"{robot.source or robot.name}: {', '.join(missing)}: forward "
                             f"dynamics needs every joint's velocity, acceleration and torque "
                             f"limits (velocity_limit, acceleration_limit and torque_limit, "
                             f"a URDF's <limit velocity effort>{where}): its number formats "
                             f"are proven from them")
        n = robot.dof
        joints = robot.joints
        revolute = [j.type == JointType.REVOLUTE for j in joints]
        velocity = [float(j.velocity_limit) for j in joints]
        self.p, self.s, inertia, mass = [], [], [], []
        for joint in joints:
            d = abs(joint.d) if joint.type == JointType.REVOLUTE else \
                max(abs(limit + joint.offset) for limit in joint.limits)
            self.p.append(math.hypot(joint.a, d))
            self.s.append(math.sqrt(sum(v * v for v in joint.com)))
            ixx, iyy, izz, ixy, iyz, ixz = joint.inertia
            inertia.append(math.sqrt(ixx * ixx + iyy * iyy + izz * izz +
                                     2 * (ixy * ixy + iyz * iyz + ixz * ixz)))
            mass.append(float(joint.mass))
        # |S_v|: |z x p| <= P for a revolute joint, 1 for a prismatic one; |S_w| 1 or 0.
        lever = [self.p[i] if revolute[i] else 1.0 for i in range(n)]
        self.rate_w = [velocity[i] if revolute[i] else 0.0 for i in range(n)]
        self.rate_v = [lever[i] * velocity[i] for i in range(n)]
        self.w, self.v, self.c_w, self.c_v = [], [], [], []
        self.h_n, self.h_f, self.p_n, self.p_f = [], [], [], []
        w_prev = v_prev = 0.0
        for i in range(n):
            w_i = w_prev + self.rate_w[i]
            v_i = v_prev + w_prev * self.p[i] + self.rate_v[i]
            self.w.append(w_i)
            self.v.append(v_i)
            self.c_w.append(w_prev * self.rate_w[i])
            self.c_v.append(w_i * self.rate_v[i] + v_i * self.rate_w[i])
            m, s = mass[i], self.s[i]
            self.h_n.append((inertia[i] + m * s * s) * w_i + m * s * v_i)
            self.h_f.append(m * (v_i + s * w_i))
            self.p_n.append(w_i * self.h_n[i] + v_i * self.h_f[i])
            self.p_f.append(w_i * self.h_f[i])
            w_prev, v_prev = w_i, v_i
        # The composite inertias' bounds about O_i and about O_{i-1}.
        self.alpha, self.alpha_parent, self.mu = [], [], []
        for i in range(n):
            reach = [self.s[k] + sum(self.p[i + 1:k + 1]) for k in range(i, n)]
            self.alpha.append(sum(inertia[k] + mass[k] * reach[k - i] ** 2 for k in range(i, n)))
            self.alpha_parent.append(sum(inertia[k] + mass[k] * (self.p[i] + reach[k - i]) ** 2
                                         for k in range(i, n)))
            self.mu.append(sum(mass[i:]))
        self.d_min, self.d_max, self.u_w, self.u_v = [], [], [], []
        self.d_own = []
        for i, joint in enumerate(joints):
            armature = float(joint.armature or 0.0)
            self.d_own.append(armature + own_least(joint) * _BELOW)
            outboard = outboard_least(joint, joints[i + 1]) if i + 1 < n else 0.0
            least = self.d_own[i] + outboard * _BELOW
            if not least > 0:
                name = getattr(joint, "name", "") or f"joint {i + 1}"
                raise ValueError(f"{robot.source or robot.name}: {name}: its link has no "
                                 f"inertia about the joint's motion and the joint no armature: "
                                 f"no lower bound on its articulated inertia is proven, so "
                                 f"forward dynamics cannot divide by it")
            rigid = self.alpha_parent[i] if revolute[i] else self.mu[i]
            self.d_min.append(least)
            self.d_max.append(armature + rigid)
            self.u_w.append(math.sqrt(self.alpha[i] * rigid))
            self.u_v.append(math.sqrt(self.mu[i] * rigid))
        self.gain_w = [math.sqrt(a) for a in self.alpha]
        self.gain_v = [math.sqrt(m) for m in self.mu]
        self.tau = [float(j.torque_limit) + float(j.damping or 0.0) * velocity[i] +
                    float(j.friction or 0.0) for i, j in enumerate(joints)]
        # What the accelerations within their limits allow (inverse dynamics' bounds): the
        # spatial accelerations (angular; linear of O_i, less omega x v) and the spatial force
        # each joint transmits (moment about O_i).
        physics = DynamicsBounds(robot)
        self.a_w = list(physics.omega_dot)
        self.a_v = [physics.p_ddot[i] + self.w[i] * self.v[i] for i in range(n)]
        gravity = math.sqrt(sum(g * g for g in robot.gravity))
        self.qdd = [float(j.acceleration_limit) for j in joints]
        # Inward: the articulated biases P_i = f_i - K_i a_i (checked: big_n, big_f), u and
        # what link i hands its parent, p_i + K' c_i + U u / D = f_i - K' X a_{i-1}.
        self.big_n, self.big_f, self.u = [0.0] * n, [0.0] * n, [0.0] * n
        self.kc_n, self.kc_f, self.uu_n, self.uu_f = [0.0] * n, [0.0] * n, [0.0] * n, [0.0] * n
        self.drive = [0.0] * n
        self.n_a, self.f_a, self.n_parent = [0.0] * n, [0.0] * n, [0.0] * n
        for i in reversed(range(n)):
            alpha, mu = self.alpha[i], self.mu[i]
            beta = math.sqrt(alpha * mu)
            moment = physics.n[i] + self.p[i] * physics.f[i]        # about O_i
            if i + 1 < n:
                self.big_n[i] = moment + alpha * self.a_w[i] + beta * self.a_v[i]
                self.big_f[i] = physics.f[i] + beta * self.a_w[i] + mu * self.a_v[i]
            else:                               # the last link's is its own bias force
                self.big_n[i], self.big_f[i] = self.p_n[i], self.p_f[i]
            along = self.big_n[i] + self.p[i] * self.big_f[i] if revolute[i] else self.big_f[i]
            self.u[i] = self.tau[i] + along
            self.kc_n[i] = alpha * self.c_w[i] + beta * self.c_v[i]
            self.kc_f[i] = beta * self.c_w[i] + mu * self.c_v[i]
            self.drive[i] = self.u[i] / math.sqrt(self.d_min[i])
            self.uu_n[i] = self.gain_w[i] * self.drive[i]
            self.uu_f[i] = self.gain_v[i] * self.drive[i]
            # Term by term: what the checked P_i and the unconditional terms imply (the
            # physics' f_i - K' X a_{i-1} would rest on accelerations not checked yet).
            self.n_a[i] = self.big_n[i] + self.kc_n[i] + self.uu_n[i]
            self.f_a[i] = self.big_f[i] + self.kc_f[i] + self.uu_f[i]
            self.n_parent[i] = self.n_a[i] + self.p[i] * self.f_a[i]
        # Outward: accelerations (a' before the joint's, then after it).
        parent_w = [0.0] + self.a_w[:-1]
        parent_v = [gravity] + self.a_v[:-1]
        self.a_w_in = [parent_w[i] + self.c_w[i] for i in range(n)]
        self.a_v_in = [parent_v[i] + parent_w[i] * self.p[i] + self.c_v[i] for i in range(n)]
        self.pushed = [math.sqrt(self.d_max[i] - float(joints[i].armature or 0.0)) *
                       (self.gain_w[i] * self.a_w_in[i] + self.gain_v[i] * self.a_v_in[i])
                       for i in range(n)]
        self.numerator = [self.u[i] + self.pushed[i] for i in range(n)]
        self.a_w = [min(self.a_w[i], self.a_w_in[i] + (self.qdd[i] if revolute[i] else 0.0))
                    for i in range(n)]
        self.a_v = [min(self.a_v[i], self.a_v_in[i] + lever[i] * self.qdd[i]) for i in range(n)]
        values = (*self.qdd, *self.n_a, *self.f_a, *self.alpha_parent)
        if not all(math.isfinite(v) for v in values):
            raise ValueError(f"{robot.source or robot.name}: the forward dynamics' bounds "
                             f"overflow float64 (its largest value: {largest_value(robot)}): "
                             f"no number format holds the accelerations")
