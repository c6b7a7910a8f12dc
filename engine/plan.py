"""A traced plan compiled onto the engine: what a family's engine plan adds to its traced
plan (:class:`~robohw.dataflow.plan.TracedPlan`): the machine and the compiled program."""

from robohw.engine.program import Machine, compile_program

__all__ = ["CompiledPlan"]


class CompiledPlan:
    """Mixin of a :class:`~robohw.dataflow.plan.TracedPlan` subclass that runs on the engine:
    :meth:`compile` gives it :attr:`machine` (:meth:`~robohw.engine.program.Machine.for_plan`)
    and :attr:`program` (:func:`~robohw.engine.program.compile_program`)."""

    machine = None
    program = None

    def compile(self, interval, *, multipliers=None, adders=None):
        """Compile the traced graph at ``interval`` cycles a state (II, 2 to 1,024) on the
        default machine, or with ``multipliers`` and ``adders`` units (at least the fewest
        the operations fit); ``ValueError`` for a bad count or interval."""
        self.machine = Machine.for_plan(self, interval, multipliers=multipliers, adders=adders)
        self.program = compile_program(self, self.machine)

    @property
    def interval(self):
        """Cycles between states: the machine's II."""
        return self.machine.interval
