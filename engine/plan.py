"""A traced plan compiled onto the engine: :func:`compile_plan` gives the program of a traced
plan (:class:`~robohw.dataflow.plan.TracedPlan`, read through the attributes its contract
states) on the default machine or on one with given units; a family's engine plan holds it
as its ``program``, and :class:`~robohw.engine.component.Engine` builds the plan with it."""

from robohw.engine.machine import Machine
from robohw.engine.program import compile_program

__all__ = ["compile_plan"]


def compile_plan(plan, interval, *, multipliers=None, adders=None, partition=None):
    """The :class:`~robohw.engine.program.EngineProgram` of ``plan`` at ``interval`` cycles a
    state (II, 2 to 1,024) on the default machine
    (:meth:`~robohw.engine.machine.Machine.for_plan`), or with ``multipliers`` and ``adders``
    units (at least the fewest the operations fit), or by locality with ``partition`` (``{node:
    cluster name}``: :func:`~robohw.engine.partition.cell_partition`); its ``machine`` is the
    machine. ``ValueError`` for a bad count or interval."""
    machine = Machine.for_plan(plan, interval, multipliers=multipliers, adders=adders,
                               partition=partition)
    return compile_program(plan, machine)
