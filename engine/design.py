"""What a design of a traced plan on the engine answers from its machine: the flows' questions
(:class:`robohw.sim.design.Design`) that every such design, inverse or forward dynamics,
delegates to its compiled engine alike."""

__all__ = ["OnEngine"]


class OnEngine:
    """A mixin for a :class:`~robohw.sim.design.Design` whose component is an engine
    (:class:`robohw.engine.component.Engine`) with a traced ``plan`` of ``dof`` joints: its fold
    is the initiation interval (``robohw sim --ii``); its width, configuration, progress label
    and structure (its multipliers) are the engine's."""
    fold_name = "ii"

    def width_of(self, dut):
        return dut.plan.width

    def progress_label(self, dut):
        return dut.progress_label()

    def configuration(self, dut):
        return f"N = {dut.plan.dof}, {dut.configuration()}"

    def structure(self, dut):
        machine = dut.program.machine
        return "multipliers", machine.multipliers + machine.narrow_multipliers
