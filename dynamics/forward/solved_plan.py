"""Forward dynamics traced for hardware as Walker and Orin's inertia matrix solved: ``H(q)`` by
the composite-rigid-body algorithm (:func:`robohw.systolic.reference.table1`), the bias ``b(q,
qd)`` by the link-frame inverse dynamics at zero accelerations
(:func:`~robohw.dynamics.inverse.link_frames.link_frame_steps`), then ``H qdd = tau - b`` (``tau``
less damping and Coulomb friction, as the articulated-body plan takes them) solved tip first
(:func:`~robohw.dynamics.forward.tip_first.tip_first_solve`), over the same inputs and payloads
as :class:`~robohw.dynamics.forward.plan.ArticulatedBodyPlan`.

Every range is proven (the composite inertias bound ``H``'s diagonal, the articulated inertias'
lower bounds its pivots, inverse dynamics' bounds the bias), but its results are checked, not
proven (:attr:`~robohw.dataflow.plan.TracedPlan.proven` false): the error analysis multiplies
each error by a divisor's range at every division and proves nothing at any width, where the
solve's real errors are far below a promise. So its formats come from the ranges alone, its
checks guard them, and each row is certified after the fact
(:mod:`robohw.dynamics.forward.certificate`).
"""

from robohw.dynamics.forward.plan import ForwardPlan, forward_inputs
from robohw.dynamics.forward.tip_first import tip_first_solve
from robohw.dynamics.inverse.bounds import DynamicsBounds
from robohw.dynamics.inverse.link_frames import link_frame_steps
from robohw.robots.algebra import difference
from robohw.systolic.reference import link_frames, table1

__all__ = ["SolvedInertiaPlan"]


class SolvedInertiaPlan(ForwardPlan):
    """The joint accelerations of a serial robot by the inertia matrix solved, traced: the
    graph, every value's format and the schedule (parameters:
    :class:`~robohw.dynamics.forward.plan.ForwardPlan`'s). Its payloads are the
    articulated-body plan's (``q``, ``qd``, ``tau`` in, ``qdd`` out), and so are its flags:
    ``in_bounds`` for the inputs, the checks for the accelerations (a register that overflows
    wraps, as the hardware's does, and the certificate fails the row)."""
    proven = False
    formulation = "the inertia matrix solved"

    def _trace(self):
        robot, bounds, n = self._robot, self.bounds, self._robot.dof
        joints, qd, tau = forward_inputs(self, robot, bounds)
        # The composite-rigid-body algorithm's frames need joints 2..N (H has no q1).
        inertia = table1(link_frames(robot), [None, *joints[1:]], self.tracer)
        h = {(j - 1, i - 1): value for (j, i), value in inertia.items()}
        bias = link_frame_steps(robot, joints, qd, [0.0] * n, self.tracer, DynamicsBounds(robot))
        rhs = []
        for k in range(n):
            with self.tracer.cell("rhs", None, k):
                rhs.append(difference(tau[k], bias[k]))
        qdd = tip_first_solve(h, rhs, self.tracer, bounds.d_max, bounds.d_min, bounds.qdd)
        return {k: value for k, value in enumerate(qdd, start=1)}
