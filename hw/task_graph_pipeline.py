"""A task graph of CCMs as one balanced hardware pipeline: one result per clock.

Every CCM is a pipelined CORDIC datapath (:func:`cordic.pipelined.pipelined_datapath`); every
producer output drives one tapped delay line whose taps come from the optimal buffer assignment
(:func:`buffers.assign_buffers`, shared lines, outputs aligned), so each CCM receives all its
operands on the same cycle. The whole pipeline moves on one enable and holds while the output
waits: nothing is lost under backpressure.

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
from hw.fixed import angle_to_code, hdl_saturate

__all__ = ["TaskGraphPipeline"]


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

    Latency is :attr:`latency` cycles (the balanced depth); throughput one result per clock.
    """
    def __init__(self, graph, *, width=24, frac_bits=None, tag_width=0, check_alignment=False):
        frac_bits = width - 3 if frac_bits is None else frac_bits
        self._graph = graph
        self._configs = {c.name: CordicConfig(c.system, c.direction, width=width,
                                              frac_bits=frac_bits, expansion=c.expansion)
                         for c in graph.ccms}
        self._width, self._frac_bits, self._tag_width = width, frac_bits, tag_width
        self._check_alignment = check_alignment
        latencies = graph.latencies(lambda c: pipelined_latency(self._configs[c.name]))
        edges = graph.edges(width=width)
        outputs = []
        for name, (source, port) in graph.outputs.items():
            latencies[f"out:{name}"] = 0
            edges.append(Edge(source, f"out:{name}", port=port, width=width))
            outputs.append(f"out:{name}")
        self._latencies = latencies
        self._schedule = assign_buffers(latencies, edges, inputs=graph.inputs + graph.branches,
                                        outputs=outputs, align_outputs=True, share=True)
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
    def schedule(self):
        """The :class:`buffers.BufferAssignment` the pipeline is built from."""
        return self._schedule

    @property
    def latency(self):
        """Cycles from an input transfer to its result being valid: the balanced depth."""
        return self._schedule.start[f"out:{next(iter(self._graph.outputs))}"]

    @property
    def interval(self):
        return 1

    @property
    def throughput(self):
        return Fraction(1)

    def elaborate(self, platform):
        m = Module()
        graph, width, start = self._graph, self._width, self._schedule.start
        latency = self._latencies
        advance = ~self.o.valid | self.o.ready
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
            m.d.comb += Assert(Cat(*(a == slots[0] for a in slots)).all(),
                               f"operands of {dst} come from different input slots")
            return slots[0]

        for name in graph.inputs + graph.branches:
            produce((name, "value"), getattr(self.i.payload, name), slot if check else None)

        errors = []
        depth = self.latency
        for ccm in graph.ccms:
            cfg = self._configs[ccm.name]
            operands, overflows = [], []
            for slot, op in ccm.operands():
                is_angle = ccm.system is System.CIRCULAR and slot == "z"
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
            fields = pipelined_datapath(m, cfg, *operands, advance, name=ccm.name,
                                        sideband=operand_slot)
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

        valid = tapped_delay_line(m, self.i.valid, [depth], advance, "valid",
                                  reset_less=False)[depth]
        tag = tapped_delay_line(m, self.i.payload.tag, [depth], advance, "tag")[depth]
        for name, (source, port) in graph.outputs.items():
            m.d.comb += getattr(self.o.payload, name).eq(tap(source, port, f"out:{name}"))
        if check:
            first = next(iter(graph.outputs))
            assert_aligned(f"out:{first}", list(graph.outputs.values()))
        m.d.comb += [self.o.payload.unreachable.eq(Cat(*errors).any()), self.o.payload.tag.eq(tag),
                     self.o.valid.eq(valid)]
        return m
