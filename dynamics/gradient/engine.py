"""The gradient of inverse dynamics on the engine (:mod:`robohw.engine`): the traced plan
(:class:`~robohw.dynamics.gradient.plan.GradientPlan`, forward mode through the link-frame
recursion) compiled by locality onto pipelined multipliers, adders and CORDICs over rotating
register files, one state every initiation interval (II).

Its outputs: every entry of ``dtau/dq`` and ``dtau/dqd``
(:func:`~robohw.dynamics.gradient.codec.gradient_fields`) and ``in_bounds`` (every field within
the limits the ranges are proven for: only then is each entry within its bound).
"""

from robohw.dataflow.operations import Op
from robohw.dynamics.gradient.codec import gradient_fields
from robohw.dynamics.gradient.plan import GradientPlan
from robohw.dynamics.inverse.codec import state_fields
from robohw.engine.component import Engine
from robohw.engine.interval import INTERVAL_STEP, ROUTED_LUT_BUDGET, Budget, fitting_interval
from robohw.engine.partition import cell_partition
from robohw.engine.plan import compile_plan
from robohw.robots.toml_file import robot_digest

__all__ = ["GradientEngine", "gradient_interval", "GRADIENT_INTERVAL"]

# The PUMA 560's interval at its default width by gradient_interval's rule (tested).
GRADIENT_INTERVAL = 112


def gradient_interval(plan):
    """The default interval of the engine of ``plan`` (a
    :class:`~robohw.dynamics.gradient.plan.GradientPlan`): the smallest multiple of
    :data:`~robohw.engine.interval.INTERVAL_STEP` whose engine by locality is estimated within
    :data:`~robohw.engine.interval.ROUTED_LUT_BUDGET` LUTs and the ECP5-85F's DSP tiles
    (:func:`~robohw.engine.interval.fitting_interval`: searched once and cached)."""
    return fitting_interval(plan, Budget(ROUTED_LUT_BUDGET),
                            f"dynamics-gradient {robot_digest(plan.robot)} {plan.width}",
                            start=INTERVAL_STEP, step=INTERVAL_STEP,
                            partition=cell_partition(plan))


class GradientEngine(Engine):
    """``dtau/dq`` and ``dtau/dqd`` of a serial robot on the engine, one state every
    ``interval`` cycles, by locality: each link's operations on units and register files of
    their own, values between them on registered hops
    (:func:`~robohw.engine.partition.cell_partition`), every copy of a register and every
    file's addresses kept apart through synthesis (:class:`~robohw.engine.component.Engine`'s
    ``kept_copies`` and ``kept_addresses``: merged, one address register drove 72 output files
    across the chip).

    Parameters
    ----------
    plan : :class:`~robohw.dynamics.gradient.plan.GradientPlan`
        What is built (its bit-exact model is
        :func:`~robohw.dynamics.inverse.model.model_outputs`'s).
    interval : int
        II, cycles per state, 2 to 1,024 (default :func:`gradient_interval`'s).
    tag_width : int
        User tag carried from ``i`` to ``o``.

    Members
    -------
    i : stream
        ``q{k}`` (binary angles for revolute joints), ``qd{k}``, ``qdd{k}``
        (:func:`~robohw.dynamics.inverse.codec.state_fields`) and ``tag``.
    o : stream
        ``dtau{i}_dq{j}`` and ``dtau{i}_dqd{j}`` (``signed(width)``, the plan's
        ``output_fracs``), ``in_bounds`` and ``tag``.
    """

    def __init__(self, plan, *, interval=None, tag_width=0):
        if not isinstance(plan, GradientPlan):
            raise TypeError(f"plan must be a GradientPlan, not {type(plan).__name__}")
        if not any(plan.tracer.nodes[k].op != Op.INPUT for k in plan.live):
            robot = plan.robot
            raise ValueError(f"{robot.source or robot.name}: its gradient is constant (every "
                             f"entry 0, or a damping): the model gives it, no engine is built")
        program = compile_plan(plan, interval or gradient_interval(plan),
                               partition=cell_partition(plan))
        super().__init__(plan, program, state_fields(plan),
                         {key: key for key in gradient_fields(plan)},
                         tag_width=tag_width, flag="in_bounds", kept_addresses=True)

    @property
    def dof(self):
        return self._plan.dof
