"""The Newton-Euler inverse dynamics on the engine (:mod:`robohw.engine`): Lee & Chang's
base-coordinate steps traced as for the pipeline, compiled onto pipelined multipliers, adders
and CORDICs over rotating register files, one state every initiation interval (II).

The recurrences are serial scans by default: on the PUMA 560 they trace 519 products and 378
sums a state against the recursive-doubling scans' 586 and 462, at one level more of the
graph's depth (61 against 62 levels of registered operations), so the fewest units at an
interval are fewer.
"""

from robohw.dataflow.states import state_fields, torque_field
from robohw.dynamics.accuracy import BOUND_FRACTION
from robohw.dynamics.pipeline import NewtonEulerPlan
from robohw.dynamics.scans import doubling_schedule, run_schedule, serial_schedule
from robohw.engine.component import Engine
from robohw.engine.plan import CompiledPlan
from robohw.hw.checks import check_choice

__all__ = ["ScanPlan", "EnginePlan", "NewtonEulerEngine", "SCANS", "ENGINE_INTERVAL"]

SCANS = {"serial": serial_schedule, "doubling": doubling_schedule}
# The default interval: the smallest whose PUMA 560 engine (20 bits) routes at 100 MHz or more
# on every placement seed on the ECP5-85F (the figures over II: docs/results.md and
# docs/dynamics.md).
ENGINE_INTERVAL = 128


class ScanPlan(NewtonEulerPlan):
    """The traced equations of :class:`~robohw.dynamics.pipeline.NewtonEulerPlan` with their
    recurrences as ``scan`` (:data:`SCANS`) scans: what :class:`EnginePlan` compiles."""

    def __init__(self, robot="puma560", *, width=24, scan="serial", trig_width=None,
                 bound_fraction=BOUND_FRACTION):
        self.scan = check_choice("scan", scan, SCANS)
        super().__init__(robot, width=width, trig_width=trig_width,
                         bound_fraction=bound_fraction)

    def _replan(self, robot, width):
        return ScanPlan(robot, width=width, scan=self.scan, bound_fraction=None)

    def _scan(self, phase, elements, combine):
        return run_schedule(SCANS[self.scan](len(elements)), elements, combine,
                            at=lambda step, pe: self.tracer.cell(phase, step, pe))


class EnginePlan(CompiledPlan, ScanPlan):
    """What :class:`NewtonEulerEngine` is built from: the traced equations and their formats
    (:class:`ScanPlan`; its bit-exact model is :func:`robohw.dynamics.model.model_outputs`'s),
    the :attr:`machine` and the compiled :attr:`program`.

    Parameters
    ----------
    robot, width, trig_width, bound_fraction
        See :class:`~robohw.dynamics.pipeline.NewtonEulerPlan`.
    interval : int
        II, cycles per state, 2 to 1,024 (default :data:`ENGINE_INTERVAL`).
    scan : str
        ``"serial"`` (default) or ``"doubling"``: how the recurrences are traced.
    multipliers, adders : int or None
        Units of each kind (default: the fewest the operations fit at the interval).
    """

    def __init__(self, robot="puma560", *, width=24, interval=ENGINE_INTERVAL, scan="serial",
                 trig_width=None, multipliers=None, adders=None,
                 bound_fraction=BOUND_FRACTION):
        super().__init__(robot, width=width, scan=scan, trig_width=trig_width,
                         bound_fraction=bound_fraction)
        self.compile(interval, multipliers=multipliers, adders=adders)


class NewtonEulerEngine(Engine):
    """The joint torques of a serial robot on the engine, one state every ``interval`` cycles.

    Parameters
    ----------
    robot, width, interval, scan, trig_width, multipliers, adders, bound_fraction
        See :class:`EnginePlan`.
    tag_width : int
        User tag carried from ``i`` to ``o``.

    Members
    -------
    i, o
        The payloads of :class:`~robohw.dynamics.pipeline.NewtonEulerPipeline`.
    """

    def __init__(self, robot="puma560", *, width=24, interval=None, scan="serial",
                 trig_width=None, multipliers=None, adders=None, tag_width=0,
                 bound_fraction=BOUND_FRACTION):
        plan = EnginePlan(robot, width=width, interval=interval or ENGINE_INTERVAL, scan=scan,
                          trig_width=trig_width, multipliers=multipliers, adders=adders,
                          bound_fraction=bound_fraction)
        super().__init__(plan, plan.program, state_fields(plan),
                         {k: torque_field(k) for k in range(1, plan.dof + 1)},
                         tag_width=tag_width, flag="in_bounds")

    @property
    def dof(self):
        return self._plan.dof
