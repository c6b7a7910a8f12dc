"""The engine as a stream component: a compiled program (:mod:`robohw.engine.program`) built
in Amaranth, one state taken every initiation interval, successive states overlapped.

Its parts, each in a module of its own:

- **the control** (:mod:`robohw.engine.control`): the phase counter, each unit's, loader's,
  CORDIC's and the outputs' micro-program (a :class:`~robohw.hw.micro_program.MicroProgram`
  with a wrap of one interval, read from its own counters one and two cycles ahead), the
  iteration counters and the rotating addresses of the files;
- **the register files** (:mod:`robohw.engine.register_files`): a memory per file, read by one
  operand port or output, written through one multiplexed write port;
- **the held state, the units, the loaders, the CORDICs and the writers' copies**
  (:mod:`robohw.engine.units`);
- **the outputs**, read together, ``output_cycle`` cycles after the state's transfer, into
  the stream's output queue (:meth:`~robohw.hw.stream.StreamPipeline.interval_control`).

Datapath registers and memories are reset-less; only valid bits, counters and the queue reset.
No state is taken in the first interval after reset (the micro-programs' ROM words are read two
cycles ahead).
"""

from amaranth.hdl import Const, Module, Signal

from robohw.dataflow.component import output_fields, within_limits
from robohw.dataflow.operations import Unit
from robohw.engine.control import EngineControl
from robohw.engine.machine import KINDS
from robohw.engine.register_files import RegisterFiles
from robohw.engine.units import build_cordic, build_loader, build_unit, held_state, writer_copies
from robohw.hw.checks import check_bool
from robohw.hw.delay_line import tapped_delay_line
from robohw.hw.global_buffer import global_buffer
from robohw.hw.stream import StreamPipeline, check_tag_width

__all__ = ["Engine"]


class Engine(StreamPipeline):
    """A traced plan's outputs on the engine its compiled program describes.

    Parameters
    ----------
    plan : :class:`~robohw.dataflow.plan.TracedPlan`
        The traced graph and its formats (its bit-exact model is
        :func:`~robohw.dataflow.plan.model_codes`).
    program : :class:`~robohw.engine.program.EngineProgram`
        The plan compiled onto a machine (:func:`~robohw.engine.program.compile_program`).
    inputs : dict
        The input payload's fields, ``{name: shape}`` (every field the plan reads).
    outputs : dict
        ``{plan output key: field name}``; ``signed(width)`` with the plan's output fractions.
    tag_width : int
        User tag carried from ``i`` to ``o``.
    flag : str or None
        A one-bit output field, 1 when every fixed-point field was within the plan's
        :attr:`~robohw.dataflow.plan.TracedPlan.field_limits`.
    checked : str or None
        A one-bit output field, 1 when every check of the plan
        (:attr:`~robohw.dataflow.plan.TracedPlan.checks`) passed: each checked result, rounded
        before it wraps, within its code (:func:`~robohw.dataflow.plan.checked_model_codes`'s
        ``passed``). Each unit's check flag is ORed into a line that follows the state to its
        outputs, in the cycle the checked result is readable.
    kept_copies : bool
        Mark the writers' copies and the hops (:func:`~robohw.engine.units.writer_copies`)
        ``keep``, so that synthesis keeps each apart (default ``True``; Yosys merges flip-flops
        with the same inputs, which makes one register of them all: ``robohw synth`` and the
        board's build keep the flip-flops of wires marked so). Merged, the UR5's engine on a
        board was limited by its one ``sin0`` register driving every file across the chip.
    kept_addresses : bool
        Mark every register file's address registers ``keep`` too
        (:meth:`~robohw.engine.control.EngineControl.address`): files whose accesses share a
        schedule have equal addresses, which Yosys merges into one register driving every such
        file across the chip (default ``False``).

    Latency :attr:`latency`: the program's output cycle and the output queue's; one state every
    :attr:`interval` cycles. Nothing is lost, duplicated or reordered under backpressure.
    """

    def __init__(self, plan, program, inputs, outputs, *, tag_width=0, flag=None, checked=None,
                 kept_copies=True, kept_addresses=False):
        check_tag_width(tag_width)
        self._kept_copies = check_bool("kept_copies", kept_copies)
        self._kept_addresses = check_bool("kept_addresses", kept_addresses)
        fields = output_fields(plan, outputs, flag)
        if checked is not None:
            fields |= output_fields(plan, {}, checked)
        self._plan, self._program, self._flag, self._checked = plan, program, flag, checked
        self._checks = plan.checks if checked is not None else {}
        unchecked = set(self._checks) - {issue.node for issue in program.issues}
        if unchecked:       # a check no unit makes would pass every row
            raise ValueError(f"checks of nodes no unit computes: {sorted(unchecked)}")
        self._output_names = dict(outputs)
        super().__init__(dict(inputs), fields, tag_width=tag_width)

    @property
    def plan(self):
        return self._plan

    @property
    def program(self):
        return self._program

    @property
    def interval(self):
        """Cycles between states: the machine's initiation interval."""
        return self._program.interval

    @property
    def fold(self):
        """The interval, by the name the flows give cycles per result."""
        return self.interval

    @property
    def latency(self):
        """Cycles from a state's transfer to its outputs at ``o``: the program's output cycle
        and the output queue's (:meth:`~robohw.hw.stream.StreamPipeline.control_latency`)."""
        return self.control_latency(self._program.output_cycle)

    @property
    def output_fracs(self):
        return self._plan.output_fracs

    def elaborate(self, platform):
        m = Module()
        plan, program = self._plan, self._program
        control = EngineControl(m, program, kept=self._kept_addresses)
        result = self.interval_control(m, program.output_cycle, program.interval, control.first)
        files = RegisterFiles(m, program, plan.width)
        held = held_state(m, plan, self.i.payload,
                          global_buffer(m, control.first, "first_global", platform))
        values, micros, failures = {}, {}, {}
        for kind in KINDS:
            for unit in program.machine.units(kind):
                micro = micros[unit] = control.micro_program(unit)
                values[unit], failures[unit] = build_unit(
                    m, micro, unit, kind, plan, program, control, files, platform,
                    self._checks)
        for unit in program.machine.units(Unit.LOAD):
            values[unit] = build_loader(m, control.micro_program(unit), unit, program, held)
        for unit in program.machine.units(Unit.CORDIC):
            values |= build_cordic(m, control.micro_program(unit), unit, plan, program, held)
        sources = writer_copies(m, program, values, kept=self._kept_copies)
        outputs_micro = control.micro_program("outputs")
        for name, file in program.files.items():
            micro = outputs_micro if file.reader[0] == "out" else micros[file.reader[0]]
            files.write(micro, name, sources[name], control)
        control.build()
        self._outputs(m, result, control, files)
        if self._checked is not None:
            m.d.comb += getattr(result, self._checked).eq(~self._failed(m, failures))
        return m

    def _failed(self, m, failures):
        """1 in the output cycle where a check of the state failed: a line of registers from
        the state's transfer to its output cycle, each the one before ORed with the check
        flags (``failures``: ``{unit: flag}``) readable in its cycle."""
        program = self._program
        arrivals = {}                       # cycle: the units whose checked result is readable
        for issue in program.issues:
            if issue.node in self._checks:
                arrivals.setdefault(program.ready[issue.node], set()).add(issue.unit)
        failed = Const(0)
        for cycle in range(program.output_cycle + 1):
            for unit in sorted(arrivals.get(cycle, ())):
                failed = failed | failures[unit]
            if cycle < program.output_cycle:
                held = Signal(name=f"checks_failed{cycle + 1}", reset_less=True)
                m.d.sync += held.eq(failed)
                failed = held
        return failed

    def _outputs(self, m, result, control, files):
        """The outputs, read together from their files ``output_cycle`` cycles after the
        state's transfer into ``result`` (the output queue's payload), and the flag."""
        plan, program = self._plan, self._program
        fracs = plan.output_fracs
        out_cycle = program.output_cycle
        for key, value in plan.outputs.items():
            target = getattr(result, self._output_names[key])
            if isinstance(value, float):
                m.d.comb += target.eq(round(value * 2.0 ** fracs[key]))
                continue
            node, negated = program.outputs[key]
            file = program.source[(("out", key), node)]
            word = files.read(file, control.address(file, file,
                                                    program.offset(file, node, out_cycle)))
            m.d.comb += target.eq(-word if negated else word)
        if self._flag is not None:
            line = tapped_delay_line(m, within_limits(plan, self.i.payload), {out_cycle},
                                     Const(1), self._flag)
            m.d.comb += getattr(result, self._flag).eq(line[out_cycle])

    def configuration(self):
        """One line: the interval, the units and their latencies (by locality, the clusters and
        their hops), the datapath's width and the register files (what a design's
        configuration line follows its robot's joints with)."""
        machine, program = self._program.machine, self._program
        units = [f"{machine.multipliers} multipliers ({machine.multiplier_latency} cycles)",
                 f"{machine.adders} adders ({machine.adder_latency})"]
        if machine.narrow_multipliers:
            units.insert(1, f"{machine.narrow_multipliers} multipliers of narrowed operands "
                            f"({machine.multiplier_latency})")
        if machine.reciprocals:
            units.append(f"{machine.reciprocals} reciprocal units "
                         f"({machine.reciprocal_latency})")
        if machine.roots:
            units.append(f"{machine.roots} reciprocal square root units "
                         f"({machine.root_latency})")
        units += [f"{machine.loaders} loaders",
                  f"{machine.cordics} CORDICs ({machine.trig_latency})"]
        if machine.clusters:
            units.append(f"by locality in {len(machine.clusters)} clusters with "
                         f"{len(program.hops)} hops ({machine.hop_latency} cycle each)")
        return (f"II = {machine.interval}, {', '.join(units)}, {self._plan.width}-bit "
                f"datapath, {len(program.files)} register files of "
                f"{sum(program.depth.values())} words, {program.connections()} write "
                f"multiplexer inputs")

    def progress_label(self):
        """What a progress line calls the states going through the engine."""
        return (f"states through the engine (one every {self.interval} cycles, "
                f"{self.latency}-cycle latency)")

    def resources(self):
        """The estimate of :func:`robohw.engine.estimate.engine_resources`."""
        from robohw.engine.estimate import engine_resources
        return engine_resources(self._plan, self._program, self.tag_width)
