"""Gosselin's machine in hardware: the plan of :mod:`robohw.legs.machine_plan` as its program.

Every processor is a register file (the plan's :attr:`~robohw.legs.machine_plan.MachinePlan.
registers`: values share registers when their lives do not overlap) and one
:func:`~robohw.cordic.multimode.multimode_datapath` (the modes its CCMs use, at the graph's
internal width). The file is the plan's banks, each a memory written only by its bank's
writer (the CORDIC's ``x``, ``y`` or ``z``, or the bus) and read asynchronously by every
port that reads it: LUT RAM on the ECP5, where registers needed a tree of multiplexers per
read. Nothing is decoded from a global cycle count: each processor runs short programs of
events, a ROM each (the CCMs it issues, the results it writes back, the words it sends, the
sender it listens to and the words it receives). A program's sequencer counts down the
cycles to its next event and its ROM's read is registered, so every action is a register's
output in its cycle, decided in the cycle before from registers. The programs start from a
register a cycle after a state is taken (:data:`DECODE_CYCLES`).

One cycle each, so the clock meets the selections (:data:`~robohw.legs.machine_plan.
OPERAND_CYCLES`, :data:`~robohw.legs.machine_plan.BUS_CYCLES`):

- a CCM's six reads (source and addend of ``x``, ``y``, ``z``) from its file into registers;
  its operands formed from them (:func:`robohw.hw.fixed.hdl_add_sub_add`: sign, constant,
  addend; saturation) into the unit's operand registers; the unit started;
- a result at the unit's outputs written into the file where the program says;
- a bus word read from the sender's file into its send register (the host's from the head
  of a queue of the inputs, shifting every cycle the machine runs); across the chip into a
  relay at each reader; into the reader's bus register (a selection among the senders it
  hears); into the readers' files.

A state is taken when the machine is idle; its outputs are offered :attr:`LegMachine.latency`
cycles later and the next state may be taken in the cycle they leave. The error flag is
sticky over a state: a CCM's domain error, an overflow of an operand or of a port the graph
reads, a guarded value below its minimum, an output that saturates (``unreachable``, as the
pipelines name it). The bits equal :func:`robohw.taskgraph.model.evaluate_model` of the graph.
"""

from collections import defaultdict
from dataclasses import dataclass

from amaranth.hdl import Cat, Module, Mux, Signal, signed
from amaranth.lib import data
from amaranth.lib.memory import Memory

from robohw.cordic.config import CordicConfig, System
from robohw.cordic.multimode import multimode_datapath
from robohw.hw.fixed import (
    FixedFormat,
    Rounding,
    angle_to_code,
    hdl_add_sub_add,
    hdl_round_shift,
    hdl_saturate,
)
from robohw.hw.register_file import BankedFile, read_port
from robohw.hw.stream import StreamPipeline
from robohw.legs.machine_plan import BUS_CYCLES, WRITEBACK_CYCLES, plan_machine
from robohw.taskgraph.model import guard_code

__all__ = ["LegMachine", "DECODE_CYCLES"]

# The plan's cycle 0 is the machine's cycle 3: the programs start in the cycle after a state
# is taken (from a register: no path from the handshake to every program), the first bus
# word's read is read from its ROM in cycle 1 and decoded in cycle 2.
DECODE_CYCLES = 3
_SLOTS = "xyz"
_PORTS = "xyz"


def _program(m, name, events, start, widths=None):
    """A sequencer of ``events`` (``[(cycle, {field: int >= 0})]``, cycles distinct and at
    least 0, counted from the cycle after ``start``): returns ``(fire, row)``, ``fire`` high
    in the cycle after each event's and ``row`` (a view of the event's fields, read from a
    ROM; each as wide as its largest value, or as ``widths`` says) valid in it: the ROM's read
    is registered once more (a block RAM's output is slow).

    The ROM holds each event's fields and the cycles to the next event; a down-counter waits
    them out and the ROM's read port is addressed a cycle ahead, so ``fire`` is a register and
    events may follow in consecutive cycles. Done (and from reset) it addresses the first
    event and loads the wait for it, so ``start`` only clears ``done`` (and sets ``fire`` for
    an event in its cycle): a few loads for a signal every program takes. Only registers
    read the ROM: the sequencer decides from the registered row, which in an event's cycle
    holds the event's own row, or the one before when that event was the cycle before (so
    each row also holds the next event's gap)."""
    events = sorted(events, key=lambda e: e[0])
    cycles = [c for c, _ in events]
    if len(set(cycles)) != len(cycles) or cycles[0] < 0:
        raise ValueError(f"{name}: events need distinct cycles from 0, not {cycles}")
    gaps = [b - a for a, b in zip(cycles, cycles[1:])] + [0]     # 0: the last event

    def decoded(gap):                    # the gap as the sequencer uses it
        return {"last": int(gap == 0), "adjacent": int(gap == 1), "wait": max(gap - 2, 0)}
    fields = {f: max(max(v[f] for _, v in events).bit_length(), 1) for f in events[0][1]}
    fields.update(widths or {})
    gap_layout = data.StructLayout({"last": 1, "adjacent": 1,
                                    "wait": max(max(gaps) - 2, 1).bit_length()})
    layout = data.StructLayout({**fields, "own": gap_layout, "then": gap_layout})
    rom = Memory(shape=layout, depth=len(events),
                 init=[{**v, "own": decoded(gap), "then": decoded(then)}
                       for (_, v), gap, then in zip(events, gaps, gaps[1:] + [0])])
    m.submodules[f"{name}_rom"] = rom
    port = rom.read_port(domain="sync")
    held = Signal(layout, name=f"{name}_row", reset_less=True)
    m.d.sync += held.eq(port.data)
    index = Signal(range(len(events) + 1), name=f"{name}_index")
    fire, done = Signal(name=f"{name}_fire"), Signal(name=f"{name}_done", init=1)
    after = Signal(name=f"{name}_after")  # the event firing follows one the cycle before
    count = Signal(range(max(max(gaps), cycles[0], 2)), name=f"{name}_count")
    address = Mux(done, 0, Mux(fire, index + 1, index))
    m.d.comb += port.addr.eq(address)
    m.d.sync += index.eq(address)
    last, adjacent, wait = (Mux(after, held.then[f], held.own[f])
                            for f in ("last", "adjacent", "wait"))
    with m.If(start):
        m.d.sync += done.eq(0)
        if cycles[0] == 0:
            m.d.sync += fire.eq(1)
    with m.Elif(fire):
        m.d.sync += after.eq(adjacent)
        with m.If(last):
            m.d.sync += [fire.eq(0), done.eq(1)]
        with m.Else():
            m.d.sync += [fire.eq(adjacent), count.eq(wait)]
    with m.Elif(~done):
        with m.If(~count.any()):
            m.d.sync += fire.eq(1)
        with m.Else():
            m.d.sync += count.eq(count - 1)
    with m.Else():                       # done: ready for the next start
        m.d.sync += [count.eq(max(cycles[0] - 1, 0)), after.eq(0)]
    fired = Signal(name=f"{name}_fired")
    m.d.sync += fired.eq(fire)
    return fired, held


def _senders(senders):
    """Senders in order: the host (``None``), then the processors by number."""
    return sorted(senders, key=lambda s: -1 if s is None else s)


def _banks(m, name, plan, processor, shape):
    """Processor ``processor``'s register file as the plan's banks
    (:data:`~robohw.legs.machine_plan.BANKS`; the plan allocates a bank's registers in one run)."""
    return BankedFile(m, name, {r: plan.bank(key) for key, r in plan.registers.items()
                                if key[1] == processor}, shape)


def _read(m, file, name, fire, row, prefix, registers):
    """The register that ``row``'s :meth:`~robohw.hw.register_file.BankedFile.fields` of
    ``prefix`` name, in the cycles after ``fire`` loads them into each bank's own registers."""
    held = {}
    for field, bits in file.widths(prefix, registers).items():
        held[field] = Signal(bits, name=f"{name}_{field[len(prefix) + 1:]}", reset_less=True)
        with m.If(fire):
            m.d.sync += held[field].eq(getattr(row, field))
    return file.read(m, held, prefix, registers)


class LegMachine(StreamPipeline):
    """One processor per leg and a platform processor on a one-word bus, running a task graph
    by its :class:`~robohw.legs.machine_plan.MachinePlan`.

    Parameters
    ----------
    graph : :class:`robohw.taskgraph.graph.TaskGraph`
        CCMs named by leg (``leg{i}_...``; the rest run on the platform processor), without
        branch indicators.
    width, frac_bits, guard_bits : int
        The ports' width, the reals' fraction bits (default ``width - 3``) and the guard bits
        inside, as :class:`robohw.taskgraph.pipeline.TaskGraphPipeline` takes them.
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
        if any(source not in self._plan.processor for source, _ in graph.outputs.values()):
            raise ValueError(f"{graph.name}: the machine's outputs are CCM ports")
        super().__init__({name: signed(width) for name in graph.inputs},
                         {**{name: signed(width) for name in graph.outputs},
                          "unreachable": 1}, tag_width=tag_width)

    @property
    def plan(self):
        """The :class:`~robohw.legs.machine_plan.MachinePlan` it runs."""
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
        """Cycles from an input transfer to its outputs: one to take the state,
        :data:`DECODE_CYCLES`, the plan's latency (its last value written), one to offer the
        outputs."""
        return 1 + DECODE_CYCLES + self._plan.latency + 1

    @property
    def interval(self):
        """Cycles between states under continuous input: the latency (a state is taken in
        the cycle the previous one's outputs leave)."""
        return self.latency

    def elaborate(self, platform):
        m = Module()
        build = _Build(m, self._graph, self._plan, **self._formats)
        control = self._control(build)
        inputs = self._inputs(build, control)
        # The register files: each processor's banks, a memory each (LUT RAM on the ECP5).
        files = defaultdict(dict)        # processor -> {value: register index}
        for (value, processor), index in build.plan.registers.items():
            files[processor][value] = index
        banks = {p: _banks(m, f"p{p}", build.plan, p, signed(build.inside)) for p in files}
        _bus(build, control, inputs, files, banks)
        own = defaultdict(list)
        for name in build.plan.start:
            own[build.plan.processor[name]].append(name)
        for processor, names in sorted(own.items()):
            names.sort(key=build.plan.start.get)
            _processor(build, processor, names, files[processor], banks[processor])
        with m.If(Cat(*build.flags).any()):  # set by this state's flags (the first: when begun)
            m.d.sync += control.error.eq(1)
        with m.Elif(control.begin):
            m.d.sync += control.error.eq(0)
        self._outputs(build, control, files, banks)
        return m

    def _control(self, build):
        """Take a state when idle, run through the plan, offer the outputs, take the next
        state in the cycle they leave. Plan cycle p is running cycle p + DECODE_CYCLES."""
        m = build.m
        end = build.plan.latency + DECODE_CYCLES
        cycle = Signal(range(end + 1), name="cycle")
        running, offered = Signal(name="running"), Signal(name="offered")
        take = Signal()
        m.d.comb += [self.i.ready.eq(~running & (~offered | self.o.ready)),
                     take.eq(self.i.valid & self.i.ready), self.o.valid.eq(offered)]
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += offered.eq(0)
        with m.If(running):
            m.d.sync += cycle.eq(cycle + 1)
            with m.If(cycle == end):
                m.d.sync += [running.eq(0), offered.eq(1)]
        error = Signal(name="error")
        tag = Signal(self.tag_width, name="tag", reset_less=True)
        with m.If(take):
            m.d.sync += [running.eq(1), cycle.eq(0), tag.eq(self.i.payload.tag)]
        build.begin = Signal(name="begin")  # the programs start from it, not the handshake
        m.d.sync += build.begin.eq(take)
        return _Control(end=end, cycle=cycle, running=running, take=take, begin=build.begin,
                        error=error, tag=tag)

    def _inputs(self, build, control):
        """The inputs at the internal width (exact: guard bits are fraction bits), their
        guards' flag registered as the state is taken."""
        inputs = {n: getattr(self.i.payload, n).as_signed() << build.guard
                  for n in build.graph.inputs}
        input_guards = [_below(value, build.guard_of(n, None)) for n, value in inputs.items()
                        if build.guard_of(n, None)]
        if input_guards:
            build.flags.append(build.registered("input_guard",
                                                control.take & Cat(*input_guards).any(), 1))
        return inputs

    def _outputs(self, build, control, files, banks):
        """The outputs, from the register files as the run ends: rounded half to even into
        registers (the ports' fields)."""
        m, graph, plan, width = build.m, build.graph, build.plan, build.width
        ending = Signal(name="ending")   # a register: it enables every output register
        m.d.sync += ending.eq(control.running & (control.cycle == control.end - 1))
        saturated = []
        for name, (source, port) in graph.outputs.items():
            owner = plan.processor[source]
            value = hdl_round_shift(banks[owner].peek(m, files[owner][(source, port)]),
                                    build.guard, Rounding.HALF_EVEN)
            if graph.is_angle(source, port):
                value = value[:width].as_signed()
            else:
                value, overflow = hdl_saturate(value, width)
                saturated.append(overflow)
            out = Signal(signed(width), name=f"out_{name}", reset_less=True)
            with m.If(ending):
                m.d.sync += out.eq(value)
            m.d.comb += getattr(self.o.payload, name).eq(out)
        clamped = Signal(name="out_saturated")
        with m.If(ending):
            m.d.sync += clamped.eq(Cat(*saturated).any())
        m.d.comb += [self.o.payload.unreachable.eq(control.error | clamped),
                     self.o.payload.tag.eq(control.tag)]


@dataclass
class _Control:
    """The machine's control signals (:meth:`LegMachine._control`)."""
    end: int                             # the running cycle of the plan's last
    cycle: Signal
    running: Signal
    take: Signal                         # a state is taken in this cycle
    begin: Signal                        # the cycle after: the programs start
    error: Signal                        # sticky over a state
    tag: Signal


class _Build:
    """What the parts of one elaboration share: the module, the plan and formats, the flags
    OR-ed into the error (registered, in the next cycle), and the helpers every part uses."""

    def __init__(self, m, graph, plan, *, width, frac_bits, guard_bits):
        self.m, self.graph, self.plan = m, graph, plan
        self.width, self.frac_bits, self.guard = width, frac_bits, guard_bits
        self.inside = width + guard_bits
        self.lsb = FixedFormat(self.inside, frac_bits + guard_bits).lsb
        self.by_name = {c.name: c for c in graph.ccms}
        self.flags = []
        self.begin = None                # set by LegMachine._control
        self.guards = defaultdict(list)
        for g in graph.guards:
            self.guards[g.source].append(g)

    def program(self, name, events, widths=None):
        """``(fire, row)`` of ``events`` given at plan cycles: valid a cycle ahead, so the
        action is a register of them."""
        return _program(self.m, name, [(c - 3 + DECODE_CYCLES, f) for c, f in events],
                        self.begin, widths)

    def registered(self, name, value, shape=None):
        reg = Signal(shape if shape is not None else value.shape(), name=name,
                     reset_less=True)
        self.m.d.sync += reg.eq(value)
        return reg

    def guard_of(self, source, port):
        codes = [guard_code(g, self.lsb) for g in self.guards[source] if port is None or
                 g.port == port]
        return max(codes, default=0)


def _below(value, code):                 # a guarded value below its minimum (code 0: none)
    return (value < code) & (value > -code)


def _bus(build, control, inputs, files, banks):
    """The bus: each sender's send register, each reader's bus register, its writes. The host
    sends every input once: from a queue that takes the inputs while the machine is idle and
    shifts every cycle while it runs, each input in the slot that reaches the head in the plan
    cycle of its send (the plan sends them first: a short queue). No program, no selection
    across the inputs, no enable from the handshake."""
    m, plan, inside = build.m, build.plan, build.inside
    program, registered = build.program, build.registered
    words = {t.cycle: t.source for t in plan.transfers if t.sender is None}
    send_regs = {}
    if words:
        slots = [inputs[words[k - DECODE_CYCLES]] if k - DECODE_CYCLES in words else 0
                 for k in range(max(words) + DECODE_CYCLES + 1)]
        queue = [Signal(signed(inside), name=f"host_queue{k}", reset_less=True)
                 for k in range(len(slots))]
        with m.If(control.running):
            m.d.sync += [reg.eq(after) for reg, after in zip(queue, queue[1:])]
        with m.Else():
            m.d.sync += [reg.eq(value) for reg, value in zip(queue, slots)]
        send_regs[None] = registered("host_send", queue[0])
    for sender in _senders({t.sender for t in plan.transfers} - {None}):
        words = [t for t in plan.transfers if t.sender == sender]
        file = banks[sender]
        sent = sorted({files[sender][(t.source, t.port)] for t in words})
        fire, row = program(f"p{sender}_send", [
            (t.cycle, file.fields("read", sent, files[sender][(t.source, t.port)]))
            for t in words], file.widths("read", sent))
        send_regs[sender] = registered(f"p{sender}_send",
                                       _read(m, file, f"p{sender}_send", fire, row,
                                             "read", sent), signed(inside))
    # Each reader copies the send registers of the senders it hears into relays of its own (a
    # cycle for the wire across the chip), then selects the sender of the words it takes into
    # its bus register.
    for processor in files:
        words = [t for t in plan.transfers if processor in t.readers]
        if not words:
            continue
        heard = _senders({t.sender for t in words})
        fire, row = program(f"p{processor}_listen",
                            [(t.cycle + BUS_CYCLES - 2, {"sender": heard.index(t.sender)})
                             for t in words])
        select = Signal(range(max(len(heard), 2)), name=f"p{processor}_listen_select",
                        reset_less=True)
        with m.If(fire):
            m.d.sync += select.eq(row.sender)
        relays = [registered(f"p{processor}_from_{'host' if s is None else f'p{s}'}",
                             send_regs[s]) for s in heard]
        bus = registered(f"p{processor}_bus", read_port(relays, select), signed(inside))
        file = banks[processor]
        fire, row = program(f"p{processor}_receive",
                            [(t.cycle + BUS_CYCLES - 1,
                              {"write": file.address(files[processor][(t.source, t.port)])})
                             for t in words])
        file.write(m, "bus", registered(f"p{processor}_receiving", fire, 1),
                   registered(f"p{processor}_receive_at", row.write), bus)


def _processor(build, processor, names, index, file):
    """Processor ``processor`` running its CCMs ``names`` (in their start order) on its file
    ``file`` (``index``: value -> register): their issue, operands, unit and write-back."""
    m, by_name = build.m, build.by_name
    inside, frac_bits, guard = build.inside, build.frac_bits, build.guard
    p = f"p{processor}"
    modes = sorted({(by_name[n].system, by_name[n].direction, by_name[n].expansion)
                    for n in names}, key=str)
    configs = [CordicConfig(s, d, width=inside, frac_bits=frac_bits + guard, expansion=e)
               for s, d, e in modes]
    operands, mode, start = _issue(build, p, names, modes, index, file)
    unit = multimode_datapath(m, configs, operands["x"], operands["y"], operands["z"], mode,
                              start, name=f"{p}_cordic")
    _write_back(build, p, processor, names, file, unit)


def _issue(build, p, names, modes, index, file):
    """The issue of a processor's CCMs: the reads in the CCM's start cycle, the operands' sums
    in the next, the operands in the one after, the unit started in the next
    (OPERAND_CYCLES). Each of the six reads (source and addend of x, y, z) reaches the banks
    holding the registers it ever reads, no more. Returns the operand registers, the mode and
    the start."""
    m, plan, by_name = build.m, build.plan, build.by_name
    inside, width, frac_bits, guard = build.inside, build.width, build.frac_bits, build.guard
    registered = build.registered

    def read_key(source, port):
        return (source, port if source in plan.processor else None)

    parts = {(slot, part): (lambda op, part=part: op if part == "source" else op.addend)
             for slot in _SLOTS for part in ("source", "addend")}
    reached = defaultdict(set)
    for n in names:
        for (slot, part), term in parts.items():
            op = term(getattr(by_name[n], slot))
            if op is not None and op.source is not None:
                reached[(slot, part)].add(index[read_key(op.source, op.port)])
    reached = {role: sorted(registers) for role, registers in reached.items()}
    issues = []
    for n in names:
        ccm, fields = by_name[n], {}
        fields["mode"] = modes.index((ccm.system, ccm.direction, ccm.expansion))
        for slot in _SLOTS:
            op = getattr(ccm, slot)
            angle = ccm.system is System.CIRCULAR and slot == "z"
            constant = int(angle_to_code(op.constant, inside)) if angle else \
                round(op.constant / 2.0 ** -(frac_bits + guard))
            fields.update({f"{slot}_minus": int(op.sign < 0 and op.source is not None),
                           f"{slot}_constant": constant % (1 << inside),
                           f"{slot}_addend_minus": int(op.addend is not None and
                                                       op.addend.sign < 0),
                           f"{slot}_turns": int(op.turns), f"{slot}_angle": int(angle)})
            for (role_slot, part), term in parts.items():
                if role_slot != slot or (slot, part) not in reached:
                    continue
                read_op = term(op)
                used = read_op is not None and read_op.source is not None
                fields.update(file.fields(f"{slot}_{part}", reached[(slot, part)], index[
                    read_key(read_op.source, read_op.port)] if used else None))
        issues.append((plan.start[n], fields))
    reads = {}                           # the read fields' widths
    for (slot, part), registers in reached.items():
        reads.update(file.widths(f"{slot}_{part}", registers))
    widths = {**{f"{slot}_constant": inside for slot in _SLOTS}, **reads}
    fire, row = build.program(f"{p}_issue", issues, widths)
    decoded = {f: Signal(len(getattr(row, f)), name=f"{p}_issue_{f}", reset_less=True)
               for f in issues[0][1] if f not in reads}
    with m.If(fire):
        m.d.sync += [reg.eq(getattr(row, f)) for f, reg in decoded.items()]
    issued = registered(f"{p}_issued", fire, 1)
    read, later = {}, {}
    for role in parts:
        slot, part = role
        if role not in reached:
            read[role] = 0
            continue
        value = _read(m, file, f"{p}_{slot}_{part}", fire, row, f"{slot}_{part}",
                      reached[role])
        read[role] = registered(f"{p}_read_{slot}_{part}", value, signed(inside))
    for f, reg in decoded.items():
        later[f] = registered(f"{p}_formed_{f}", reg)
    # The sums in one cycle, saturated into the operand registers in the next.
    forming = registered(f"{p}_forming", issued, 1)
    summed = registered(f"{p}_summed", forming, 1)
    operands, overflows = {}, []
    for slot in _SLOTS:
        source = read[(slot, "source")]
        turns = later[f"{slot}_turns"]
        source = Mux(turns, source << (width - frac_bits), source)
        value = registered(f"{p}_sum_{slot}", hdl_add_sub_add(
            later[f"{slot}_constant"].as_signed(), source, later[f"{slot}_minus"],
            read[(slot, "addend")], later[f"{slot}_addend_minus"]))
        saturated, overflow = hdl_saturate(value, inside)
        angle = registered(f"{p}_summed_angle_{slot}", later[f"{slot}_angle"])
        operands[slot] = Signal(signed(inside), name=f"{p}_op_{slot}", reset_less=True)
        with m.If(summed):
            m.d.sync += operands[slot].eq(Mux(angle, value[:inside].as_signed(), saturated))
        overflows.append(overflow & ~angle)
    build.flags.append(registered(f"{p}_operand_overflow", summed & Cat(*overflows).any(), 1))
    mode = registered(f"{p}_mode", registered(f"{p}_summed_mode", later["mode"]))
    start = registered(f"{p}_start", summed, 1)
    return operands, mode, start


def _write_back(build, p, processor, names, file, unit):
    """The write-back of a processor's results: at the unit's outputs in the cycle before its
    finish (WRITEBACK_CYCLES), with their checks (overflow of a port the graph reads, a
    guarded value below its minimum) flagged."""
    m, plan, graph, registered = build.m, build.plan, build.graph, build.registered
    backs = []
    for n in names:
        fields = {}
        for port in _PORTS:
            key = ((n, port), processor)
            fields[f"{port}_write"] = file.address(plan.registers[key]) \
                if key in plan.registers else 0
            fields[f"{port}_keep"] = int(key in plan.registers)
            fields[f"{port}_check"] = int(port in graph.used_ports(n))
            fields[f"{port}_guard"] = build.guard_of(n, port) \
                if port in graph.used_ports(n) else 0
        backs.append((plan.finish[n] - WRITEBACK_CYCLES, fields))
    fire, row = build.program(f"{p}_writeback", backs)
    checks = {f: registered(f"{p}_writeback_{f}", getattr(row, f))
              for f in backs[0][1] if f.endswith(("_check", "_guard"))}
    writing = registered(f"{p}_writing", fire, 1)
    flag = unit.outputs["domain_error"]
    for port in _PORTS:
        flag = flag | (checks[f"{port}_check"] & unit.outputs[f"{port}_overflow"])
        if any(f[f"{port}_guard"] for _, f in backs):
            flag = flag | _below(unit.outputs[port], checks[f"{port}_guard"].as_unsigned())
    build.flags.append(registered(f"{p}_result_flag", writing & flag, 1))
    for port in _PORTS:
        file.write(m, port, registered(f"{p}_{port}_keeping",
                                       fire & getattr(row, f"{port}_keep"), 1),
                   registered(f"{p}_{port}_back_at", getattr(row, f"{port}_write")),
                   unit.outputs[port])
