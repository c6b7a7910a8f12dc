"""The engine's compiler: one state's traced graph modulo-scheduled onto a machine of units, its
values in rotating register files, successive states overlapped one every initiation interval.

The machine (:class:`~robohw.engine.machine.Machine`): pipelined multipliers and adders that
each issue once a cycle (:func:`robohw.dataflow.unit.fixed_point_unit`: any node's
micro-operation, bit for bit), *loaders* that write the state's fixed-point fields into the
files, pipelined CORDICs that give each revolute joint's cos and sin, reciprocal units for a
graph with reciprocals or reciprocal square roots
(:func:`~robohw.engine.machine.reciprocal_unit_latency`: exactly the model's codes, each unit
folded to take an operation every few cycles, :func:`~robohw.engine.machine.reciprocal_fold`),
and rotating register files
(:mod:`robohw.engine.registers`, :class:`RegisterFile`) on the readers' side: each operand
port (and each output) reads its own files, each file holding the values that reader needs,
written through one multiplexed write port by the writers of those values, at most one of them
in each slot of the interval (so a port has a few files: up to four on the PUMA 560 from II 10
to 128). The network between units is what the program uses; a value is stored once for each
port that reads it, not once for each port that reads its writer.

The program (:func:`compile_program`) repeats every ``interval`` cycles (II). A state is taken
in cycle 0 of its program and held for the interval: the loaders take its fields in cycles 1
to II (each readable :data:`LOAD_LATENCY` cycles after), the CORDICs its angles in cycles 1 to
II. Then the operations, most urgent first (urgency: the longest chain of latencies from the
operation to an output; a producer is always more urgent than its consumers), each at the
first cycle from its operands' ready cycle with a unit of its kind free in that cycle's slot
(``cycle % II``) of the modulo reservation table (a folded reciprocal unit's: its fold's
slots from that one): of the free units, the one whose ports
already read the operands' writers and whose shifters the operation's shifts widen least (a
commutative operation may swap its operands to match). The graph has no recurrence between
states, so every operation finds a slot within II cycles of its operands: the critical chains
are placed first, near their least latency. The outputs are read together in the cycle the
last is readable.
"""

import functools
from collections import defaultdict
from dataclasses import dataclass, field

from robohw.dataflow.graph import past_negation
from robohw.dataflow.micro_op import micro_operation
from robohw.dataflow.operations import Op, Unit, unit_of
from robohw.dataflow.unit import swapped_operation
from robohw.engine.machine import COUNTED, Machine
from robohw.engine.registers import (
    access_offset,
    live_lower_bound,
    padded_depth,
    physical_register,
    rotating_allocation,
)

__all__ = ["Issue", "Load", "Trig", "RegisterFile", "EngineProgram", "compile_program",
           "FANOUT_FILES", "LOAD_LATENCY"]

# A loader registers its field select in the cycle it is given and the selected held field in
# the next (a register between the loader's field multiplexer and the files' write
# multiplexers, the II 128 critical path), copied in the one after (FANOUT_FILES), which its
# files write then: readable three cycles after the load.
LOAD_LATENCY = 3
# A loader's field and a CORDIC's cos and sin are read by many files across the chip (the
# PUMA 560's sine at II 5: 26 files, its register's net 11.8 ns of routing, the limit
# measured): each reaches its files through copies of its register, one for each group of at
# most this many files, a cycle more (EngineProgram.fanout).
FANOUT_FILES = 8

@dataclass(frozen=True)
class Issue:
    """An operation (traced ``node``) issued on ``unit`` in ``cycle`` of its state's program;
    ``swapped``: a commutative one with its operands exchanged."""
    cycle: int
    unit: str
    node: int
    swapped: bool = False


@dataclass(frozen=True)
class Load:
    """A held field (input ``node``, payload ``field``) taken by loader ``unit`` in ``cycle``
    (its files write it :data:`LOAD_LATENCY` - 1 cycles later)."""
    cycle: int
    unit: str
    node: int
    field: str


@dataclass(frozen=True)
class Trig:
    """Joint ``joint``'s angle (payload ``field``) into CORDIC ``unit`` in ``cycle``; its
    ``cos`` and ``sin`` nodes (``None``: not live)."""
    cycle: int
    unit: str
    joint: int
    field: str
    cos: int
    sin: int


@dataclass(frozen=True)
class RegisterFile:
    """One rotating register file (a LUT-RAM memory: one write port, one read port) of
    ``depth`` words: read by ``reader`` (an operand port ``(unit, "a" or "b")`` or an output
    ``("out", key)``), written by ``writers`` (units, loaders, a CORDIC's cos or sin: the
    write port's multiplexer, in order), at most one of them in each slot of the interval;
    ``home``: the reader's cluster (``None``: the machine's own units or the outputs)."""
    reader: tuple
    writers: tuple
    depth: int
    home: str = None


@dataclass
class EngineProgram:
    """A compiled program: the operations, loads and CORDIC issues of one state's program,
    the cycle each value is readable (``ready``, by node) and the unit, loader or CORDIC that
    writes it (``writer``); the register files (``files``: ``{name:`` :class:`RegisterFile`
    ``}``), the file each reader reads each value from (``source``: ``{(reader, node):
    file}``), each copy's life in its file (``lives``: ``{(file, node): (first, last)}``) and
    its base (``base``, :mod:`robohw.engine.registers`); the files each operand port reads
    (``reads``: ``{(unit, port): [files]}``), the outputs' source nodes (``outputs``: ``{key:
    (node, negated)}``, constant outputs left out) and the cycle they are read
    (``output_cycle``), and the least output cycle any program on the machine has: the
    graph's longest chain of the units' latencies, from inputs loaded or CORDICs issued in
    cycle 1 (``critical_path``); on a machine with clusters, the hop registers (``hops``:
    ``{hop: the writer whose result register it copies}``, :meth:`sender`)."""
    machine: Machine
    issues: list = field(default_factory=list)
    loads: list = field(default_factory=list)
    trigs: list = field(default_factory=list)
    ready: dict = field(default_factory=dict)
    writer: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)
    source: dict = field(default_factory=dict)
    lives: dict = field(default_factory=dict)
    base: dict = field(default_factory=dict)
    reads: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)
    output_cycle: int = 1
    critical_path: int = 1
    words: dict = field(default_factory=dict)
    hops: dict = field(default_factory=dict)

    @property
    def interval(self):
        return self.machine.interval

    @property
    def depth(self):
        """``{file: depth}``."""
        return {name: file.depth for name, file in self.files.items()}

    def offset(self, file, node, cycle):
        """The program's address constant of an access to ``node`` in ``file`` in ``cycle``
        (:func:`~robohw.engine.registers.access_offset`)."""
        return access_offset(self.base[(file, node)], cycle, self.interval,
                             self.files[file].depth)

    def register(self, file, node, iteration):
        """The register of ``node``'s value in ``file`` of the state that entered in
        ``iteration``."""
        return physical_register(self.base[(file, node)], iteration, self.files[file].depth)

    def operation(self, issue):
        """The micro-operation the issue's unit executes (operands swapped if it says)."""
        word = self.words[issue.node]
        return swapped_operation(word) if issue.swapped else word

    def operands(self, issue):
        """``{port: node}`` the issue reads."""
        word = self.operation(issue)
        return {port: word[port] for port in "ab" if word[port] is not None}

    def file_values(self, file):
        """The nodes whose values ``file`` holds, in order."""
        return [k for f, k in self.lives if f == file]

    def writes(self, file):
        """``{cycle: node}``: the cycles of a state's program ``file`` is written in (a value
        lands at the end of the cycle before it is readable)."""
        home = self.files[file].home
        return {self.arrival(k, home) - 1: k for k in self.file_values(file)}

    def sender(self, node, home):
        """The register ``node``'s value reaches the files of ``home`` (a cluster's name, or
        ``None``) from: its writer's where the writer is a loader, a CORDIC's cos or sin (they
        reach every file through copies, :meth:`fanout`) or a unit of ``home``; else the
        writer's hop to ``home``, ``<writer>_to_<home>`` (``_to_machine`` for ``None``)."""
        writer = self.writer[node]
        if writer in self._fanned or self.machine.home(writer) == home:
            return writer
        return f"{writer}_to_{home or 'machine'}"

    def arrival(self, node, home):
        """The cycle ``node``'s value is readable in the files of ``home``: its writer's
        ready cycle, and the hop's latency where it takes one (:meth:`sender`)."""
        hopped = self.sender(node, home) != self.writer[node]
        return self.ready[node] + (self.machine.hop_latency if hopped else 0)

    @functools.cached_property
    def _fanned(self):
        return frozenset(self.fanned_writers())

    def lower_bound(self, file):
        """The fewest registers ``file`` could hold its values in
        (:func:`~robohw.engine.registers.live_lower_bound`)."""
        return live_lower_bound({k: self.lives[(file, k)] for k in self.file_values(file)},
                                self.interval)

    @property
    def latency(self):
        """Cycles from a state's transfer to its outputs being read: :attr:`output_cycle`."""
        return self.output_cycle

    def connections(self):
        """The network's size: the write multiplexers' inputs (a writer into a file)."""
        return sum(len(file.writers) for file in self.files.values())

    def fanout(self, writer):
        """The files ``writer`` (a loader's ``load{j}``, a CORDIC's ``cos{j}`` or ``sin{j}``)
        writes, in groups of at most :data:`FANOUT_FILES` of one cluster, one a copy of its
        register, in the files' order (the clusters in the order of their first file)."""
        homes = defaultdict(list)
        for name, file in self.files.items():
            if writer in file.writers:
                homes[file.home].append(name)
        return [files[k:k + FANOUT_FILES] for files in homes.values()
                for k in range(0, len(files), FANOUT_FILES)]

    def fanned_writers(self):
        """The writers that reach their files through copies (:meth:`fanout`): the loaders'
        and the CORDICs'."""
        return [*self.machine.units(Unit.LOAD),
                *(f"{kind}{unit[len(Unit.CORDIC):]}" for unit in self.machine.units(Unit.CORDIC)
                  for kind in ("cos", "sin"))]


def compile_program(plan, machine):
    """The :class:`EngineProgram` of a traced ``plan`` (:class:`~robohw.dataflow.plan.
    TracedPlan`) on ``machine``. Raises ``ValueError`` if the machine's units cannot hold
    the plan's operations at its interval, or the plan has an op no unit executes.

    On a machine with clusters each multiplication and addition is issued on its cluster's
    units; a value read in another cluster (or by the machine's own units and outputs) is
    readable there :attr:`~robohw.engine.machine.Machine.hop_latency` cycles after its
    writer's (its hop, one copy of the result register a cluster:
    :meth:`EngineProgram.sender`), and the urgencies count the hops."""
    nodes, ii = plan.tracer.nodes, machine.interval
    live = [nodes[k] for k in plan.live]
    kind_of = {}
    for node in live:
        if node.op in (Op.INPUT, Op.NEG):
            continue
        kind = unit_of(node)
        if kind is None:
            raise ValueError(f"{node}: the engine has no unit for op {node.op!r}")
        kind_of[node.index] = kind
    home_of = {k: machine.node_home(k) for k in kind_of}
    if machine.clusters:
        unbound = [k for k, kind in kind_of.items()
                   if kind in COUNTED and home_of[k] is None]
        if unbound:
            raise ValueError(f"{nodes[unbound[0]]}: the machine's clusters bind it to none")
    latency = {Unit.MUL: machine.multiplier_latency, Unit.NMUL: machine.multiplier_latency,
               Unit.ADD: machine.adder_latency,
               Unit.RECIP: machine.reciprocal_latency, Unit.RSQRT: machine.root_latency}
    groups = defaultdict(int)
    for k, kind in kind_of.items():
        groups[(home_of[k], kind)] += 1
    units = {group: machine.cluster_units(*group) for group in groups}
    for (home, kind), wanted in groups.items():
        if wanted * machine.fold(kind) > len(units[(home, kind)]) * ii:
            where = f" of {home}" if home is not None else ""
            raise ValueError(f"{wanted} {kind} operations{where} do not fit "
                             f"{len(units[(home, kind)])} units at interval {ii}")
    program = EngineProgram(machine)
    consumers = defaultdict(list)
    for node in live:
        if node.index in kind_of:
            for arg in node.args:
                consumers[past_negation(arg).index].append(node.index)
    output_sources = {key: (past_negation(value).index, value.op == Op.NEG)
                      for key, value in plan.outputs.items() if not isinstance(value, float)}
    read_out = {k for k, _ in output_sources.values()}

    def hop(k, home):
        """Cycles more for operation ``k``'s value to reach ``home``'s files."""
        return machine.hop_latency if k in kind_of and home_of[k] != home else 0

    # Urgency: the longest chain of latencies (and hops) from a node to an output.
    urgency = {}
    for node in reversed(live):
        if node.op == Op.NEG:
            continue
        k = node.index
        own = latency[kind_of[k]] if k in kind_of else 0
        after = [urgency[c] + hop(k, home_of[c]) for c in consumers[k]]
        if k in read_out:
            after.append(hop(k, None))
        urgency[k] = own + max(after, default=0)

    def place_inputs():
        by_name = {node.name: node.index for node in live if node.op == Op.INPUT}
        fields = sorted((name for name in plan.held_fields if name in by_name),
                        key=lambda name: (-urgency[by_name[name]], by_name[name]))
        for name, unit, cycle in _entries(fields, machine.units(Unit.LOAD), ii, "fields",
                                          "loaders"):
            node = by_name[name]
            program.loads.append(Load(cycle, unit, node, plan.held_fields[name]))
            program.ready[node], program.writer[node] = cycle + LOAD_LATENCY, unit
        joints = [k for k in plan.angle_fields if f"cos{k}" in by_name or f"sin{k}" in by_name]
        joints.sort(key=lambda k: (-max(urgency.get(by_name.get(f"{t}{k}"), 0)
                                        for t in ("cos", "sin")), k))
        for k, unit, cycle in _entries(joints, machine.units(Unit.CORDIC), ii, "angles",
                                       "CORDICs"):
            cos, sin = by_name.get(f"cos{k}"), by_name.get(f"sin{k}")
            program.trigs.append(Trig(cycle, unit, k, plan.angle_fields[k], cos, sin))
            for node, part in ((cos, "cos"), (sin, "sin")):
                if node is not None:
                    program.ready[node] = cycle + machine.trig_latency
                    program.writer[node] = f"{part}{unit[len(Unit.CORDIC):]}"

    place_inputs()
    arrival = {"input": 1 + LOAD_LATENCY, "trig": 1 + machine.trig_latency}
    trigs = {f"{t}{k}" for k in plan.angle_fields for t in ("cos", "sin")}
    program.critical_path = max(
        (arrival["trig" if node.name in trigs else "input"] + urgency[node.index]
         for node in live if node.op == Op.INPUT), default=1)
    words = {k: micro_operation(plan.tracer, plan.formats, k) for k in kind_of}
    program.words = words
    reads = defaultdict(set)
    shifts = {}                         # unit: its instructions' shift ranges (_shift_levels)
    busy = {group: [set() for _ in range(ii)] for group in groups}
    # Most urgent first: a producer is more urgent than its consumers (every unit's latency is
    # at least a cycle), so its operands are placed before it.
    for k in sorted(kind_of, key=lambda k: (-urgency[k], k)):
        kind, home = kind_of[k], home_of[k]
        group = (home, kind)
        cycle = earliest = max(program.arrival(past_negation(a).index, home) for a in nodes[k].args)
        span = range(machine.fold(kind))
        while True:
            taken = set().union(*(busy[group][(cycle + d) % ii] for d in span))
            if len(taken) < len(units[group]):
                break
            if cycle - earliest == ii:
                raise ValueError(f"{nodes[k]}: no {kind} unit is free for {len(span)} cycles "
                                 f"at interval {ii}")
            cycle += 1
        unit, swapped = _bind(units[group], taken, words[k],
                              lambda node: program.sender(node, home), reads, shifts)
        issue = Issue(cycle, unit, k, swapped)
        program.issues.append(issue)
        for d in span:
            busy[group][(cycle + d) % ii].add(unit)
        shifts[unit] = _shift_ranges(shifts.get(unit), program.operation(issue))
        for port, operand in program.operands(issue).items():
            reads[(unit, port)].add(program.sender(operand, home))
        program.ready[k], program.writer[k] = cycle + latency[kind], unit
    program.issues.sort(key=lambda issue: (issue.cycle, issue.unit))
    program.output_cycle = max((program.arrival(k, None) for k, _ in output_sources.values()),
                               default=1)
    program.outputs = output_sources
    _allocate(program)
    return program


def _entries(items, units, interval, what, kind):
    """``(item, unit, cycle)``: the ``items``, in order, into the ``units`` round robin in
    cycles 1 to ``interval`` (a state's entry); ``ValueError`` if they do not fit."""
    if len(items) > len(units) * interval:
        raise ValueError(f"{len(items)} {what} do not fit {len(units)} {kind} at interval "
                         f"{interval}")
    for position, item in enumerate(items):
        yield item, units[position % len(units)], 1 + position // len(units)


def _bind(units, taken, word, sender, reads, shifts):
    """``(unit, swapped)``: the free unit (and operand order) that grows the network and the
    unit's shifters least: a writer (``sender(node)``: the register an operand's value reaches
    the units' files from) its operand port does not yet read counts one (a write
    multiplexer's input: half a LUT4 a bit), a level more in one of its shifters
    (:func:`_shift_levels`: a LUT4 a bit, over a few bits more than the width) two; ties: the
    first unit, unswapped."""
    orders = [False]
    if word["b"] is not None and not word["subtract"]:
        orders.append(True)
    best = None
    for unit in units:
        if unit in taken:
            continue
        levels = _shift_levels(shifts.get(unit))
        for swapped in orders:
            w = swapped_operation(word) if swapped else word
            cost = sum(1 for port in "ab" if w[port] is not None and
                       sender(w[port]) not in reads.get((unit, port), ()))
            cost += 2 * (_shift_levels(_shift_ranges(shifts.get(unit), w)) - levels)
            if best is None or cost < best[0]:
                best = (cost, unit, swapped)
    return best[1], best[2]


def _shift_ranges(ranges, word):
    """A unit's ``(least rounding shift, most, most alignment of a, of b)`` with ``word``'s
    (``ranges``: before it, or ``None``)."""
    own = (word["shift"], word["shift"], word["shift_a"], word["shift_b"])
    if ranges is None:
        return own
    return (min(ranges[0], own[0]), max(ranges[1], own[1]), max(ranges[2], own[2]),
            max(ranges[3], own[3]))


def _shift_levels(ranges):
    """The multiplexer levels of a unit's shifters (:func:`~robohw.dataflow.unit.
    fixed_point_unit`: its rounding's from its least shift, an adder's alignments from 0)."""
    if ranges is None:
        return 0
    least, most, align_a, align_b = ranges
    return (most - least).bit_length() + align_a.bit_length() + align_b.bit_length()


def _allocate(program):
    """The register files: each reader's values (the last read of each by that reader) in
    files of distinct write slots (:func:`_reader_files`), each a rotating allocation
    (:func:`~robohw.engine.registers.rotating_allocation`) padded
    (:func:`~robohw.engine.registers.padded_depth`)."""
    ii = program.interval
    wanted = defaultdict(dict)              # reader: {node: last read}
    for issue in program.issues:
        for port, operand in program.operands(issue).items():
            last = wanted[(issue.unit, port)]
            last[operand] = max(last.get(operand, 0), issue.cycle)
    for key, (node, _) in program.outputs.items():
        wanted[("out", key)][node] = program.output_cycle
    for reader, last in wanted.items():
        names = []
        home = None if reader[0] == "out" else program.machine.home(reader[0])
        ready = {k: program.arrival(k, home) for k in last}
        sender = {k: program.sender(k, home) for k in last}
        program.hops |= {sender[k]: program.writer[k] for k in last
                         if sender[k] != program.writer[k]}
        groups = _reader_files(last, ready, sender, ii)
        for position, group in enumerate(groups):
            name = (f"out_{_key_name(reader[1])}" if reader[0] == "out" else
                    f"{reader[0]}_{reader[1]}{position}")
            names.append(name)
            lives = {k: (ready[k], last[k]) for k in group}
            depth, bases = rotating_allocation(lives, ii)
            writers = tuple(dict.fromkeys(sender[k] for k in group))
            program.files[name] = RegisterFile(reader, writers, padded_depth(depth), home)
            for k in group:
                program.source[(reader, k)] = name
                program.lives[(name, k)] = lives[k]
                program.base[(name, k)] = bases[k]
        if reader[0] != "out":
            program.reads[reader] = names
    program.reads = dict(sorted(program.reads.items()))


def _key_name(key):
    """An output key as part of a name: ``5``, or ``(2, 3)`` as ``2_3``."""
    return "_".join(map(str, key)) if isinstance(key, tuple) else str(key)


def _reader_files(last, ready, writer, interval):
    """A reader's values (``last``: ``{node: last read}``) in files, each with one write
    port: no two values of a file are written in one slot of the interval (cycle ``ready - 1``
    modulo it). First fit, by writer then ready cycle, into the file that already has the
    value's writer, else the one with the fewest writers: few files, small multiplexers."""
    files = []                              # [slots, writers, nodes]
    for k in sorted(last, key=lambda k: (writer[k], ready[k], k)):
        slot = (ready[k] - 1) % interval
        free = [f for f in files if slot not in f[0]]
        if free:
            chosen = min(free, key=lambda f: (writer[k] not in f[1], len(f[1])))
        else:
            chosen = (set(), set(), [])
            files.append(chosen)
        chosen[0].add(slot)
        chosen[1].add(writer[k])
        chosen[2].append(k)
    return [sorted(f[2], key=lambda k: (ready[k], k)) for f in files]
