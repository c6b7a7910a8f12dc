"""Gosselin's machine planned cycle by cycle: one processor per leg and one platform processor,
each a register file and one word-serial CORDIC that executes its CCMs one after another, on a
shared bus that carries one word a cycle (the broadcast of the state,
the gather to the platform processor, the scatter of the forces back).

The machine (ours; the paper's Figs. 2 and 4 are not in the text):

- processor ``i`` (1..n) runs leg ``i``'s CCMs (names ``leg{i}_...``, also after a prefix:
  the forward kinematics' ``i{k}_leg{i}_...``), processor 0 the rest (the platform's wrench
  and the solve, the pose update); with ``processors=1`` one processor runs them all (the
  paper's serial baseline);
- a CCM starts when its processor's CORDIC is free and its operands are in its registers;
  it takes three cycles to form its operands (:data:`OPERAND_CYCLES`: its registers read,
  summed, saturated), then :func:`robohw.cordic.word_serial.word_serial_period` cycles to its
  result, and one to write it into the register file; its CORDIC takes the next CCM after its
  register steps (``C R`` cycles, the word-serial unit's interval), all at the graph's
  internal width (:class:`robohw.cordic.multimode.MultiModeCordic`);
- the bus moves one word a cycle, readable by its destinations :data:`BUS_CYCLES` later: the
  graph's inputs first (a broadcast: every processor that reads a word takes it from the one
  transfer), then every value one processor computes and another reads, once per value;
- both list-schedule by urgency: the longest chain of cycles from the CCM (or a word's most
  urgent reader) to the end;
- each processor's values share its registers: a value holds a register from the cycle it is
  readable to its last read (by a CCM, the bus, or the outputs: to the end). The registers
  come in banks by the value's writer (:data:`BANKS`: the CORDIC's ``x``, ``y`` or ``z``
  port, or the bus), so each register has one source and no write multiplexer; in each bank
  the left-edge rule gives each value the first register free then
  (:attr:`MachinePlan.registers`, as few as the bank's most values alive at once).

The outputs stay where they are computed (each actuator's force on its leg's processor).
:class:`robohw.legs.leg_machine.LegMachine` is this machine in hardware, the plan its program.
"""

import functools
import re
from collections import defaultdict
from dataclasses import dataclass, field

from robohw.cordic.config import CordicConfig
from robohw.cordic.datapath import register_steps
from robohw.cordic.word_serial import word_serial_period
from robohw.hw.register_file import left_edge

__all__ = ["MachinePlan", "plan_machine", "processor_of", "ccm_timing", "OPERAND_CYCLES",
           "WRITEBACK_CYCLES", "BUS_CYCLES", "PHASES", "BANKS"]

# A CCM's operands: its registers read (one register stage: a selection among the file),
# summed (sign, constant, addend: two adders), saturated into the unit's operand registers;
# one more cycle writes a result into the register file. Each its own cycle for the clock
# (robohw.legs.leg_machine).
OPERAND_CYCLES = 3
WRITEBACK_CYCLES = 1
# A bus word: read from the sender's file, across the chip into a relay at each reader,
# through the reader's selection among the senders, written into the readers' files;
# readable in the cycle after.
BUS_CYCLES = 4
# A register file's banks, by the writer of their values: one source per register, no write
# multiplexer (a file of shared registers spent about 7k LUT4 of the hexapod's on them).
BANKS = ("x", "y", "z", "bus")

# What the phases of the report are, by CCM name (robohw.legs.dynamics_graph) and bus word.
PHASES = ("broadcast", "legs", "gather", "solve", "scatter", "forces")


# A leg processor's CCMs: ``leg{i}_...``, after a prefix such as a Newton iteration's ``i2_``.
_LEG = re.compile(r"(?:^|_)leg(\d+)_")


def processor_of(name):
    """The processor that runs CCM ``name``: ``i`` for ``leg{i}_...`` (or ``{prefix}_leg{i}_
    ...``), else 0."""
    match = _LEG.search(name)
    return int(match.group(1)) if match else 0


def _phase(name):
    if "_h_" in name:
        return "forces"
    return "legs" if _LEG.search(name) else "solve"


@dataclass(frozen=True)
class Transfer:
    """One bus word: ``cycle`` it occupies the bus, the value ``(source, port)`` (a graph input
    has port ``None``), from processor ``sender`` (``None``: the host) to ``readers``."""
    cycle: int
    source: str
    port: "str | None"
    sender: "int | None"
    readers: tuple

    @property
    def phase(self):
        """``broadcast`` (an input), ``gather`` (to processor 0) or ``scatter`` (from it)."""
        if self.sender is None:
            return "broadcast"
        return "gather" if self.readers == (0,) else "scatter"


@dataclass
class MachinePlan:
    """The cycle-by-cycle plan of a task graph on the machine: every CCM's ``start`` and
    ``finish`` (its result readable from then), its ``processor``, the bus ``transfers``, the
    ``latency`` (cycles from the first bus word to the last result), every processor's
    ``busy`` cycles (its CORDIC occupied) and ``registers``: ``{(value, processor): index}``
    of every value a processor holds (``value`` = ``(source, port)``, an input's port
    ``None``) in that processor's register file (see the module docstring)."""
    graph: object
    processors: int
    start: dict = field(default_factory=dict)
    finish: dict = field(default_factory=dict)
    processor: dict = field(default_factory=dict)
    transfers: list = field(default_factory=list)
    busy: dict = field(default_factory=dict)
    latency: int = 0
    registers: dict = field(default_factory=dict)

    def bank(self, key):
        """The bank (:data:`BANKS`) of ``key = (value, processor)``: the port of the
        processor's own CCM that writes it, or ``"bus"`` (an input, another's result)."""
        (source, port), processor = key
        own = source in self.processor and self.processor[source] == processor
        return port if own else "bus"

    def register_count(self, processor):
        """Registers in ``processor``'s file."""
        return 1 + max((r for (_, p), r in self.registers.items() if p == processor),
                       default=-1)

    def phase_spans(self):
        """``{phase: (first cycle, last cycle + 1, count)}``: the bus words of each kind and
        the CCMs of each phase (:data:`PHASES`)."""
        spans = {}

        def extend(phase, first, last):
            low, high, count = spans.get(phase, (first, last, 0))
            spans[phase] = (min(low, first), max(high, last), count + 1)

        for t in self.transfers:
            extend(t.phase, t.cycle, t.cycle + 1)
        for name, start in self.start.items():
            extend(_phase(name), start, self.finish[name])
        return {p: spans[p] for p in PHASES if p in spans}

    @property
    def interval(self):
        """Cycles between states when successive states overlap (a processor starts the next
        state's CCMs while the others finish this one's): the busiest processor or the bus."""
        return max(max(self.busy.values()), len(self.transfers))


def ccm_timing(graph, width, frac_bits, guard_bits):
    """``{ccm: (latency, occupancy)}`` of every CCM on a word-serial CORDIC: from its operand
    cycle to its value in the register file, and from its operand cycle to the one in which
    the next CCM's operands may be formed."""
    out = {}
    for ccm in graph.ccms:
        config = _config(ccm.system, ccm.direction, width + guard_bits, frac_bits + guard_bits,
                         ccm.expansion)
        out[ccm.name] = (OPERAND_CYCLES + word_serial_period(config) + WRITEBACK_CYCLES,
                         2 * len(register_steps(config)))   # registered shift: 2 a step
    return out


@functools.lru_cache(maxsize=64)
def _config(system, direction, width, frac_bits, expansion):
    return CordicConfig(system, direction, width=width, frac_bits=frac_bits,
                        expansion=expansion)


def plan_machine(graph, *, width=24, frac_bits=None, guard_bits=0, processors=None):
    """The :class:`MachinePlan` of ``graph`` (a
    :class:`~robohw.taskgraph.graph.TaskGraph` whose CCMs are named by leg) at ``width``-bit
    ports, ``frac_bits`` (default ``width - 3``) and ``guard_bits`` as the pipelines take them;
    ``processors``: ``None`` for one per leg and the platform processor, or 1 for one processor
    running everything."""
    frac_bits = width - 3 if frac_bits is None else frac_bits
    if processors not in (None, 1):
        raise ValueError(f"processors must be None (one per leg and one for the platform) or "
                         f"1, not {processors!r}")
    timing = ccm_timing(graph, width, frac_bits, guard_bits)
    where = {c.name: (0 if processors == 1 else processor_of(c.name)) for c in graph.ccms}
    reads = {c.name: sorted({(s, p if s in where else None)
                             for _, op in c.operands() for s, p in op.sources()})
             for c in graph.ccms}
    readers = defaultdict(set)           # value -> processors that read it
    for name, values in reads.items():
        for value in values:
            if value[0] not in where or where[value[0]] != where[name]:
                readers[value].add(where[name])
    # Urgency: the longest chain of latencies from a CCM's start to the end.
    urgency = {}
    consumers = defaultdict(list)
    for name, values in reads.items():
        for source, _ in values:
            consumers[source].append(name)
    for ccm in reversed(graph.ccms):
        urgency[ccm.name] = timing[ccm.name][0] + max(
            (urgency[c] for c in consumers[ccm.name]), default=0)

    def word_urgency(value):
        return max(urgency[c] for c in consumers[value[0]] if
                   (value[1] is None or value in reads[c]) and where[c] in readers[value])

    plan = MachinePlan(graph, processors or len({*where.values()}), processor=dict(where))
    arrived = {}                          # (value, processor) -> cycle it is readable there
    pending = [v for v in readers if v[0] not in where]     # the inputs, at the host
    waiting = {c.name for c in graph.ccms}
    free_at = defaultdict(int)            # processor -> cycle its CORDIC takes the next CCM
    produces = defaultdict(list)
    for value in readers:
        if value[0] in where:
            produces[value[0]].append(value)

    def available(value, at):             # readable at processor where[name] at cycle at
        return value[0] not in where or plan.finish[value[0]] <= at

    def ready(name, at):
        for value in reads[name]:
            source = value[0]
            if source in where and where[source] == where[name]:
                if plan.finish.get(source, at + 1) > at:
                    return False
            elif arrived.get((value, where[name]), at + 1) > at:
                return False
        return True

    cycle = 0
    while waiting or pending:
        moved = False
        # The bus: the most urgent word whose value is there.
        candidates = [v for v in pending if available(v, cycle)]
        if candidates:
            value = max(candidates, key=lambda v: (word_urgency(v), v))
            pending.remove(value)
            plan.transfers.append(Transfer(cycle, value[0], value[1], where.get(value[0]),
                                           tuple(sorted(readers[value]))))
            for reader in readers[value]:
                arrived[(value, reader)] = cycle + BUS_CYCLES
            moved = True
        # Every free processor starts its most urgent ready CCM.
        best = {}
        for name in waiting:
            processor = where[name]
            if free_at[processor] <= cycle and ready(name, cycle) and \
                    (processor not in best or (urgency[name], name) >
                     (urgency[best[processor]], best[processor])):
                best[processor] = name
        for processor, name in best.items():
            latency, occupancy = timing[name]
            plan.start[name], plan.finish[name] = cycle, cycle + latency
            free_at[processor] = cycle + occupancy
            plan.busy[processor] = plan.busy.get(processor, 0) + occupancy
            waiting.discard(name)
            pending += produces[name]     # its values other processors read: the bus's
            moved = True
        if moved:
            cycle += 1
            continue
        # Nothing happened: on to the next cycle where something can.
        events = [t for t in (*plan.finish.values(), *free_at.values(), *arrived.values())
                  if t > cycle]
        if not events:
            raise RuntimeError(f"{graph.name}: the machine deadlocks at cycle {cycle}")
        cycle = min(events)
    plan.latency = max(plan.finish.values())
    plan.registers = _allocate(plan, reads, arrived)
    return plan


def _allocate(plan, reads, arrived):
    """``{(value, processor): register}``: :func:`~robohw.hw.register_file.left_edge` over
    each bank of each processor's values (readable from their finish or arrival to their
    last read), the banks one after another in :data:`BANKS` order."""
    graph = plan.graph
    end = plan.latency + 1                # the outputs are read until the state leaves
    life = {}

    def use(key, first, last):
        low, high = life.get(key, (first, last))
        life[key] = (min(low, first), max(high, last))

    for name, values in reads.items():
        here = plan.processor[name]
        for value in values:
            own = value[0] in plan.processor and plan.processor[value[0]] == here
            use((value, here), plan.finish[value[0]] if own else arrived[(value, here)],
                plan.start[name])
    for t in plan.transfers:
        if t.sender is not None:
            use(((t.source, t.port), t.sender), plan.finish[t.source], t.cycle)
    for source, port in graph.outputs.values():
        use(((source, port), plan.processor[source]), plan.finish[source], end)
    banks = defaultdict(dict)     # (processor, bank) -> its values, in order of their lives
    for key, span in sorted(life.items(), key=lambda item: (item[1], str(item[0]))):
        banks[(key[1], plan.bank(key))][key] = span
    registers, used = {}, defaultdict(int)
    for processor, bank in sorted(banks, key=lambda pb: (pb[0], BANKS.index(pb[1]))):
        offset = used[processor]
        for key, index in left_edge(banks[(processor, bank)]).items():
            registers[key] = offset + index
            used[processor] = max(used[processor], offset + index + 1)
    return registers
