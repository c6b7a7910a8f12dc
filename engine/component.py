"""The engine as a stream component: a compiled program (:mod:`robohw.engine.program`) built
in Amaranth, one state taken every initiation interval, successive states overlapped.

What each part is:

- **A phase counter** (the cycle of the interval; each micro-program, a
  :class:`~robohw.hw.micro_program.MicroProgram` with a wrap of one interval, is read from its
  own counters one and two cycles ahead) and, for each micro-program and each depth of the
  files it addresses, an **iteration counter** modulo that depth that moves at the end of
  every interval (registered a cycle ahead, beside its files: no machine-wide net).
- **The held state**: the payload's fields (plus their offsets) captured in the interval's
  first cycle, read by the loaders and the CORDICs in the cycles after; a sign input's
  constant (:meth:`~robohw.dataflow.plan.TracedPlan.sign_input`), selected by its field's
  code's sign, captured with them.
- **Register files**: the program's (:class:`~robohw.engine.program.RegisterFile`), each a
  memory read by one operand port or output (LUT RAM on an ECP5: an asynchronous read port)
  and written through one write port, a multiplexer of its writers' results that the reader's
  micro-program steers; rotating (:mod:`robohw.engine.registers`): an access's address is its
  program's constant plus the iteration counter, modulo the depth (a power of two: the sum's
  low bits), computed into a register in the cycle before.
- **Units**: :func:`~robohw.dataflow.unit.fixed_point_unit` multipliers (one DSP tile each up
  to :data:`~robohw.hw.multiplier.SPLIT_PRODUCT_BITS` bits on an ECP5: the tile's registered
  product up to 18 bits, :func:`~robohw.hw.multiplier.split_product` above) and adders; an
  operand port of several files reads the OR of their words, each kept only by the file the
  program names in that cycle.
- **Loaders** give a held field, selected and registered, to the files that hold it;
  **CORDICs** (pipelined, one angle a cycle) take a held angle and give its cos and sin to
  theirs.
- **The outputs** are read together, ``output_cycle`` cycles after the state's transfer, into
  the stream's output queue (:meth:`~robohw.hw.stream.StreamPipeline.interval_control`).

Datapath registers and memories are reset-less; only valid bits, counters and the queue reset.
No state is taken in the first interval after reset (the micro-programs' ROM words are read two
cycles ahead).
"""

import functools
import operator

from amaranth.hdl import Const, Module, Mux, Signal, signed, unsigned
from amaranth.lib.memory import Memory

from robohw.cordic.pipelined import pipelined_datapath
from robohw.dataflow.component import output_fields, within_limits
from robohw.dataflow.unit import fixed_point_unit
from robohw.engine.program import KINDS, unit_product
from robohw.hw.delay_line import tapped_delay_line
from robohw.hw.global_buffer import global_buffer
from robohw.hw.micro_program import MicroProgram
from robohw.hw.register_file import read_port
from robohw.hw.stream import StreamPipeline, check_tag_width

__all__ = ["Engine"]


def _power_of_two(depth):
    return depth & (depth - 1) == 0


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

    Latency :attr:`latency`: the program's output cycle and the output queue's; one state every
    :attr:`interval` cycles. Nothing is lost, duplicated or reordered under backpressure.
    """

    def __init__(self, plan, program, inputs, outputs, *, tag_width=0, flag=None):
        check_tag_width(tag_width)
        fields = output_fields(plan, outputs, flag)
        self._plan, self._program, self._flag = plan, program, flag
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
        ii, width = program.interval, plan.width
        phase = Signal(range(ii), name="phase")
        ahead = Signal(range(ii), name="phase_ahead", init=1 % ii)
        ahead2 = Signal(range(ii), name="phase_ahead2", init=2 % ii)
        m.d.sync += [phase.eq(ahead), ahead.eq(ahead2),
                     ahead2.eq(Mux(ahead2 == ii - 1, 0, ahead2 + 1))]
        # The interval's first cycle, registered; none in the first interval after reset.
        wrap = phase == ii - 1
        first = Signal(name="first_cycle")
        m.d.sync += first.eq(wrap)                  # the next cycle is phase 0
        result = self.interval_control(m, program.output_cycle, ii, first)
        memories = {}
        for name, file in program.files.items():
            # At least two words: a one-word memory's address has no bits. LUT RAM: Yosys's
            # own choice put some banks in flip-flops and multiplexers (PUMA, II 128, with a
            # bank of each writer's: 8 of 12, 42,791 LUT4s).
            memories[name] = m.submodules[f"{name}_file"] = Memory(
                shape=signed(width), depth=max(file.depth, 2), init=[],
                attrs={"ram_style": "distributed"})

        phases, counters = {}, {}

        def counter(owner, depth):
            """``owner``'s iteration counter modulo ``depth``, as it will be in the next cycle:
            a register moved when the next cycle ends an interval (from the owner's own phase
            ahead), one for each micro-program and depth, beside the files it addresses."""
            if (owner, depth) not in counters:
                upcoming = Signal(range(depth), name=f"{owner}_iteration{depth}")
                # A power of two wraps by itself (padded_depth).
                following = upcoming + 1 if _power_of_two(depth) else \
                    Mux(upcoming == depth - 1, 0, upcoming + 1)
                m.d.sync += upcoming.eq(Mux(phases[owner] == ii - 1, following, upcoming))
                counters[(owner, depth)] = upcoming
            return counters[(owner, depth)]

        def address(name, file, offset):
            """A register: the rotating address of ``offset`` (the program's constant, given
            in the cycle before the access) in ``file``, for the access's cycle."""
            depth = program.files[file].depth
            held = Signal(range(max(depth, 2)), name=f"{name}_address", reset_less=True)
            if depth > 1:
                reader = program.files[file].reader
                total = offset + counter("outputs" if reader[0] == "out" else reader[0], depth)
                m.d.sync += held.eq(total if _power_of_two(depth) else
                                    Mux(total >= depth, total - depth, total))
            return held

        def read(file, at):
            port = memories[file].read_port(domain="comb")
            m.d.comb += port.addr.eq(at)
            return port.data

        def program_of(name):
            """``name``'s micro-program, read from its own copy of the phase counters ahead:
            one pair for every ROM and every valid decode of the machine would be a net of
            thousands of LUT inputs across the chip."""
            own = Signal(range(ii), name=f"{name}_phase_ahead", init=1 % ii)
            own2 = Signal(range(ii), name=f"{name}_phase_ahead2", init=2 % ii)
            m.d.sync += [own.eq(own2), own2.eq(Mux(own2 == ii - 1, 0, own2 + 1))]
            phases[name] = own
            micro = MicroProgram(m, own, own2, name, wrap=ii)
            programs.append(micro)
            return micro

        held = self._held_state(m, global_buffer(m, first, "first_global", platform))
        programs, values, micros = [], {}, {}
        for kind in KINDS:
            for unit in program.machine.units(kind):
                micro = micros[unit] = program_of(unit)
                values[unit] = self._unit(m, micro, unit, kind, address, read, platform)
        for unit in program.machine.units("load"):
            values[unit] = self._loader(m, program_of(unit), unit, held)
        for unit in program.machine.units("cordic"):
            values |= self._cordic(m, program_of(unit), unit, held)
        sources = self._sources(m, values)
        outputs_micro = program_of("outputs")
        for name, file in program.files.items():
            micro = outputs_micro if file.reader[0] == "out" else micros[file.reader[0]]
            self._file_write(m, micro, name, sources[name], memories[name], address)
        for micro in programs:
            micro.build(ii)
        fracs = plan.output_fracs
        out_cycle = program.output_cycle
        for key, value in plan.outputs.items():
            target = getattr(result, self._output_names[key])
            if isinstance(value, float):
                m.d.comb += target.eq(round(value * 2.0 ** fracs[key]))
                continue
            node, negated = program.outputs[key]
            file = program.source[(("out", key), node)]
            word = read(file, address(file, file, program.offset(file, node, out_cycle)))
            m.d.comb += target.eq(-word if negated else word)
        if self._flag is not None:
            line = tapped_delay_line(m, within_limits(plan, self.i.payload), {out_cycle},
                                     Const(1), self._flag)
            m.d.comb += getattr(result, self._flag).eq(line[out_cycle])
        return m

    def _sources(self, m, values):
        """``{file: {writer: signal}}``: what each file's writers write, ``values`` (``{writer:
        signal}``) but for a loader's field and a CORDIC's cos and sin, which reach their
        files through register copies, one a group of files
        (:meth:`~robohw.engine.program.EngineProgram.fanout`), each a cycle after its
        writer's register."""
        program = self._program
        sources = {name: {w: values[w] for w in file.writers}
                   for name, file in program.files.items()}
        for writer in program.fanned_writers():
            for j, files in enumerate(program.fanout(writer)):
                copy = Signal(values[writer].shape(), name=f"{writer}_copy{j}",
                              reset_less=True)
                m.d.sync += copy.eq(values[writer])
                for file in files:
                    sources[file][writer] = copy
        return sources

    def _held_state(self, m, first):
        """``{payload field: signal}``: each field plus its offset, captured in the interval's
        first cycle (angles wrap, as angles do). On an ECP5 ``first`` reaches their enables
        on a clock network (:func:`~robohw.hw.global_buffer.global_buffer`): every held bit
        across the chip, the fabric net the PUMA 560's engine at II 5 was limited by."""
        plan, held = self._plan, {}
        for field in (*self._plan.angle_fields.values(), *self._plan.value_fields.values()):
            held[field] = Signal(self.i.payload.shape()[field].shape, name=f"{field}_held",
                                 reset_less=True)
            with m.If(first):
                m.d.sync += held[field].eq(getattr(self.i.payload, field) +
                                           plan.field_offset(field))
        for name, sign in plan.sign_inputs.items():
            held[name] = Signal(signed(plan.width), name=f"{name}_held", reset_less=True)
            code = getattr(self.i.payload, sign.field)
            with m.If(first):
                m.d.sync += held[name].eq(Mux(code > 0, sign.code, Mux(code < 0, -sign.code, 0)))
        return held

    def _file_write(self, m, micro, name, values, memory, address):
        """File ``name``'s write port: in each cycle it is written, the value of the writer
        the program names (``values``: ``{writer: signal}``, its writers') at its rotating
        address."""
        program = self._program
        file, writes = program.files[name], program.writes(name)
        enable = micro.fetch({"valid": unsigned(1)}, {c: {"valid": 1} for c in writes},
                             f"{name}_w")["valid"]
        at = micro.fetch({"at": range(max(file.depth, 2))},
                         {c - 1: {"at": program.offset(name, k, c)} for c, k in writes.items()},
                         f"{name}_wm1")["at"]
        data = values[file.writers[0]]
        if len(file.writers) > 1:
            select = micro.fetch(
                {"select": range(len(file.writers))},
                {c: {"select": file.writers.index(program.writer[k])}
                 for c, k in writes.items()}, f"{name}_w")["select"]
            data = read_port([values[w] for w in file.writers], select, m=m,
                             name=f"{name}_data")
        port = memory.write_port()
        m.d.comb += [port.en.eq(enable), port.addr.eq(address(f"{name}_write", name, at)),
                     port.data.eq(data)]

    def _unit(self, m, micro, unit, kind, address, read, platform):
        """One multiplier or adder, its result's register returned: its operand ports read
        their files at the addresses the program gives (a cycle ahead, rotated)."""
        program, plan = self._program, self._plan
        issues = [issue for issue in program.issues if issue.unit == unit]
        instructions = [(issue.cycle, program.operation(issue), issue) for issue in issues]
        files = {port: program.reads.get((unit, port), []) for port in "ab"}

        def operands(fetch):
            values = []
            for port in "ab":
                shapes, reached = {}, files[port]
                for file in reached:
                    shapes |= {f"{port}_in_{file}": unsigned(1),
                               f"{port}_at_{file}": range(max(program.files[file].depth, 2))}

                def word(fields, issue, port=port, reached=reached):
                    node = fields[port]
                    source = program.source.get(((unit, port), node))
                    out = {}
                    for file in reached:
                        chosen = node is not None and source == file
                        out[f"{port}_in_{file}"] = int(chosen)
                        out[f"{port}_at_{file}"] = (program.offset(file, node, issue.cycle)
                                                    if chosen else 0)
                    return out
                ahead_fields = fetch(-1, shapes, word)
                words = []
                for file in reached:
                    data = read(file, address(f"{unit}_{port}_{file}", file,
                                              ahead_fields[f"{port}_at_{file}"]))
                    if len(reached) > 1:
                        # Each file's word kept only in the cycles the port reads it: an OR.
                        chosen = Signal(name=f"{unit}_{port}_in_{file}", reset_less=True)
                        m.d.sync += chosen.eq(ahead_fields[f"{port}_in_{file}"])
                        data = Mux(chosen, data, 0)
                    words.append(data)
                values.append(functools.reduce(operator.or_, words) if words else
                              Const(0, signed(plan.width)))
            issued = fetch(0, {"valid": unsigned(1)}, lambda f, _: {"valid": 1})["valid"]
            return values[0], values[1], issued

        result = []

        def written(fetch, offset, value):
            # The files write it (_file_write) in the cycle ``offset`` after the issue: one
            # before it is readable.
            assert offset + 1 == latency, (unit, offset, latency)
            result.append(value)

        multiplier = kind == "mul"
        latency = (program.machine.multiplier_latency if multiplier else
                   program.machine.adder_latency)
        fixed_point_unit(m, micro, unit, multiplier, instructions, width=plan.width,
                         latency=latency, operands=operands, write=written,
                         platform=platform, **unit_product(plan.width))
        return result[0]

    def _loader(self, m, micro, unit, held):
        """A loader, its output returned: in each cycle its program names, one held field
        selected (the select registered in that cycle), registered in the next, then copied
        (:meth:`_sources`) for its files to write (:data:`~robohw.engine.program.LOAD_LATENCY`)."""
        loads = [load for load in self._program.loads if load.unit == unit]
        fields = sorted({load.field for load in loads})
        ahead_fields = micro.fetch(
            {"select": range(max(len(fields), 2))},
            {load.cycle - 1: {"select": fields.index(load.field)} for load in loads},
            f"{unit}_sm1")
        select = Signal(range(max(len(fields), 2)), name=f"{unit}_select", reset_less=True)
        m.d.sync += select.eq(ahead_fields["select"])
        chosen = read_port([held[f] for f in fields], select, m=m, name=f"{unit}_field")
        value = Signal(chosen.shape(), name=f"{unit}_value", reset_less=True)
        m.d.sync += value.eq(chosen)
        return value

    def _cordic(self, m, micro, unit, held):
        """A pipelined CORDIC, ``{"cos<k>": signal, "sin<k>": signal}`` returned: in each
        cycle its program names, a held angle into its angle register; a pipeline later its cos
        and sin, which their files write."""
        plan, program = self._plan, self._program
        trigs = [trig for trig in program.trigs if trig.unit == unit]
        fields = sorted({trig.field for trig in trigs})
        config = plan.cordic
        select = micro.fetch({"select": range(max(len(fields), 2))},
                             {trig.cycle - 1: {"select": fields.index(trig.field)}
                              for trig in trigs}, f"{unit}_sm1")["select"]
        chosen = Signal(range(max(len(fields), 2)), name=f"{unit}_select", reset_less=True)
        m.d.sync += chosen.eq(select)
        angle = Signal(signed(config.width), name=f"{unit}_angle", reset_less=True)
        m.d.sync += angle.eq(read_port([held[f] for f in fields], chosen, m=m,
                                       name=f"{unit}_field"))
        shape = signed(config.width)
        out = pipelined_datapath(m, config, Const(1 << config.frac_bits, shape), Const(0, shape),
                                 angle, Const(1), name=unit)
        # The angle is registered in the issue cycle, enters the pipeline in the next and
        # leaves it pipelined_latency later, is copied (_sources) in the cycle after
        # (trig_latency - 1 after the issue): written then, readable a cycle after.
        suffix = unit[len("cordic"):]
        return {f"cos{suffix}": out["x"], f"sin{suffix}": out["y"]}

    def resources(self):
        """The estimate of :func:`robohw.engine.estimate.engine_resources`."""
        from robohw.engine.estimate import engine_resources
        return engine_resources(self._plan, self._program, self.tag_width)
