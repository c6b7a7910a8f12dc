"""Proven bounds on the Newton-Euler quantities of a serial robot in base coordinates, from its
link constants and its joints' position, velocity and acceleration limits.

Every bound is a bound on a vector's Euclidean norm, so each component obeys it too; the
hardware (:mod:`robohw.dynamics`) sizes its fixed-point formats from them
(:meth:`robohw.dataflow.graph.Tracer.bound`), where interval arithmetic alone would double a
range at every cross product. Notation as in
:func:`robohw.dynamics.inverse.reference.base_coordinate_steps`
(link ``i`` 0-based; ``v_i``, ``a_i`` the joint's velocity and acceleration limits):

- ``|omega_i| <= W_i = sum_{j <= i, revolute} v_j`` (``W_{-1} = 0``);
- ``|omega-dot_i| <= Wd_i = Wd_{i-1} + a_i + W_{i-1} v_i`` for a revolute joint (the
  ``b`` of eq. (19): ``z qdd + omega_{i-1} x z qd``), ``Wd_{i-1}`` for a prismatic one;
- ``|p-ddot_i| <= A_i = A_{i-1} + (Wd_i + W_i^2) P_i`` (+ ``a_i + 2 W_{i-1} v_i`` for a
  prismatic joint), ``A_{-1} = |g|``, ``P_i`` the largest ``|p*_i|``;
- ``|r-ddot_i| <= (Wd_i + W_i^2) S_i + A_i`` (``S_i = |s_i|``), ``|F_i| <= m_i |r-ddot_i|``;
- ``|N_i| <= ||J_i||_F (Wd_i + W_i^2)`` (the Frobenius norm bounds the spectral norm of any
  matrix, physical or not);
- ``|f_i| <= sum_{j >= i} |F_j|`` (plus the hand's force), ``|n_i| <= sum_{j >= i} (|N_j| +
  (P_j + S_j) |F_j| + P_j |f_{j+1}|)`` (plus the hand's moment); ``|tau_i| <= |n_i|`` or
  ``|f_i|``.

The recursion is written over any numbers with ``+`` and ``*`` and marks where a vector is
turned by a joint's rotation (:meth:`DynamicsBounds._turned`): a subclass's numbers may carry
more than a norm (the gradient's bounds on derivatives,
:class:`robohw.dynamics.gradient.bounds.GradientBounds`). The vectors turned into a frame have
bounds of their own, equal to their sources' here: ``a_in[i]`` (the acceleration entering link
``i``, turned into frame ``i``), ``f_out[i]`` and ``n_out[i]`` (``f_i`` and ``n_i`` turned into
frame ``i - 1``).
"""

import math

from robohw.robots import is_urdf
from robohw.robots.joint_type import JointType
from robohw.robots.magnitudes import largest_value
from robohw.robots.sampling import missing_limits
from robohw.robots.urdf_sidecar import sidecar_path

__all__ = ["DynamicsBounds"]


class DynamicsBounds:
    """The bounds above for ``robot`` (every joint needs ``velocity_limit`` and
    ``acceleration_limit``; a prismatic joint its ``limits``), and for a hand wrench of at most
    ``hand_force`` (N) and ``hand_moment`` (N m). Lists are indexed by link, 0-based."""

    def __init__(self, robot, hand_force=0.0, hand_moment=0.0):
        missing = missing_limits(robot)
        if missing:
            where = f"; give them in its sidecar {sidecar_path(robot.source)}" \
                if is_urdf(robot.source) else ""
            raise ValueError(f"{robot.source or robot.name}: {missing} (the bounds the "
                             f"hardware's number formats are proven from{where})")
        n = robot.dof
        self.revolute = [joint.type == JointType.REVOLUTE for joint in robot.joints]
        self.velocity = [self._rate(i, joint.velocity_limit)
                         for i, joint in enumerate(robot.joints)]
        self.acceleration = [joint.acceleration_limit for joint in robot.joints]
        self.p, self.s = [], []
        for i, joint in enumerate(robot.joints):
            if joint.type == JointType.REVOLUTE:
                self.p.append(math.hypot(joint.a, joint.d))
            else:
                d = max(abs(limit + joint.offset) for limit in joint.limits)
                self.p.append(self._position(i, math.hypot(joint.a, d)))
            self.s.append(math.sqrt(sum(v * v for v in joint.com)))
        w, wd, acc = [], [], []
        w_prev = wd_prev = 0.0
        acc_prev = math.sqrt(sum(g * g for g in robot.gravity))
        self.spin, self.wd_b, self.acc_b, self.a_in = [], [], [], []
        for i in range(n):
            v, a = self.velocity[i], self.acceleration[i]
            spin = v if self.revolute[i] else 0.0
            wd_b = a + w_prev * v if self.revolute[i] else 0.0
            w_i, wd_i = self._turned(i, w_prev + spin), self._turned(i, wd_prev + wd_b)
            acc_b = (wd_i + w_i * w_i) * self.p[i]
            if not self.revolute[i]:
                acc_b = acc_b + (a + 2 * w_prev * v)
            self.a_in.append(self._turned(i, acc_prev))
            acc_i = self.a_in[i] + acc_b
            self.spin.append(spin)
            self.wd_b.append(wd_b)
            self.acc_b.append(acc_b)
            w.append(w_i)
            wd.append(wd_i)
            acc.append(acc_i)
            w_prev, wd_prev, acc_prev = w_i, wd_i, acc_i
        self.omega, self.omega_dot, self.p_ddot = w, wd, acc
        self.r_ddot = [(wd[i] + w[i] * w[i]) * self.s[i] + acc[i] for i in range(n)]
        self.force = [joint.mass * self.r_ddot[i] for i, joint in enumerate(robot.joints)]
        self.inertia = []
        for joint in robot.joints:
            ixx, iyy, izz, ixy, iyz, ixz = joint.inertia
            self.inertia.append(math.sqrt(ixx * ixx + iyy * iyy + izz * izz +
                                          2 * (ixy * ixy + iyz * iyz + ixz * ixz)))
        self.moment = [self.inertia[i] * (wd[i] + w[i] * w[i]) for i in range(n)]
        # f[i]: |f_i|; f[n]: the hand's force; likewise n and the moments.
        f, moments = [0.0] * (n + 1), [0.0] * (n + 1)
        self.f_out, self.n_out = [0.0] * (n + 1), [0.0] * (n + 1)
        f[n] = self.f_out[n] = hand_force
        moments[n] = self.n_out[n] = hand_moment
        self.n_b = [0.0] * n
        for i in reversed(range(n)):
            if i + 1 < n:
                self.f_out[i + 1] = self._turned(i + 1, f[i + 1])
                self.n_out[i + 1] = self._turned(i + 1, moments[i + 1])
            f[i] = self.f_out[i + 1] + self.force[i]
            self.n_b[i] = (self.moment[i] + (self.p[i] + self.s[i]) * self.force[i] +
                           self.p[i] * self.f_out[i + 1])
            moments[i] = self.n_out[i + 1] + self.n_b[i]
        self.f, self.n = f, moments
        self.tau = [moments[i] if self.revolute[i] else f[i] for i in range(n)]
        if not all(math.isfinite(v) for v in (*self.r_ddot, *self.moment, *f, *moments)):
            raise ValueError(f"{robot.source or robot.name}: the dynamics' bounds overflow "
                             f"float64 (its largest value: {largest_value(robot)}): no number "
                             f"format holds the torques")

    # --- the numbers' hooks: plain norms here --------------------------------------------
    def _rate(self, i, limit):
        """Joint ``i``'s velocity limit as this recursion's number."""
        return limit

    def _position(self, i, limit):
        """Prismatic joint ``i``'s largest ``|p*_i|`` as this recursion's number."""
        return limit

    def _turned(self, i, bound):
        """The bound of a vector turned by joint ``i``'s rotation (the norm is unchanged)."""
        return bound
