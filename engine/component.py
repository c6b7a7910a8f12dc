"""The engine as a stream component: a compiled program (:mod:`robohw.engine.program`) built
in Amaranth, one state taken every initiation interval, successive states overlapped.

What each part is:

- **A phase counter** (the cycle of the interval, and its copies one and two cycles ahead, from
  which the micro-programs are read: :class:`~robohw.hw.micro_program.MicroProgram` with a
  wrap of one interval) and, for each bank, an **iteration counter** modulo its depth that
  moves at the end of every interval.
- **The held state**: the payload's fields (plus their offsets) captured in the interval's
  first cycle, read by the loaders and the CORDICs in the cycles after.
- **Banks**: one memory per writer (LUT RAM on an ECP5: one write port, an asynchronous read
  port for every operand port or output that reads it), rotating
  (:mod:`robohw.engine.registers`): an access's address is its program's constant plus the
  bank's iteration counter, modulo the depth, computed into a register in the cycle before.
- **Units**: :func:`~robohw.dataflow.unit.fixed_point_unit` multipliers (one DSP tile each up
  to :data:`~robohw.hw.multiplier.SPLIT_PRODUCT_BITS` bits on an ECP5: the tile's registered
  product up to 18 bits, :func:`~robohw.hw.multiplier.split_product` above) and adders; an operand port reads the OR of its
  banks' words, each kept only by the bank the program names in that cycle.
- **Loaders** write a held field into their bank; **CORDICs** (pipelined, one angle a cycle)
  take a held angle and write its cos and sin into their two banks.
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
from robohw.engine.program import KINDS, product_latency
from robohw.hw.delay_line import tapped_delay_line
from robohw.hw.micro_program import MicroProgram
from robohw.hw.multiplier import SPLIT_PRODUCT_LATENCY, registered_product, split_product
from robohw.hw.register_file import read_port
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
        counters = {}
        for bank, depth in program.depth.items():
            if depth > 1:
                count = Signal(range(depth), name=f"{bank}_iteration")
                upcoming = Mux(wrap, Mux(count == depth - 1, 0, count + 1), count)
                m.d.sync += count.eq(upcoming)
                counters[bank] = upcoming      # the count in the next cycle
        memories = {}
        for bank, depth in program.depth.items():
            # At least two words: a one-word memory's address has no bits. LUT RAM, one copy
            # a read port: Yosys's own choice puts a bank of many read ports in flip-flops
            # and multiplexers (PUMA, II 128: 8 of 12 banks, 42,791 LUT4s).
            memories[bank] = m.submodules[f"{bank}_bank"] = Memory(
                shape=signed(width), depth=max(depth, 2), init=[],
                attrs={"ram_style": "distributed"})

        def address(name, bank, offset):
            """A register: the rotating address of ``offset`` (the program's constant, given
            in the cycle before the access) in ``bank``, for the access's cycle."""
            depth = program.depth[bank]
            held = Signal(range(max(depth, 2)), name=f"{name}_address", reset_less=True)
            if depth > 1:
                total = offset + counters[bank]
                m.d.sync += held.eq(Mux(total >= depth, total - depth, total))
            return held

        def read(name, bank, at):
            port = memories[bank].read_port(domain="comb")
            m.d.comb += port.addr.eq(at)
            return port.data

        def write(bank, enable, at, data):
            port = memories[bank].write_port()
            m.d.comb += [port.en.eq(enable), port.addr.eq(at), port.data.eq(data)]

        def program_of(unit):
            return MicroProgram(m, ahead, ahead2, unit, wrap=ii)

        held = self._held_state(m, first)
        programs = []
        for kind in KINDS:
            for unit in program.machine.units(kind):
                micro = program_of(unit)
                programs.append(micro)
                self._unit(m, micro, unit, kind, address, read, write, platform)
        for unit in program.machine.units("load"):
            micro = program_of(unit)
            programs.append(micro)
            self._loader(m, micro, unit, held, address, write)
        for unit in program.machine.units("cordic"):
            micro = program_of(unit)
            programs.append(micro)
            self._cordic(m, micro, unit, held, address, write)
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
            bank = program.bank[node]
            at = address(f"out_{key}", bank, program.offset(node, out_cycle))
            word = read(f"out_{key}", bank, at)
            m.d.comb += target.eq(-word if negated else word)
        if self._flag is not None:
            line = tapped_delay_line(m, within_limits(plan, self.i.payload), {out_cycle},
                                     Const(1), self._flag)
            m.d.comb += getattr(result, self._flag).eq(line[out_cycle])
        return m

    def _held_state(self, m, first):
        """``{payload field: signal}``: each field plus its offset, captured in the interval's
        first cycle (angles wrap, as angles do)."""
        plan, held = self._plan, {}
        for field in (*self._plan.angle_fields.values(), *self._plan.value_fields.values()):
            held[field] = Signal(self.i.payload.shape()[field].shape, name=f"{field}_held",
                                 reset_less=True)
            with m.If(first):
                m.d.sync += held[field].eq(getattr(self.i.payload, field) +
                                           plan.field_offset(field))
        return held

    def _unit(self, m, micro, unit, kind, address, read, write, platform):
        """One multiplier or adder: its operand ports read their banks at the addresses the
        program gives (a cycle ahead, rotated), its results go into its own bank."""
        program, plan = self._program, self._plan
        issues = [issue for issue in program.issues if issue.unit == unit]
        instructions = [(issue.cycle, program.operation(issue), issue) for issue in issues]
        banks = {port: program.reads.get((unit, port), []) for port in "ab"}

        def operands(fetch):
            values = []
            for port in "ab":
                shapes, reached = {}, banks[port]
                for bank in reached:
                    depth = max(program.depth[bank], 2)
                    shapes |= {f"{port}_in_{bank}": unsigned(1),
                               f"{port}_at_{bank}": range(depth)}

                def word(fields, issue, port=port, reached=reached):
                    node = fields[port]
                    out = {}
                    for bank in reached:
                        chosen = node is not None and program.bank[node] == bank
                        out[f"{port}_in_{bank}"] = int(chosen)
                        out[f"{port}_at_{bank}"] = (program.offset(node, issue.cycle)
                                                    if chosen else 0)
                    return out
                ahead_fields = fetch(-1, shapes, word)
                words = []
                for bank in reached:
                    chosen = Signal(name=f"{unit}_{port}_in_{bank}", reset_less=True)
                    m.d.sync += chosen.eq(ahead_fields[f"{port}_in_{bank}"])
                    at = address(f"{unit}_{port}_{bank}", bank,
                                 ahead_fields[f"{port}_at_{bank}"])
                    words.append(Mux(chosen, read(f"{unit}_{port}", bank, at), 0))
                values.append(functools.reduce(operator.or_, words) if words else
                              Const(0, signed(plan.width)))
            issued = fetch(0, {"valid": unsigned(1)}, lambda f, _: {"valid": 1})["valid"]
            return values[0], values[1], issued

        def write_result(fetch, offset, value):
            enable = fetch(offset, {"valid": unsigned(1)}, lambda f, _: {"valid": 1})["valid"]
            depth = max(program.depth[unit], 2)
            at = fetch(offset - 1, {"at": range(depth)},
                       lambda f, issue: {"at": program.offset(issue.node, issue.cycle + offset)})
            write(unit, enable, address(f"{unit}_write", unit, at["at"]), value)

        multiplier = kind == "mul"
        latency = (program.machine.multiplier_latency if multiplier else
                   program.machine.adder_latency)
        # A tile's product up to its 18 bits, the split product (a stage more) above.
        stages = product_latency(plan.width)
        product = split_product if stages == SPLIT_PRODUCT_LATENCY else registered_product
        fixed_point_unit(m, micro, unit, multiplier, instructions, width=plan.width,
                         latency=latency, operands=operands, write=write_result,
                         platform=platform, product=product, product_latency=stages)

    def _loader(self, m, micro, unit, held, address, write):
        """A loader: in each cycle its program names, one held field into its bank."""
        program = self._program
        loads = [load for load in program.loads if load.unit == unit]
        fields = sorted({load.field for load in loads})
        depth = max(program.depth[unit], 2)
        ahead_fields = micro.fetch(
            {"select": range(max(len(fields), 2)), "at": range(depth)},
            {load.cycle - 1: {"select": fields.index(load.field),
                              "at": program.offset(load.node, load.cycle)} for load in loads},
            f"{unit}_sm1")
        enable = micro.fetch({"valid": unsigned(1)}, {load.cycle: {"valid": 1} for load in loads},
                             f"{unit}_s0")["valid"]
        select = Signal(range(max(len(fields), 2)), name=f"{unit}_select", reset_less=True)
        m.d.sync += select.eq(ahead_fields["select"])
        data = read_port([held[f] for f in fields], select, m=m, name=f"{unit}_field")
        write(unit, enable, address(f"{unit}_write", unit, ahead_fields["at"]), data)

    def _cordic(self, m, micro, unit, held, address, write):
        """A pipelined CORDIC: in each cycle its program names, a held angle into its angle
        register; a pipeline later its cos and sin into its two banks."""
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
        # leaves it pipelined_latency later: written then, readable a cycle after.
        arrive = program.machine.trig_latency - 1
        suffix = unit[len("cordic"):]
        for part, port in (("cos", "x"), ("sin", "y")):
            bank = f"{part}{suffix}"
            writes = [trig for trig in trigs if getattr(trig, part) is not None]
            depth = max(program.depth[bank], 2)
            at = micro.fetch({"at": range(depth)},
                             {trig.cycle + arrive - 1: {
                                 "at": program.offset(getattr(trig, part), trig.cycle + arrive)}
                              for trig in writes}, f"{bank}_wm1")["at"]
            enable = micro.fetch({"valid": unsigned(1)},
                                 {trig.cycle + arrive: {"valid": 1} for trig in writes},
                                 f"{bank}_w")["valid"]
            write(bank, enable, address(f"{bank}_write", bank, at), out[port])

    def resources(self):
        """The estimate of :func:`robohw.engine.estimate.engine_resources`."""
        from robohw.engine.estimate import engine_resources
        return engine_resources(self._plan, self._program, self.tag_width)
