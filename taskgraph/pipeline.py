"""A task graph of CCMs as one balanced hardware pipeline, in two timing modes.

``timing="pipelined"``: every CCM is a pipelined CORDIC datapath
(:func:`robohw.cordic.pipelined.pipelined_datapath`); one result per clock.
``timing="word_serial"``: every CCM is a word-serial CORDIC
(:func:`robohw.cordic.word_serial.word_serial_datapath`) holding two poses at once (C-slow: one at
its shifters while the other is at its adders) and the pipeline advances one *stage* every ``P``
clocks, ``P`` the longest CCM's time from its two starts to both results
(:func:`~robohw.cordic.word_serial.word_serial_period`; Lee & Chang's accounting, one stage per
CCM, with two poses a stage). Either way every producer output drives one tapped delay line whose
taps come from the optimal buffer assignment (:func:`robohw.buffers.assign_buffers`, shared lines,
outputs aligned), so each CCM receives all its operands at once; word-serial, a stage is two
positions of every line, which move in the two cycles a stage takes its poses. The datapath never
stops: it takes a pose only while the output queue has room for its result
(:meth:`~robohw.hw.stream.StreamPipeline.pipeline_control`), so nothing is lost under
backpressure.

Formats: inputs and real operands are ``signed(width)`` with ``frac_bits`` fraction bits;
angles (angle inputs too) are binary angles (one turn = ``2**width``). With ``guard_bits`` the
CCMs and every value between them carry that many more bits, all of them fraction bits; the
inputs enter exactly and the outputs are rounded half to even back to ``width`` bits, as the
model does. Branch indicator bits select the sign of the operands that use them: 0 for +1, 1
for -1. Operands are formed exactly as :func:`robohw.taskgraph.model.evaluate_model` forms them
(sign, branch sign, constant, addend; reals saturate and raise the error flag, angles wrap), and a
guarded value below its minimum raises it too, so the outputs equal the model bit for bit.
"""

from collections import defaultdict
from dataclasses import dataclass

from amaranth.hdl import Assert, Cat, Const, Module, Signal, signed

from robohw.buffers import BufferAssignment
from robohw.cordic.config import CordicConfig, System
from robohw.cordic.datapath import register_values
from robohw.cordic.pipelined import pipelined_datapath, pipelined_latency
from robohw.cordic.word_serial import word_serial_datapath, word_serial_period
from robohw.hw.checks import check_bool, check_integer
from robohw.hw.delay_line import check_memory_above, tapped_delay_line
from robohw.hw.fixed import (
    FixedFormat,
    Rounding,
    angle_to_code,
    hdl_add_sub,
    hdl_add_sub_add,
    hdl_round_shift,
    hdl_saturate,
)
from robohw.hw.stream import StreamPipeline, check_tag_width
from robohw.taskgraph.graph import TaskGraph, output_node
from robohw.taskgraph.model import guard_code

__all__ = ["TaskGraphPipeline", "PipelinePlan", "plan_pipeline", "hdl_operand", "TIMINGS",
           "INTERLEAVE", "OPERAND_REGISTERS", "MEMORY_ABOVE"]

# Delay-line segments longer than this are memories in the pipelined designs the registry and
# the command line build (block RAM: hundreds of stages of 24 bits would otherwise be more
# flip-flops than an ECP5-85F has).
MEMORY_ABOVE = 16


class TaskGraphPipeline(StreamPipeline):
    """Balanced, fully pipelined hardware for a :class:`robohw.taskgraph.graph.TaskGraph`.

    Parameters
    ----------
    graph : :class:`robohw.taskgraph.graph.TaskGraph`
    width : int
        Data width of every CCM and operand.
    frac_bits : int
        Fraction bits of the real values; default ``width - 3``.
    guard_bits : int
        Extra fraction bits inside (default 0).
    tag_width : int
        User tag carried from ``i`` to ``o``.
    timing : ``"pipelined"`` or ``"word_serial"``
        CCM architecture (see above).
    check_alignment : bool
        Simulation aid: every value also carries the number of the input slot it came from,
        and ``Assert`` statements check that each CCM's operands (and the outputs) come from
        one slot. Off by default; adds a 16-bit shadow to every delay line.
    memory_above : int or None
        Delay-line segments (between two taps) longer than this many stages are memories,
        block RAM on an FPGA (:func:`robohw.hw.delay_line.memory_delay`); ``None`` (default):
        every stage a register.

    Members
    -------
    i : ``In(stream.Signature(...))``
        One field per graph input (``signed(width)``), one bit per branch indicator, ``tag``.
    o : ``Out(stream.Signature(...))``
        One field per graph output (``signed(width)``), ``unreachable`` (some CCM's operands
        left its domain, or an operand or a port the graph reads overflowed), ``tag``.

    Latency is :attr:`latency` cycles (the balanced depth times the stage period, and the output
    queue's two cycles); throughput one result per :attr:`interval` cycles (1 pipelined; ``P / 2``
    word-serial, two results in two consecutive cycles of every period ``P``).
    """
    def __init__(self, graph, *, width=24, frac_bits=None, guard_bits=0, tag_width=0,
                 timing="pipelined", check_alignment=False, memory_above=None):
        if not isinstance(graph, TaskGraph):
            raise TypeError(f"graph must be a TaskGraph, not {graph!r}")
        check_tag_width(tag_width)
        check_bool("check_alignment", check_alignment)
        plan = plan_pipeline(graph, width=width, frac_bits=frac_bits, guard_bits=guard_bits,
                             timing=timing)
        self._graph, self._plan = graph, plan
        self._check_alignment = check_alignment
        self._memory_above = check_memory_above(memory_above)
        inputs = {n: signed(plan.width) for n in graph.inputs}
        inputs.update({b: 1 for b in graph.branches})
        outputs = {n: signed(plan.width) for n in graph.outputs}
        outputs["unreachable"] = 1
        super().__init__(inputs, outputs, tag_width=tag_width)

    @property
    def plan(self):
        """The :class:`PipelinePlan` the pipeline is built from."""
        return self._plan

    @property
    def graph(self):
        return self._graph

    @property
    def width(self):
        return self._plan.width

    @property
    def timing(self):
        return self._plan.timing

    @property
    def schedule(self):
        """The :class:`robohw.buffers.BufferAssignment` the pipeline is built from."""
        return self._plan.schedule

    @property
    def depth(self):
        """The balanced depth in stages (one stage = one clock when pipelined)."""
        return self._plan.depth

    @property
    def latency(self):
        """Cycles from an input transfer to its result being valid: depth times the period, and
        the output queue's cycles
        (:meth:`~robohw.hw.stream.StreamPipeline.control_latency`)."""
        return self.control_latency(self._plan.depth, self._plan.period)

    @property
    def interval(self):
        """Cycles per result under continuous input (on average, word-serial): 1, or the
        stage period over the poses a stage holds, ``P / 2``."""
        return self._plan.period // self._plan.slots

    def elaborate(self, platform):
        m = Module()
        graph, plan = self._graph, self._plan
        guard = plan.guard_bits
        advance, result = self.pipeline_control(m, plan.depth, period=plan.period,
                                                slots=plan.slots)
        lines = _DelayLines(m, self, advance)
        for name in graph.inputs:   # exact: guard bits are fraction bits
            lines.produce((name, "value"), getattr(self.i.payload, name).as_signed() << guard,
                          lines.slot)
        for name in graph.branches:
            lines.produce((name, "value"), getattr(self.i.payload, name), lines.slot)
        errors = []
        for name in graph.inputs:
            self._check_guards(m, lines, errors, name, None,
                               getattr(self.i.payload, name).as_signed() << guard, 0)
        for ccm in graph.ccms:
            self._ccm(m, lines, errors, ccm, advance)
        for name, (source, port) in graph.outputs.items():
            # Back to the port: rounded half to even; angles wrap, reals saturate and flag.
            value = hdl_round_shift(lines.tap(source, port, output_node(name)), guard,
                                    Rounding.HALF_EVEN)
            if graph.is_angle(source, port):
                value = value[:plan.width].as_signed()
            else:
                value, overflow = hdl_saturate(value, plan.width)
                errors.append(overflow)
            m.d.comb += getattr(result, name).eq(value)
        if lines.check:
            first = next(iter(graph.outputs))
            lines.assert_aligned(output_node(first), list(graph.outputs.values()))
        m.d.comb += result.unreachable.eq(Cat(*errors).any())
        return m

    def _check_guards(self, m, lines, errors, source, port, value, ready):
        """A guarded value below its minimum flags the result, delayed to the output (an input
        has one value, whatever the guard's port)."""
        plan = self._plan
        lsb = FixedFormat(plan.width + plan.guard_bits, plan.frac_bits + plan.guard_bits).lsb
        for g in (g for g in self._graph.guards if g.source == source and
                  port in (None, g.port)):
            code = guard_code(g, lsb)
            small = (value < code) & (value > -code)
            delay = (plan.depth - ready) * plan.slots
            name = f"{source}_{port}_guard"
            errors.append(tapped_delay_line(m, small, [delay], lines.enable(name), name)[delay])

    def _ccm(self, m, lines, errors, ccm, advance):
        """One CCM: its operands from the delay lines, its datapath, its error flag delayed to
        the output, its results into delay lines of their own."""
        graph, plan = self._graph, self._plan
        start, latency, slots = plan.schedule.start, plan.latencies, plan.slots
        cfg = plan.configs[ccm.name]
        operands, overflows = [], []
        for operand_name, op in ccm.operands():
            value, overflow = hdl_operand(
                ccm, operand_name, op, lambda source, port: lines.tap(source, port, ccm.name),
                port_width=plan.width, frac_bits=plan.frac_bits, guard_bits=plan.guard_bits)
            operands.append(value)
            if overflow is not None:
                overflows.append(overflow)
        operand_slot = None
        if lines.check:
            sources = [term for _, op in ccm.operands() for term in op.sources()]
            sources += [(op.branch, "value") for _, op in ccm.operands() if op.branch]
            operand_slot = lines.assert_aligned(ccm.name, sources)
        # The slot number rides through the CCM's own registers: the check trusts the
        # hardware, not the schedule's idea of its latency.
        if plan.period == 1:
            # The operands are registered before the pre-rotation: the operand logic and the
            # pre-rotation are a carry chain each (one stage held both: 9.7-10.3 ns, the
            # pipelined IK's limit).
            held = register_values(m, {
                **dict(zip("xyz", operands)),
                **({} if operand_slot is None else {"sideband": operand_slot})},
                True, f"{ccm.name}_operand")
            fields = pipelined_datapath(m, cfg, *(held[p] for p in "xyz"), advance,
                                        name=ccm.name, sideband=held.get("sideband"))
        else:
            fields = word_serial_datapath(m, cfg, *operands, lines.enable(ccm.name),
                                          name=ccm.name, sideband=operand_slot,
                                          interleave=INTERLEAVE).outputs
        ccm_slot = fields.get("sideband")
        ready = start[ccm.name] + latency[ccm.name]
        # Only the ports the graph reads count: an unused z may saturate harmlessly.
        error = Cat(fields["domain_error"],
                    *(fields[f"{p}_overflow"] for p in graph.used_ports(ccm.name))).any()
        if overflows:
            delay = latency[ccm.name] * slots
            late = tapped_delay_line(m, Cat(*overflows).any(), [delay],
                                     lines.enable(f"{ccm.name}_operand_overflow"),
                                     f"{ccm.name}_operand_overflow")[delay]
            error = error | late
        delay = (plan.depth - ready) * slots
        errors.append(tapped_delay_line(m, error, [delay], lines.enable(f"{ccm.name}_error"),
                                        f"{ccm.name}_error")[delay])
        for port in "xyz":
            lines.produce((ccm.name, port), fields[port], ccm_slot)
            self._check_guards(m, lines, errors, ccm.name, port, fields[port], ready)


class _DelayLines:
    """A pipeline's delay lines: every producer output drives one, tapped where its consumers
    start (in positions: stages times the slots a stage holds). Checking alignment, each line
    has a shadow carrying the input slot number, counted at every advance (bubbles
    included)."""

    def __init__(self, m, pipeline, advance):
        graph, plan = pipeline.graph, pipeline.plan
        self.m, self.plan, self.advance = m, plan, advance
        self.pipeline, self.memory_above = pipeline, pipeline._memory_above
        # Taps every producer output needs, from the start times of its consumers.
        reads = [(c.name, source, port) for c in graph.ccms for _, op in c.operands()
                 for source, port in op.sources()]
        reads += [(c.name, op.branch, "value") for c in graph.ccms for _, op in c.operands()
                  if op.branch]
        reads += [(output_node(n), source, port) for n, (source, port) in graph.outputs.items()]
        self.taps = defaultdict(set)
        for dst, src, port in reads:
            self.taps[self._key(src, port)].add(self._position(src, dst))
        self.lines, self.shadows = {}, {}
        self.check = pipeline._check_alignment
        self.slot = None
        if self.check:
            self.slot = Signal(16)   # input slot number: counts every advance, bubbles included
            with m.If(advance):
                m.d.sync += self.slot.eq(self.slot + 1)

    def _key(self, src, port):
        return (src, port if src in self.plan.configs else "value")

    def _position(self, src, dst):
        start, latency = self.plan.schedule.start, self.plan.latencies
        return (start[dst] - start[src] - latency[src]) * self.plan.slots

    def enable(self, name):
        """What moves line or CCM ``name``: each on its own copy of advance."""
        if self.plan.period == 1:
            return self.advance
        return self.pipeline.advance_copy(self.m, f"{name}_advance")

    def produce(self, key, value, shadow=None):
        """The line of producer output ``key`` (``(source, port)``), fed ``value``."""
        if self.taps.get(key):
            name = f"line_{key[0]}_{key[1]}"
            line_advance = self.enable(name)
            self.lines[key] = tapped_delay_line(self.m, value, self.taps[key], line_advance,
                                                name, memory_above=self.memory_above)
            if self.check:
                self.shadows[key] = tapped_delay_line(self.m, shadow, self.taps[key],
                                                      line_advance, f"{name}_slot",
                                                      memory_above=self.memory_above)

    def tap(self, src, port, dst, shadow=False):
        """The value of ``(src, port)`` as ``dst`` reads it (its shadow's, with ``shadow``)."""
        table = self.shadows if shadow else self.lines
        return table[self._key(src, port)][self._position(src, dst)]

    def assert_aligned(self, dst, sources):
        """Check that ``dst``'s ``sources`` come from one input slot; return that slot."""
        origins = [self.tap(src, port, dst, shadow=True) for src, port in sources]
        # Checked when the consumer takes its operands: at every advance.
        self.m.d.comb += Assert(~self.advance | Cat(*(a == origins[0] for a in origins)).all(),
                                f"operands of {dst} come from different input slots")
        return origins[0]


def hdl_operand(ccm, slot, op, read, *, port_width, frac_bits, guard_bits):
    """``(value, overflow)``: operand ``slot`` (``"x"``, ``"y"``, ``"z"``) of ``ccm`` formed
    as :func:`robohw.taskgraph.model.evaluate_model` forms it, from the values ``read(source,
    port)`` gives (``signed(port_width + guard_bits)``, guard bits inside; a branch indicator's bit
    for port ``"value"``): an angle wraps (``overflow`` ``None``), a real saturates and flags
    ``overflow``."""
    width = port_width + guard_bits
    is_angle = ccm.system is System.CIRCULAR and slot == "z"
    constant = int(angle_to_code(op.constant, width)) if is_angle else \
        round(op.constant / 2.0 ** -(frac_bits + guard_bits))
    if op.source is None:
        return Const(constant, signed(width)), None
    value = read(op.source, op.port)
    if op.turns:    # a real in turns: exactly a binary angle, shifted
        value = value << (port_width - frac_bits)
    # constant -+ value (-+ addend) on one carry chain, its direction from the sign and the
    # branch bit (negation and constant as two chains in a row were the limit of both timing
    # modes; so was the addend as a second chain).
    minus = Const(int(op.sign < 0), 1)
    if op.branch:
        minus = minus ^ read(op.branch, "value")
    constant = Const(constant, signed(max(constant.bit_length(), 1) + 1))
    if op.addend is None:
        value = hdl_add_sub(constant, value, minus)
    else:
        value = hdl_add_sub_add(constant, value, minus, read(op.addend.source, op.addend.port),
                                op.addend.sign < 0)
    if is_angle:
        return value[:width].as_signed(), None
    return hdl_saturate(value, width)


TIMINGS = ("pipelined", "word_serial")

# Pipelined CCMs take their operands through one register stage of their own, ahead of the
# pre-rotation (the interleaved word-serial unit has its own operand registers).
OPERAND_REGISTERS = 1

# Word-serial CCMs here register their shifters' outputs (a step is a shift cycle and an add
# cycle) and hold two poses each: in every cycle one shifts while the other adds: of the three
# variants placed on an ECP5-85F (two poses a CCM; one pose, one cycle a step; one pose,
# registered), the fastest clock at a pose every 48 cycles (the figures: docs/ik.md).
INTERLEAVE = 2


@dataclass(frozen=True)
class PipelinePlan:
    """What a :class:`TaskGraphPipeline` is built from, without building it.

    ``configs``: the :class:`~robohw.cordic.config.CordicConfig` of every CCM by name;
    ``latencies``: every node's latency in stages (inputs, branch indicators and output sinks
    0); ``schedule``: the optimal shared :class:`~robohw.buffers.BufferAssignment` with aligned
    outputs; ``period``: cycles per stage (1 when pipelined); ``slots``: poses a stage holds
    (1 pipelined, :data:`INTERLEAVE` word-serial). Latency in cycles is ``depth * period`` and
    the output queue's.
    """
    timing: str
    width: int
    frac_bits: int
    guard_bits: int
    configs: dict
    latencies: dict
    schedule: BufferAssignment
    period: int
    sinks: tuple
    slots: int = 1

    @property
    def depth(self):
        """Stages from the inputs to the outputs (aligned: every sink starts then)."""
        return self.schedule.start[self.sinks[0]]


def plan_pipeline(graph, *, width=24, frac_bits=None, guard_bits=0, timing="pipelined"):
    """The :class:`PipelinePlan` of ``graph`` at ``width``-bit ports (``frac_bits`` default
    ``width - 3``), its CCMs ``guard_bits`` wider inside, of ``timing`` (``"pipelined"`` or
    ``"word_serial"``)."""
    if timing not in TIMINGS:
        raise ValueError(f"timing must be 'pipelined' or 'word_serial', not {timing!r}")
    check_integer("width", width)
    check_integer("guard_bits", guard_bits, minimum=0)
    # The CCMs' own configurations check the ranges of width and frac_bits.
    frac_bits = width - 3 if frac_bits is None else frac_bits
    configs = {c.name: CordicConfig(c.system, c.direction, width=width + guard_bits,
                                    frac_bits=frac_bits + guard_bits,
                                    expansion=c.expansion) for c in graph.ccms}
    if timing == "pipelined":
        latencies = graph.latencies(lambda c: OPERAND_REGISTERS +
                                    pipelined_latency(configs[c.name]))
        period = 1
    else:
        latencies = graph.latencies(1)
        # Padded to a whole number of cycles per pose.
        period = max(word_serial_period(cfg, True, INTERLEAVE) for cfg in configs.values())
        period += -period % INTERLEAVE
    schedule = graph.balance(latencies, width=width + guard_bits, align_outputs=True, share=True)
    sinks = tuple(output_node(name) for name in graph.outputs)
    latencies.update(dict.fromkeys(sinks, 0))
    return PipelinePlan(timing, width, frac_bits, guard_bits, configs, latencies, schedule, period,
                        sinks, 1 if timing == "pipelined" else INTERLEAVE)
