"""A task graph of CCMs as one balanced hardware pipeline, in two timing modes.

``timing="pipelined"``: every CCM is a pipelined CORDIC datapath
(:func:`cordic.pipelined.pipelined_datapath`); one result per clock. ``timing="word_serial"``:
every CCM is a word-serial CORDIC (:func:`cordic.word_serial.word_serial_datapath`) and the
pipeline advances one *stage* every ``P`` clocks, ``P`` the longest CCM's steps plus one (Lee &
Chang's accounting: one result per stage). Either way every producer output drives one tapped
delay line whose taps come from the optimal buffer assignment (:func:`buffers.assign_buffers`,
shared lines, outputs aligned), so each CCM receives all its operands at once. The whole
pipeline moves on one enable and holds while the output waits: nothing is lost under
backpressure.

Formats: inputs and real operands are ``signed(width)`` with ``frac_bits`` fraction bits;
angles are binary angles (one turn = ``2**width``). Branch indicator bits select the sign of
the operands that use them: 0 for +1, 1 for -1. Operands are formed exactly as
:func:`sim.task_graph_eval.evaluate_model` forms them (sign, branch sign, constant; reals
saturate and raise the error flag, angles wrap), so the outputs equal the model bit for bit.
"""

from collections import defaultdict
from fractions import Fraction

from amaranth.hdl import Assert, Cat, Const, Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from buffers import Edge, assign_buffers
from buffers.delay_line import tapped_delay_line
from cordic.config import CordicConfig, System
from cordic.pipelined import pipelined_datapath, pipelined_latency
from cordic.word_serial import word_serial_datapath, word_serial_period
from hw.fixed import angle_to_code, hdl_saturate

__all__ = ["TaskGraphPipeline", "plan_pipeline"]


class TaskGraphPipeline(wiring.Component):
    """Balanced, fully pipelined hardware for a :class:`hw.task_graph.TaskGraph`.

    Parameters
    ----------
    graph : :class:`hw.task_graph.TaskGraph`
    width : int
        Data width of every CCM and operand.
    frac_bits : int
        Fraction bits of the real values; default ``width - 3``.
    tag_width : int
        User tag carried from ``i`` to ``o``.
    timing : ``"pipelined"`` or ``"word_serial"``
        CCM architecture (see above).
    check_alignment : bool
        Simulation aid: every value also carries the number of the input slot it came from,
        and ``Assert`` statements check that each CCM's operands (and the outputs) come from
        one slot. Off by default; adds a 16-bit shadow to every delay line.

    Members
    -------
    i : ``In(stream.Signature(...))``
        One field per graph input (``signed(width)``), one bit per branch indicator, ``tag``.
    o : ``Out(stream.Signature(...))``
        One field per graph output (``signed(width)``), ``unreachable`` (some CCM's operands
        left its domain, or an operand or a port the graph reads overflowed), ``tag``.

    Latency is :attr:`latency` cycles (the balanced depth times :attr:`interval`); throughput one
    result per :attr:`interval` cycles (1 pipelined, ``P`` word-serial).
    """
    def __init__(self, graph, *, width=24, frac_bits=None, tag_width=0, timing="pipelined",
                 check_alignment=False):
        frac_bits = width - 3 if frac_bits is None else frac_bits
        self._graph = graph
        self._timing = timing
        self._width, self._frac_bits, self._tag_width = width, frac_bits, tag_width
        self._check_alignment = check_alignment
        plan = plan_pipeline(graph, width=width, frac_bits=frac_bits, timing=timing)
        self._configs, self._latencies, self._schedule, self._period = plan
        layout_in = {n: signed(width) for n in graph.inputs}
        layout_in.update({b: 1 for b in graph.branches})
        layout_in["tag"] = unsigned(tag_width)
        layout_out = {n: signed(width) for n in graph.outputs}
        layout_out.update({"unreachable": 1, "tag": unsigned(tag_width)})
        super().__init__({
            "i": In(stream.Signature(data.StructLayout(layout_in))),
            "o": Out(stream.Signature(data.StructLayout(layout_out))),
        })

    @property
    def graph(self):
        return self._graph

    @property
    def width(self):
        return self._width

    @property
    def timing(self):
        return self._timing

    @property
    def schedule(self):
        """The :class:`buffers.BufferAssignment` the pipeline is built from."""
        return self._schedule

    @property
    def depth(self):
        """The balanced depth in stages (one stage = one clock when pipelined)."""
        return self._schedule.start[f"out:{next(iter(self._graph.outputs))}"]

    @property
    def latency(self):
        """Cycles from an input transfer to its result being valid: depth times interval."""
        return self.depth * self._period

    @property
    def interval(self):
        """Cycles between results under continuous input: 1, or the stage period ``P``."""
        return self._period

    @property
    def throughput(self):
        return Fraction(1, self._period)

    def elaborate(self, platform):
        m = Module()
        graph, width, start = self._graph, self._width, self._schedule.start
        latency = self._latencies
        depth = self.depth
        valid_out = Signal()
        if self._period == 1:
            advance = ~valid_out | self.o.ready
            m.d.comb += self.o.valid.eq(valid_out)
        else:
            # One stage every P cycles; the boundary waits while a result is not taken.
            phase = Signal(range(self._period))
            last = phase == self._period - 1
            advance = last & (~valid_out | self.o.ready)
            with m.If(advance):
                m.d.sync += phase.eq(0)
            with m.Elif(~last):
                m.d.sync += phase.eq(phase + 1)
            m.d.comb += self.o.valid.eq(valid_out & last)
        m.d.comb += self.i.ready.eq(advance)

        # Taps every producer output needs, from the start times of its consumers.
        reads = [(c.name, op.source, op.port) for c in graph.ccms for _, op in c.operands()
                 if op.source is not None]
        reads += [(c.name, op.branch, "value") for c in graph.ccms for _, op in c.operands()
                  if op.branch]
        reads += [(f"out:{n}", source, port) for n, (source, port) in graph.outputs.items()]
        taps = defaultdict(set)
        for dst, src, port in reads:
            key = (src, port if src in self._configs else "value")
            taps[key].add(start[dst] - start[src] - latency[src])
        lines, shadows = {}, {}
        check = self._check_alignment
        if check:
            slot = Signal(16)  # input slot number: counts every advance, bubbles included
            with m.If(advance):
                m.d.sync += slot.eq(slot + 1)

        def produce(key, value, shadow=None):
            if taps.get(key):
                name = f"line_{key[0]}_{key[1]}"
                lines[key] = tapped_delay_line(m, value, taps[key], advance, name)
                if check:
                    shadows[key] = tapped_delay_line(m, shadow, taps[key], advance, f"{name}_slot")

        def tap(src, port, dst, table=lines):
            key = (src, port if src in self._configs else "value")
            return table[key][start[dst] - start[src] - latency[src]]

        def assert_aligned(dst, sources):
            slots = [tap(src, port, dst, shadows) for src, port in sources]
            # Checked when the consumer takes its operands: at every advance.
            m.d.comb += Assert(~advance | Cat(*(a == slots[0] for a in slots)).all(),
                               f"operands of {dst} come from different input slots")
            return slots[0]

        for name in graph.inputs + graph.branches:
            produce((name, "value"), getattr(self.i.payload, name), slot if check else None)

        errors = []
        for ccm in graph.ccms:
            cfg = self._configs[ccm.name]
            operands, overflows = [], []
            for operand_name, op in ccm.operands():
                is_angle = ccm.system is System.CIRCULAR and operand_name == "z"
                constant = int(angle_to_code(op.constant, width)) if is_angle else \
                    round(op.constant / 2.0 ** -self._frac_bits)
                if op.source is None:
                    operands.append(Const(constant, signed(width)))
                    continue
                value = tap(op.source, op.port, ccm.name)
                if op.branch:
                    value = Mux(tap(op.branch, "value", ccm.name), -value, value)
                value = (value if op.sign > 0 else -value) + constant
                if is_angle:
                    operands.append(value[:width].as_signed())
                else:
                    value, overflow = hdl_saturate(value, width)
                    operands.append(value)
                    overflows.append(overflow)
            operand_slot = None
            if check:
                sources = [(op.source, op.port) for _, op in ccm.operands() if op.source]
                sources += [(op.branch, "value") for _, op in ccm.operands() if op.branch]
                operand_slot = assert_aligned(ccm.name, sources)
            # The slot number rides through the CCM's own registers: the check trusts the
            # hardware, not the schedule's idea of its latency.
            datapath = pipelined_datapath if self._period == 1 else word_serial_datapath
            fields = datapath(m, cfg, *operands, advance, name=ccm.name, sideband=operand_slot)
            ccm_slot = fields.get("sideband")
            ready = start[ccm.name] + latency[ccm.name]
            # Only the ports the graph reads count: an unused z may saturate harmlessly.
            error = Cat(fields["domain_error"],
                        *(fields[f"{p}_overflow"] for p in graph.used_ports(ccm.name))).any()
            if overflows:
                late = tapped_delay_line(m, Cat(*overflows).any(), [latency[ccm.name]], advance,
                                         f"{ccm.name}_operand_overflow")[latency[ccm.name]]
                error = error | late
            errors.append(tapped_delay_line(m, error, [depth - ready], advance,
                                            f"{ccm.name}_error")[depth - ready])
            for port in "xyz":
                produce((ccm.name, port), fields[port], ccm_slot)

        m.d.comb += valid_out.eq(tapped_delay_line(m, self.i.valid, [depth], advance, "valid",
                                                   reset_less=False)[depth])
        tag = tapped_delay_line(m, self.i.payload.tag, [depth], advance, "tag")[depth]
        for name, (source, port) in graph.outputs.items():
            m.d.comb += getattr(self.o.payload, name).eq(tap(source, port, f"out:{name}"))
        if check:
            first = next(iter(graph.outputs))
            assert_aligned(f"out:{first}", list(graph.outputs.values()))
        m.d.comb += [self.o.payload.unreachable.eq(Cat(*errors).any()), self.o.payload.tag.eq(tag)]
        return m


def plan_pipeline(graph, *, width=24, frac_bits=None, timing="pipelined"):
    """What :class:`TaskGraphPipeline` is built from, without building it: the CCM
    configurations, node latencies (stages), the optimal shared schedule with aligned outputs,
    and the stage period in cycles (1 when pipelined). Its latency in cycles is
    ``schedule.depth * period``."""
    if timing not in ("pipelined", "word_serial"):
        raise ValueError(f"timing must be 'pipelined' or 'word_serial', not {timing!r}")
    frac_bits = width - 3 if frac_bits is None else frac_bits
    configs = {c.name: CordicConfig(c.system, c.direction, width=width, frac_bits=frac_bits,
                                    expansion=c.expansion) for c in graph.ccms}
    if timing == "pipelined":
        latencies = graph.latencies(lambda c: pipelined_latency(configs[c.name]))
        period = 1
    else:
        latencies = graph.latencies(1)
        period = max(word_serial_period(cfg) for cfg in configs.values())
    edges = graph.edges(width=width)
    outputs = []
    for name, (source, port) in graph.outputs.items():
        latencies[f"out:{name}"] = 0
        edges.append(Edge(source, f"out:{name}", port=port, width=width))
        outputs.append(f"out:{name}")
    schedule = assign_buffers(latencies, edges, inputs=graph.inputs + graph.branches,
                              outputs=outputs, align_outputs=True, share=True)
    return configs, latencies, schedule, period
