"""Forward dynamics on the engine (:mod:`robohw.engine`): the articulated-body algorithm traced
with proven ranges (:class:`~robohw.dynamics.forward.plan.ArticulatedBodyPlan`), or the inertia
matrix solved (:class:`~robohw.dynamics.forward.solved_plan.SolvedInertiaPlan`, its rows
certified after the fact), compiled onto pipelined multipliers and adders, folded reciprocal
and reciprocal square root units (:mod:`robohw.hw.reciprocal`,
:mod:`robohw.hw.reciprocal_sqrt`, :func:`robohw.engine.machine.reciprocal_fold`) and CORDICs
over rotating register files, one state every initiation interval (II).

Its outputs: each joint's acceleration ``qdd{k}``, ``in_bounds`` (every field within the
limits the ranges are proven for) and ``checked`` (every check of the accelerations' assumed
ranges passed: :attr:`~robohw.dataflow.plan.TracedPlan.checks`); a row is valid where both
are high and its certificate is within the promise, as
:func:`robohw.dynamics.forward.files.solve_forward` judges the model's.
"""

from robohw.dynamics.forward.codec import acceleration_field, forward_fields
from robohw.dynamics.forward.plan import ArticulatedBodyPlan, ForwardPlan
from robohw.dynamics.forward.solved_plan import SolvedInertiaPlan
from robohw.engine.component import Engine
from robohw.engine.interval import INTERVAL_STEP, ROUTED_LUT_BUDGET, Budget, fitting_interval
from robohw.engine.partition import cell_partition
from robohw.engine.plan import compile_plan
from robohw.hw.checks import check_bool
from robohw.robots.toml_file import robot_digest

__all__ = ["ForwardDynamicsEngine", "forward_interval", "FORWARD_INTERVAL",
           "INTERVAL_STEP", "FORWARD_LUT_BUDGET", "BY_LOCALITY"]

# The PUMA 560's interval at its certified width by forward_interval's rule (tested).
FORWARD_INTERVAL = 56
# The estimated LUTs a default forward engine may take: what a large engine routes at
# (robohw.engine.interval.ROUTED_LUT_BUDGET's evidence).
FORWARD_LUT_BUDGET = ROUTED_LUT_BUDGET
# The design's and the commands' engines are built by locality (each link's operations on
# units and files of their own): placed flat, every seed's limit was a wire across the chip
# (docs/notes/2026-12-forward-engine-solved.md).
BY_LOCALITY = True


def forward_interval(plan, *, clustered=BY_LOCALITY):
    """The default interval of the engine of ``plan`` (a
    :class:`~robohw.dynamics.forward.plan.ForwardPlan`; by locality with ``clustered``): the
    smallest multiple of :data:`INTERVAL_STEP` whose engine is estimated within
    :data:`FORWARD_LUT_BUDGET` LUTs and the ECP5-85F's DSP tiles
    (:func:`~robohw.engine.interval.fitting_interval`: searched once and cached)."""
    solved = "" if plan.proven else " solved"
    by_locality = " clustered" if check_bool("clustered", clustered) else ""
    return fitting_interval(plan, Budget(FORWARD_LUT_BUDGET),
                            f"forward-dynamics {robot_digest(plan.robot)} {plan.width}{solved}"
                            f"{by_locality}", start=INTERVAL_STEP, step=INTERVAL_STEP,
                            partition=cell_partition(plan) if clustered else None)


class ForwardDynamicsEngine(Engine):
    """The joint accelerations of a serial robot on the engine, one state every ``interval``
    cycles.

    Parameters
    ----------
    robot, width, trig_width
        See :class:`~robohw.dynamics.forward.plan.ForwardPlan` (the traced algorithm; its
        bit-exact model is :func:`~robohw.dataflow.plan.checked_model_codes`).
    interval : int
        II, cycles per state, 2 to 1,024 (default :data:`FORWARD_INTERVAL`).
    multipliers, adders : int or None
        Units of each kind (default: the engine's for the operations at the interval).
    tag_width : int
        User tag carried from ``i`` to ``o``.
    solved : bool
        Build the inertia matrix solved
        (:class:`~robohw.dynamics.forward.solved_plan.SolvedInertiaPlan`) instead of the
        articulated-body algorithm (default ``False``).
    clustered : bool
        Build the engine by locality: each link's operations (the plan's cells) on units and
        register files of their own, values between clusters on registered hops
        (:func:`~robohw.engine.partition.cell_partition`; default ``False``).

    Members
    -------
    i : stream
        ``q{k}`` (binary angles for revolute joints), ``qd{k}``, ``tau{k}``
        (:func:`~robohw.dynamics.forward.codec.forward_fields`) and ``tag``.
    o : stream
        ``qdd{k}`` (``signed(width)``, the plan's ``output_fracs``), ``in_bounds``,
        ``checked`` and ``tag``.
    """

    def __init__(self, robot, *, width, interval=None, trig_width=None, multipliers=None,
                 adders=None, tag_width=0, solved=False, clustered=False):
        kind = SolvedInertiaPlan if check_bool("solved", solved) else ArticulatedBodyPlan
        self._assemble(kind(robot, width=width, trig_width=trig_width), interval, multipliers,
                       adders, tag_width, clustered)

    @classmethod
    def for_plan(cls, plan, *, interval=None, multipliers=None, adders=None, tag_width=0,
                 clustered=BY_LOCALITY):
        """The engine of ``plan``, a :class:`~robohw.dynamics.forward.plan.ForwardPlan` made
        already (:func:`~robohw.dynamics.forward.files.certified_plan`'s), as the design and
        the commands build it: by locality unless ``clustered`` is false (default
        :data:`BY_LOCALITY`); the other parameters as the constructor's."""
        if not isinstance(plan, ForwardPlan):
            raise TypeError(f"plan must be a ForwardPlan, not {type(plan).__name__}")
        engine = cls.__new__(cls)
        engine._assemble(plan, interval, multipliers, adders, tag_width, clustered)
        return engine

    def _assemble(self, plan, interval, multipliers, adders, tag_width, clustered):
        check_bool("clustered", clustered)
        program = compile_plan(plan, interval or FORWARD_INTERVAL, multipliers=multipliers,
                               adders=adders,
                               partition=cell_partition(plan) if clustered else None)
        super().__init__(plan, program, forward_fields(plan),
                         {k: acceleration_field(k) for k in range(1, plan.dof + 1)},
                         tag_width=tag_width, flag="in_bounds", checked="checked")

    @property
    def dof(self):
        return self._plan.dof
