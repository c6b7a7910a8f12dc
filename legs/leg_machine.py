"""Gosselin's machine in hardware: the plan of :mod:`robohw.legs.machine` as its program.

Every processor is a register file and one :func:`~robohw.cordic.multimode.multimode_datapath`
(the modes its CCMs use, at the graph's internal width); one cycle counter steps them all in
lock step through the plan, as a horizontal micro-program: in a CCM's start cycle its
processor forms the operands (:func:`robohw.ik.pipeline.hdl_operand`) into the unit's operand
registers, the unit starts in the next, and in the cycle its result is at the unit's outputs
the ports the graph reads are written into the register file. The bus is one
``signed(width + guard_bits)`` word: in each transfer's cycle it carries the sender's register
(or an input of the state) and every reader writes it into its own register file.

A state is taken when the machine is idle; its outputs are offered ``latency`` cycles later and
the next state may be taken in the cycle they leave. The error flag is sticky over a state:
a CCM's domain error, an overflow of an operand or of a port the graph reads, a guarded value
below its minimum, an output that saturates (``unreachable``, as the pipelines name it).
The bits equal :func:`robohw.ik.model.evaluate_model` of the graph.

Registers: one per value a processor holds (its CCMs' ports that are read, the words it
receives), never reused within a state.
"""

from collections import defaultdict

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, Value, signed

from robohw.cordic.config import CordicConfig, System
from robohw.cordic.multimode import multimode_datapath
from robohw.hw.fixed import (FixedFormat, Rounding, angle_to_code, hdl_add_sub_add,
                             hdl_round_shift, hdl_saturate)
from robohw.hw.stream import StreamPipeline
from robohw.ik.model import guard_code
from robohw.legs.machine import WRITEBACK_CYCLES, plan_machine

__all__ = ["LegMachine"]


def _shared_operand(m, name, operands, slot, index, read, width, frac_bits, guard):
    """``(value, overflow)``: operand ``slot`` of the CCM ``index`` picks from ``operands``
    (``[(ccm, Operand)]``), formed as :func:`robohw.ik.pipeline.hdl_operand` forms it but on
    one adder shared by all of them: the sources, signs and constants are chosen first."""
    inside = width + guard
    zero = Const(0, signed(inside))
    rows = []
    for ccm, op in operands:
        angle = ccm.system is System.CIRCULAR and slot == "z"
        constant = int(angle_to_code(op.constant, inside)) if angle else \
            round(op.constant / 2.0 ** -(frac_bits + guard))
        source = zero if op.source is None else read(op.source, op.port)
        addend = zero if op.addend is None else read(op.addend.source, op.addend.port)
        rows.append((source, int(op.sign < 0 and op.source is not None), constant, addend,
                     int(op.addend is not None and op.addend.sign < 0), int(op.turns),
                     int(angle)))
    # Each choice a signal of its own: arithmetic on an Array element would be built once
    # for every element.
    column = []
    for k, field in enumerate(("source", "minus", "constant", "addend", "addend_minus",
                               "turns", "angle")):
        chosen = Array(Value.cast(row[k]) for row in rows)[index]
        wire = Signal(chosen.shape(), name=f"{name}_{slot}_{field}")
        m.d.comb += wire.eq(chosen)
        column.append(wire)
    source, minus, constant, addend, addend_minus, turns, angle = column
    if any(row[5] for row in rows):      # a real in turns: exactly a binary angle, shifted
        source = Mux(turns, source << (width - frac_bits), source)
    value = hdl_add_sub_add(constant, source, minus, addend, addend_minus)
    saturated, overflow = hdl_saturate(value, inside)
    return Mux(angle, value[:inside].as_signed(), saturated), overflow & ~angle


class LegMachine(StreamPipeline):
    """One processor per leg and a platform processor on a one-word bus, running a task graph
    by its :class:`~robohw.legs.machine.MachinePlan`.

    Parameters
    ----------
    graph : :class:`robohw.ik.task_graph.TaskGraph`
        CCMs named by leg (``leg{i}_...``; the rest run on the platform processor), without
        branch indicators.
    width, frac_bits, guard_bits : int
        The ports' width, the reals' fraction bits (default ``width - 3``) and the guard bits
        inside, as :class:`robohw.ik.pipeline.TaskGraphPipeline` takes them.
    processors : ``None`` or 1
        One per leg and the platform's (default), or one running everything.
    tag_width : int
        User tag carried from ``i`` to ``o``.

    Members
    -------
    i : ``In(stream.Signature(...))``
        One field per graph input (``signed(width)``: reals, or binary angles) and ``tag``.
    o : ``Out(stream.Signature(...))``
        One field per graph output (``signed(width)``), ``unreachable`` and ``tag``.
    """

    def __init__(self, graph, *, width=24, frac_bits=None, guard_bits=0, processors=None,
                 tag_width=0):
        if graph.branches:
            raise ValueError(f"{graph.name}: the machine takes graphs without branch "
                             f"indicators")
        frac_bits = width - 3 if frac_bits is None else frac_bits
        self._graph = graph
        self._formats = {"width": width, "frac_bits": frac_bits, "guard_bits": guard_bits}
        self._plan = plan_machine(graph, **self._formats, processors=processors)
        if min(self._plan.start.values()) < 1:   # the issue is decoded a cycle ahead
            raise ValueError(f"{graph.name}: a CCM of constants alone; the machine's CCMs read "
                             f"a value")
        super().__init__({name: signed(width) for name in graph.inputs},
                         {**{name: signed(width) for name in graph.outputs},
                          "unreachable": 1}, tag_width=tag_width)

    @property
    def plan(self):
        """The :class:`~robohw.legs.machine.MachinePlan` it runs."""
        return self._plan

    @property
    def graph(self):
        return self._graph

    @property
    def width(self):
        """The ports' width."""
        return self._formats["width"]

    @property
    def formats(self):
        """``{"width", "frac_bits", "guard_bits"}`` as built."""
        return dict(self._formats)

    @property
    def latency(self):
        """Cycles from an input transfer to its outputs: one to take the state, the plan's
        latency (its last value written), one to offer the outputs."""
        return self._plan.latency + 2

    @property
    def interval(self):
        """Cycles between states under continuous input: the latency (a state is taken in
        the cycle the previous one's outputs leave)."""
        return self.latency

    def elaborate(self, platform):
        m = Module()
        graph, plan = self._graph, self._plan
        width, frac_bits, guard = (self._formats[k] for k in ("width", "frac_bits",
                                                              "guard_bits"))
        inside = width + guard
        by_name = {c.name: c for c in graph.ccms}

        # Control: take a state when idle, run the counter through the plan, offer the
        # outputs, take the next state in the cycle they leave.
        cycle = Signal(range(plan.latency + 1), name="cycle")
        running, offered = Signal(name="running"), Signal(name="offered")
        take = Signal()
        m.d.comb += [self.i.ready.eq(~running & (~offered | self.o.ready)),
                     take.eq(self.i.valid & self.i.ready), self.o.valid.eq(offered)]
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += offered.eq(0)
        with m.If(running):
            m.d.sync += cycle.eq(cycle + 1)
            with m.If(cycle == plan.latency):
                m.d.sync += [running.eq(0), offered.eq(1)]
        error = Signal(name="error")
        flags = []                       # (cycle, flag): OR-ed into error in that cycle
        state = {}
        for name in graph.inputs:        # exact: guard bits are fraction bits
            state[name] = Signal(signed(inside), name=f"in_{name}", reset_less=True)
        tag = Signal(self.tag_width, name="tag", reset_less=True)
        with m.If(take):
            m.d.sync += [running.eq(1), cycle.eq(0), error.eq(0), tag.eq(self.i.payload.tag)]
            m.d.sync += [state[n].eq(getattr(self.i.payload, n).as_signed() << guard)
                         for n in graph.inputs]

        # Register files: (value, processor) -> register; a value is (source, port), an
        # input's port None.
        files = {}

        def register(value, processor):
            key = (value, processor)
            if key not in files:
                files[key] = Signal(signed(inside), reset_less=True,
                                    name=f"p{processor}_{value[0]}_{value[1] or 'in'}")
            return files[key]

        def read_at(processor):
            def read(source, port):
                if source in by_name:
                    return register((source, port), processor)
                return register((source, None), processor)
            return read

        lsb = FixedFormat(inside, frac_bits + guard).lsb
        guards = defaultdict(list)
        for g in graph.guards:
            guards[g.source].append(g)

        def guarded(source, port, value):
            small = [(value < guard_code(g, lsb)) & (value > -guard_code(g, lsb))
                     for g in guards[source] if port is None or g.port == port]
            return Cat(*small).any() if small else None

        # The bus: one word a cycle, the sender's register (or an input of the state).
        bus = Signal(signed(inside), name="bus")
        with m.Switch(cycle):
            for t in plan.transfers:
                with m.Case(t.cycle):
                    value = (t.source, t.port)
                    source = state[t.source] if t.sender is None else \
                        register(value, t.sender)
                    m.d.comb += bus.eq(source)
        for t in plan.transfers:
            for reader in t.readers:
                with m.If(running & (cycle == t.cycle)):
                    m.d.sync += register((t.source, t.port), reader).eq(bus)
        for name in graph.inputs:
            small = guarded(name, None, state[name])
            if small is not None:
                flags.append((0, small))

        # The processors.
        own = defaultdict(list)
        for name in plan.start:
            own[plan.processor[name]].append(name)
        for processor, names in sorted(own.items()):
            names.sort(key=plan.start.get)
            modes = sorted({(by_name[n].system, by_name[n].direction, by_name[n].expansion)
                            for n in names}, key=str)
            mode_configs = [CordicConfig(s, d, width=inside, frac_bits=frac_bits + guard,
                                         expansion=e) for s, d, e in modes]
            mode_of = {n: modes.index((by_name[n].system, by_name[n].direction,
                                       by_name[n].expansion)) for n in names}
            # The micro-program's issue: the CCM whose operands are formed in this cycle, its
            # index registered a cycle ahead (the counter's next value is known).
            issuing = Signal(name=f"p{processor}_issuing")
            index = Signal(range(max(len(names), 2)), name=f"p{processor}_index")
            m.d.sync += issuing.eq(0)
            with m.Switch(cycle):
                for k, name in enumerate(names):
                    with m.Case(plan.start[name] - 1):
                        m.d.sync += [index.eq(k), issuing.eq(running)]
            operands, overflows = {}, []
            for slot in "xyz":
                value, overflow = _shared_operand(
                    m, f"p{processor}", [(by_name[n], getattr(by_name[n], slot)) for n in names],
                    slot, index, read_at(processor), width, frac_bits, guard)
                operands[slot] = Signal(signed(inside), name=f"p{processor}_op_{slot}",
                                        reset_less=True)
                with m.If(issuing):
                    m.d.sync += operands[slot].eq(value)
                overflows.append(overflow)
            mode = Signal(range(max(len(modes), 2)), name=f"p{processor}_mode",
                          reset_less=True)
            start = Signal(name=f"p{processor}_start")
            m.d.sync += [mode.eq(Array(Const(mode_of[n], mode.shape()) for n in names)[index]),
                         start.eq(issuing)]
            with m.If(issuing & Cat(*overflows).any()):
                m.d.sync += error.eq(1)
            unit = multimode_datapath(m, mode_configs, operands["x"], operands["y"],
                                      operands["z"], mode, start, name=f"p{processor}_cordic")
            for name in names:
                # The result is at the unit's outputs in the cycle before its write-back.
                ready = plan.finish[name] - WRITEBACK_CYCLES
                ports = graph.used_ports(name)
                with m.If(running & (cycle == ready)):
                    for port in ports:
                        m.d.sync += register((name, port), processor).eq(unit.outputs[port])
                flag = Cat(unit.outputs["domain_error"],
                           *(unit.outputs[f"{p}_overflow"] for p in ports)).any()
                for port in ports:
                    small = guarded(name, port, unit.outputs[port])
                    if small is not None:
                        flag = flag | small
                flags.append((ready, flag))
        with m.If(running):
            with m.Switch(cycle):
                by_cycle = defaultdict(list)
                for at, flag in flags:
                    by_cycle[at].append(flag)
                for at, listed in sorted(by_cycle.items()):
                    with m.Case(at):
                        with m.If(Cat(*listed).any()):
                            m.d.sync += error.eq(1)

        # The outputs, from the register files: rounded half to even to the ports.
        saturated = []
        for name, (source, port) in graph.outputs.items():
            value = hdl_round_shift(register((source, port), plan.processor[source]), guard,
                                    Rounding.HALF_EVEN)
            if graph.is_angle(source, port):
                value = value[:width].as_signed()
            else:
                value, overflow = hdl_saturate(value, width)
                saturated.append(overflow)
            m.d.comb += getattr(self.o.payload, name).eq(value)
        m.d.comb += [self.o.payload.unreachable.eq(error | Cat(*saturated).any()),
                     self.o.payload.tag.eq(tag)]
        return m
