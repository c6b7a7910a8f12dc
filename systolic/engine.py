"""The inertia matrix on the engine (:mod:`robohw.engine`): Table 1's algorithm (the linear
array's, :class:`~robohw.systolic.linear.LinearPlan`: the fewest operations of the two) traced
over the robot's constants as for the arrays, compiled onto pipelined multipliers, adders and
CORDICs over rotating register files, one configuration every initiation interval (II)."""

from amaranth.hdl import signed

from robohw.engine.component import Engine
from robohw.engine.plan import compile_plan
from robohw.systolic.codec import inertia_field, joint_field
from robohw.systolic.linear import LinearPlan

__all__ = ["InertiaEngine", "INERTIA_ENGINE_INTERVAL"]

# The default interval, cycles per configuration: the interval of the engine's throughput goal
# (ten million results a second at 100 MHz; docs/dynamics.md), not the dynamics engine's
# default (robohw.dynamics.inverse.engine.ENGINE_INTERVAL).
INERTIA_ENGINE_INTERVAL = 10


class InertiaEngine(Engine):
    """The upper triangle of H(q) on the engine, one configuration every ``interval`` cycles.

    Parameters
    ----------
    robot, width
        See :class:`~robohw.systolic.array.InertiaPlan` (Table 1's graph traced by
        :class:`~robohw.systolic.linear.LinearPlan` unfolded; its bit-exact model is
        :func:`robohw.systolic.model.model_outputs`'s).
    interval : int
        II, cycles per configuration, 2 to 1,024 (default :data:`INERTIA_ENGINE_INTERVAL`).
    multipliers, adders : int or None
        Units of each kind (default: a tenth more than the fewest the operations fit at the
        interval).
    tag_width : int
        User tag carried from ``i`` to ``o``.

    Members
    -------
    i, o
        The payloads of :class:`~robohw.systolic.array.InertiaArray`.

    Latency :attr:`~robohw.engine.component.Engine.latency` cycles (the program's output cycle
    and the output queue's two); one configuration every :attr:`interval` cycles.
    """

    def __init__(self, robot, *, width=24, interval=INERTIA_ENGINE_INTERVAL,
                 multipliers=None, adders=None, tag_width=0):
        plan = LinearPlan(robot, width=width)
        program = compile_plan(plan, interval, multipliers=multipliers, adders=adders)
        super().__init__(plan, program,
                         {joint_field(k): signed(width) for k in range(1, plan.dof + 1)},
                         {(j, i): inertia_field(j, i) for (j, i) in plan.output_fracs},
                         tag_width=tag_width)

    @property
    def dof(self):
        return self._plan.dof

    @property
    def input_fracs(self):
        return self._plan.input_fracs
