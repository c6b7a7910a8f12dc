"""The Newton-Euler inverse dynamics on the engine (:mod:`robohw.engine`): the equations in link
frames (:mod:`robohw.dynamics.inverse.link_frames`, the robot's constants folded) traced with proven
ranges, compiled onto pipelined multipliers, adders and CORDICs over rotating register files,
one state every initiation interval (II).
"""

from robohw.dynamics.inverse.accuracy import BOUND_FRACTION, narrowing_room
from robohw.dynamics.inverse.codec import state_fields, torque_field
from robohw.dynamics.inverse.link_frames import link_frame_steps
from robohw.dynamics.inverse.pipeline import NewtonEulerPlan
from robohw.engine.component import Engine
from robohw.engine.partition import cell_partition
from robohw.engine.plan import compile_plan
from robohw.hw.checks import check_bool

__all__ = ["LinkFramePlan", "NewtonEulerEngine", "ENGINE_INTERVAL"]

# The default interval: a state every 5 cycles, twenty million torque vectors a second at
# 100 MHz, for the PUMA 560 at its 18 bits (its placed and routed figures on seeds 1-3:
# docs/results.md; the curve over II: docs/dynamics.md).
ENGINE_INTERVAL = 5


class LinkFramePlan(NewtonEulerPlan):
    """The Newton-Euler equations in link frames
    (:func:`~robohw.dynamics.inverse.link_frames.link_frame_steps`) traced with the formats and
    accuracy of :class:`~robohw.dynamics.inverse.pipeline.NewtonEulerPlan`: what
    :class:`NewtonEulerEngine` compiles. Its cos and sin carry one fraction bit more than the
    CORDIC's default (:attr:`~robohw.dataflow.plan.TracedPlan.trig_integer_bits` 2): their
    errors, turned through every later link, weigh most in the proven bound. Coulomb friction is
    built (:attr:`~robohw.dynamics.inverse.pipeline.NewtonEulerPlan.coulomb`).

    With ``narrowed``, the products whose narrowed operands keep each joint's bound within
    :func:`~robohw.dynamics.inverse.accuracy.narrowing_room` take them
    (:mod:`robohw.dataflow.narrowing`): one DSP tile a product and no fabric."""
    trig_integer_bits = 2
    coulomb = True
    design = "engine"

    def __init__(self, robot, *, narrowed=False, **options):
        self._narrowed = check_bool("narrowed", narrowed)
        super().__init__(robot, **options)

    def _replan(self, robot, width):
        return LinkFramePlan(robot, width=width, bound_fraction=None, narrowed=self._narrowed)

    def _narrowing_room(self):
        return narrowing_room(self) if self._narrowed else None

    def _torques(self, joints, qd, qdd):
        return link_frame_steps(self._robot, joints, qd, qdd, self.tracer, self.bounds)


class NewtonEulerEngine(Engine):
    """The joint torques of a serial robot on the engine, one state every ``interval`` cycles.

    Parameters
    ----------
    robot, width, trig_width, bound_fraction
        See :class:`~robohw.dynamics.inverse.pipeline.NewtonEulerPlan` (the equations traced
        by :class:`LinkFramePlan`; the bit-exact model is
        :func:`robohw.dynamics.inverse.model.model_outputs`'s).
    interval : int
        II, cycles per state, 2 to 1,024 (default :data:`ENGINE_INTERVAL`).
    multipliers, adders : int or None
        Units of each kind (default: the fewest the operations fit at the interval and a
        tenth spare, :meth:`~robohw.engine.machine.Machine.for_plan`).
    clustered : bool
        The engine by locality: each link's operations (a light link's with its neighbour's)
        on a cluster of units and register files of its own, values between clusters on
        registered hops (:func:`~robohw.engine.partition.cell_partition`); its units counted
        by cluster (no ``multipliers`` or ``adders``). Default: one flat machine.
    narrowed : bool
        The products that keep each joint's bound within its room take operands narrowed to a
        DSP tile's 18 bits, on multipliers of their own (:class:`LinkFramePlan`). Default: every
        product at the full width.
    tag_width : int
        User tag carried from ``i`` to ``o``.

    Members
    -------
    i, o
        The payloads of :class:`~robohw.dynamics.inverse.pipeline.NewtonEulerPipeline`.
    """

    def __init__(self, robot, *, width=24, interval=None, trig_width=None,
                 multipliers=None, adders=None, clustered=False, narrowed=False, tag_width=0,
                 bound_fraction=BOUND_FRACTION):
        check_bool("clustered", clustered)
        plan = LinkFramePlan(robot, width=width, trig_width=trig_width,
                             bound_fraction=bound_fraction, narrowed=narrowed)
        program = compile_plan(plan, interval or ENGINE_INTERVAL, multipliers=multipliers,
                               adders=adders,
                               partition=cell_partition(plan) if clustered else None)
        super().__init__(plan, program, state_fields(plan),
                         {k: torque_field(k) for k in range(1, plan.dof + 1)},
                         tag_width=tag_width, flag="in_bounds")

    @property
    def dof(self):
        return self._plan.dof
