"""The gradient of inverse dynamics traced for hardware: ``dtau/dq`` and ``dtau/dqd`` by forward
mode through the link-frame Newton-Euler recursion
(:func:`~robohw.dynamics.inverse.link_frames.link_frame_steps`), every derivative a node of
the same graph as the torques, with proven ranges and error rules.

Each joint's ``q_j`` and ``qd_j`` is a direction (:mod:`robohw.dynamics.gradient.dual`): joint
``j``'s cos and sin have derivatives ``-sin`` and ``cos`` along ``q_j`` (wiring), a prismatic
joint's ``d`` has 1, ``qd_j`` has 1. The product rule makes two products and a sum of a
product of two values that both depend on a direction, one of a product where one does, and
nothing where neither does: link ``k``'s values do not depend on the joints beyond ``k``, so
the graph keeps the structure's zeros (the counts: ``docs/notes/2026-12-gradient-
formulations.md``). Every derivative vector's norm is bounded by
:class:`~robohw.dynamics.gradient.bounds.GradientBounds` where the recursion bounds its value,
so its format does not double at every turn as interval arithmetic would.

The joints' own terms: damping adds its constant on ``dtau/dqd``'s diagonal, armature and
Coulomb friction nothing (friction's derivative is 0 wherever ``qd_j`` is not; at ``qd_j = 0``,
where it steps, the plan gives the smooth part's, as the float64 reference does,
:mod:`robohw.dynamics.gradient.reference`).
"""

from robohw.dynamics.gradient.bounds import GradientBounds
from robohw.dynamics.gradient.dual import Dual, DualArith, dual
from robohw.dynamics.gradient.fields import gradient_field
from robohw.dynamics.inverse.link_frames import link_frame_steps
from robohw.dynamics.inverse.pipeline import NewtonEulerPlan
from robohw.robots.algebra import total
from robohw.robots.joint_type import JointType

__all__ = ["GradientPlan"]


class GradientPlan(NewtonEulerPlan):
    """``dtau/dq`` and ``dtau/dqd`` of a serial robot, traced (see the module docstring): the
    graph, every value's format and the schedule of
    :class:`~robohw.dynamics.inverse.pipeline.NewtonEulerPlan` over the same inputs (``q``,
    ``qd``, ``qdd``; ``in_bounds`` for the rates, accelerations and prismatic positions), its
    outputs keyed by :func:`~robohw.dynamics.gradient.fields.gradient_field`. Damping and
    Coulomb friction are accepted (the first adds a constant, the second nothing).
    Parameters: ``robot``, ``width``, ``trig_width`` as
    :class:`~robohw.dynamics.inverse.pipeline.NewtonEulerPlan`'s; the accuracy is
    :func:`~robohw.dynamics.gradient.accuracy.gradient_promise`'s, not checked here."""
    trig_integer_bits = 2
    # Friction is accepted (its derivative is 0), not built: no sign input is traced.
    coulomb = True
    design = "dynamics-gradient"

    def __init__(self, robot, *, width=32, trig_width=None):
        super().__init__(robot, width=width, trig_width=trig_width, bound_fraction=None)

    def _trace(self):
        robot, n = self._robot, self._robot.dof
        self.gradient_bounds = GradientBounds(robot)
        joints, qd, qdd = self._state_inputs()
        turns = []
        for i, (joint, value) in enumerate(zip(robot.joints, joints)):
            if joint.type == JointType.REVOLUTE:
                c, s = value
                turns.append((dual(c, {("q", i): -s}), dual(s, {("q", i): c})))
            else:
                turns.append(dual(value, {("q", i): 1.0}))
        rates = [dual(x, {("qd", i): 1.0}) for i, x in enumerate(qd)]
        tau = link_frame_steps(robot, turns, rates, [Dual(x, {}) for x in qdd],
                               DualArith(self.tracer), self.gradient_bounds)
        outputs = {}
        for wrt in ("q", "qd"):
            for i in range(n):
                slopes = tau[i].slopes if isinstance(tau[i], Dual) else {}
                for j in range(n):
                    entry = slopes.get((wrt, j), 0)
                    if wrt == "qd" and i == j and robot.joints[i].damping:
                        with self.tracer.cell("tau", None, i):
                            entry = total([entry, self.tracer.const(robot.joints[i].damping)])
                    outputs[gradient_field(i + 1, j + 1, wrt)] = entry
        return outputs
