"""The engine's compiler: one state's traced graph modulo-scheduled onto a machine of units, its
values in rotating register files, successive states overlapped one every initiation interval.

The machine (:class:`Machine`): pipelined multipliers and adders that each issue once a cycle
(:func:`robohw.dataflow.unit.fixed_point_unit`: any node's micro-operation, bit for bit),
*loaders* that write the state's fixed-point fields into the files, pipelined CORDICs that give
each revolute joint's cos and sin, reciprocal units for a graph with reciprocals or reciprocal
square roots (:func:`reciprocal_unit_latency`: exactly the model's codes, each unit folded to
take an operation every few cycles, :func:`reciprocal_fold`),
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
import math
from collections import defaultdict
from dataclasses import dataclass, field

from robohw.cordic.pipelined import pipelined_latency
from robohw.dataflow.micro_op import micro_operation
from robohw.dataflow.operations import RECIPROCAL_KINDS, UNIT_KINDS, Op, Unit, unit_of
from robohw.dataflow.unit import ADDER_STAGES, multiplier_stages, swapped_operation
from robohw.engine.registers import (
    access_offset,
    live_lower_bound,
    padded_depth,
    physical_register,
    rotating_allocation,
)
from robohw.hw.checks import check_integer, check_positive_integer
from robohw.hw.digit_recurrence import INPUT_STAGES, OUTPUT_STAGES
from robohw.hw.multiplier import (
    PRODUCT_LATENCY,
    SPLIT_PRODUCT_BITS,
    SPLIT_PRODUCT_LATENCY,
    registered_product,
    split_product,
    tiled_product,
    tiled_product_latency,
)
from robohw.hw.reciprocal import reciprocal_latency
from robohw.hw.reciprocal_sqrt import reciprocal_sqrt_latency

__all__ = ["Machine", "Issue", "Load", "Trig", "RegisterFile", "EngineProgram",
           "compile_program", "product_latency", "unit_product", "reciprocal_unit_latency",
           "reciprocal_fold", "MAX_RECIPROCAL_FOLD", "MIN_INTERVAL", "MAX_INTERVAL", "KINDS",
           "SPARE_UNITS", "FANOUT_FILES", "Cluster", "HOP_LATENCY",
           "LOAD_LATENCY", "RECIPROCAL_UNIT_STAGES"]

# A program of at least two words (its ROM's address has a bit); the report's curve goes to 128.
MIN_INTERVAL = 2
MAX_INTERVAL = 1024
# The kinds of unit (each executes the operations whose Operation.unit names it,
# robohw.dataflow.operations).
KINDS = UNIT_KINDS + RECIPROCAL_KINDS
# The most steps a reciprocal unit's stage takes (reciprocal_fold): its tokens select the
# numerator bits of each next step through an OR of as many terms (up to 16 inputs, two LUT4
# levels beside the step's carry chain).
MAX_RECIPROCAL_FOLD = 8
# A reciprocal unit's stages beside its recurrence's: the operand read and the write.
RECIPROCAL_UNIT_STAGES = 2
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
# The default machine's spare share of multipliers and adders: a state's last operations then
# find free slots near their operands' ready cycles (measured on the PUMA 560 and the Stanford
# arm, the report's engine table: a latency within 6 % of the critical path from II 4 to 32,
# against up to 20 % with the fewest units).
SPARE_UNITS = 0.1
# Cycles a value takes from its writer's result register to a file of another cluster: one
# register, the hop (a copy of the result register for each cluster that reads it, so no
# result register's net crosses the chip to many files).
HOP_LATENCY = 1


def product_latency(width):
    """Register stages of a multiplier's product at ``width`` bits: a tile's two
    (:data:`~robohw.hw.multiplier.PRODUCT_LATENCY`) up to 18 bits, one more up to
    :data:`~robohw.hw.multiplier.SPLIT_PRODUCT_BITS` (the fabric's partial products beside one
    tile, :func:`~robohw.hw.multiplier.split_product`), and above, a tile's and one a level of
    the sums of its partial products (:func:`~robohw.hw.multiplier.tiled_product`)."""
    if width <= 18:
        return PRODUCT_LATENCY
    if width <= SPLIT_PRODUCT_BITS:
        return SPLIT_PRODUCT_LATENCY
    return tiled_product_latency(width, width)


def reciprocal_unit_latency(kind, width):
    """Cycles from a reciprocal unit's issue (``kind``: ``Unit.RECIP`` or ``Unit.RSQRT``) to its
    result being readable at ``width`` bits: its recurrence's
    (:func:`~robohw.hw.reciprocal.reciprocal_latency`,
    :func:`~robohw.hw.reciprocal_sqrt.reciprocal_sqrt_latency`) and
    :data:`RECIPROCAL_UNIT_STAGES`."""
    stages = {Unit.RECIP: reciprocal_latency, Unit.RSQRT: reciprocal_sqrt_latency}[kind](width)
    return stages + RECIPROCAL_UNIT_STAGES


def reciprocal_fold(count, interval, width, most=MAX_RECIPROCAL_FOLD):
    """``(fold, units)`` of ``count`` reciprocal operations of one kind at ``interval`` and
    ``width`` bits: the fold (:func:`~robohw.hw.digit_recurrence.recurrence_steps`: steps a
    stage, the cycles a unit holds each operation), at most ``most``, and units that need the
    fewest copies of a step, a unit's input and output stages counted as one each (``units *
    (ceil(width / fold) + INPUT_STAGES + OUTPUT_STAGES)``), smallest fold first. A unit is
    given at most ``u`` operations with ``(u - 1) (2 fold - 1) < interval``: each operation's
    ``fold`` slots bar ``2 fold - 1`` starts, so the schedule always finds the next a start."""
    check_integer("count", count, minimum=0)
    check_integer("interval", interval, minimum=MIN_INTERVAL, maximum=MAX_INTERVAL)
    check_integer("most", most, minimum=1)
    if not count:
        return 1, 0
    best = None
    for fold in range(1, min(most, interval) + 1):
        units = math.ceil(count / min(count, 1 + (interval - 1) // (2 * fold - 1)))
        copies = units * (math.ceil(width / fold) + INPUT_STAGES + OUTPUT_STAGES)
        if best is None or copies < best[0]:
            best = (copies, fold, units)
    return best[1], best[2]


def unit_product(width):
    """The product arguments of a multiplier unit at ``width`` bits
    (:func:`~robohw.dataflow.unit.fixed_point_unit`'s ``product``, ``product_latency`` and
    ``registered_operands``): a tile's registered product up to 18 bits,
    :func:`~robohw.hw.multiplier.split_product` (a stage more, its operands from registers)
    up to :data:`~robohw.hw.multiplier.SPLIT_PRODUCT_BITS`,
    :func:`~robohw.hw.multiplier.tiled_product` above."""
    split = 18 < width <= SPLIT_PRODUCT_BITS
    product = registered_product if width <= 18 else \
        split_product if split else tiled_product
    return {"product": product, "product_latency": product_latency(width),
            "registered_operands": split}


@dataclass(frozen=True)
class Cluster:
    """One cluster of an engine by locality: its ``multipliers`` and ``adders`` (named
    ``<name>_mul<j>`` and ``<name>_add<j>``), which execute its ``nodes`` (the traced
    operations bound to it) and whose operand ports read its register files."""
    name: str
    multipliers: int
    adders: int
    nodes: frozenset

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"a cluster's name must be an identifier, not {self.name!r}")
        for name in ("multipliers", "adders"):
            check_integer(name, getattr(self, name), minimum=0)


@dataclass(frozen=True)
class Machine:
    """The engine's parameters: its ``interval`` (II, cycles per state) and its units
    (``reciprocals`` of ``1 / a`` and ``roots`` of ``1 / sqrt(a)``: none but for a graph that
    has them, each holding an operation for its kind's fold, ``reciprocal_fold`` or
    ``root_fold`` cycles: :func:`reciprocal_fold`)."""
    interval: int
    multipliers: int
    adders: int
    loaders: int
    cordics: int
    multiplier_latency: int
    adder_latency: int
    trig_latency: int
    reciprocals: int = 0
    roots: int = 0
    reciprocal_latency: int = 1
    root_latency: int = 1
    reciprocal_fold: int = 1
    root_fold: int = 1
    clusters: tuple = ()
    hop_latency: int = HOP_LATENCY

    def __post_init__(self):
        check_integer("interval", self.interval, minimum=MIN_INTERVAL, maximum=MAX_INTERVAL)
        for name in ("multipliers", "adders", "loaders", "cordics", "reciprocals", "roots"):
            check_integer(name, getattr(self, name), minimum=0)
        for name in ("multiplier_latency", "adder_latency", "trig_latency",
                     "reciprocal_latency", "root_latency"):
            check_positive_integer(name, getattr(self, name))
        for name in ("reciprocal_fold", "root_fold"):
            check_integer(name, getattr(self, name), minimum=1, maximum=self.interval)
        check_positive_integer("hop_latency", self.hop_latency)
        if self.clusters:
            if not all(isinstance(c, Cluster) for c in self.clusters):
                raise TypeError(f"clusters must be Cluster objects, not {self.clusters!r}")
            names = [c.name for c in self.clusters]
            if len(set(names)) < len(names):
                raise ValueError(f"the clusters' names must differ, not {names}")
            for kind, name in ((Unit.MUL, "multipliers"), (Unit.ADD, "adders")):
                if getattr(self, name) != sum(getattr(c, name) for c in self.clusters):
                    raise ValueError(f"{name} must be the clusters' sum, not "
                                     f"{getattr(self, name)}")

    def fold(self, kind):
        """The cycles a unit of ``kind`` holds each operation: a reciprocal unit's fold, 1."""
        return {Unit.RECIP: self.reciprocal_fold, Unit.RSQRT: self.root_fold}.get(kind, 1)

    @classmethod
    def for_plan(cls, plan, interval, *, multipliers=None, adders=None, spare=SPARE_UNITS,
                 partition=None):
        """The machine for a traced ``plan`` at ``interval``: by default ``spare`` (a share,
        default :data:`SPARE_UNITS`) more units of each kind than the fewest its operations
        fit in, ``ceil((1 + spare) * operations / interval)``, and as many loaders and CORDICs
        as the fields and angles need to be taken in one interval; the units' latencies are
        the hardware's at the plan's width (:func:`product_latency`,
        :func:`reciprocal_unit_latency`), the CORDICs' their angle register, pipeline, copies
        (:data:`FANOUT_FILES`) and write; the reciprocal units and their folds of
        :func:`reciprocal_fold`. ``multipliers`` or ``adders`` given must be at least the fewest.

        With ``partition`` (``{operation node: cluster name}`` for every multiplication and
        addition, e.g. :func:`~robohw.engine.partition.cell_partition`'s), the engine by
        locality: each cluster its own multipliers and adders, ``ceil((1 + spare) *
        operations / interval)`` of its operations, in the order of their first nodes; the
        reciprocal units, loaders and CORDICs the machine's."""
        check_integer("interval", interval, minimum=MIN_INTERVAL, maximum=MAX_INTERVAL)
        if not isinstance(spare, (int, float)) or isinstance(spare, bool):
            raise TypeError(f"spare must be a number, not {spare!r}")
        if not 0 <= spare <= 1:
            raise ValueError(f"spare must be from 0 to 1, not {spare!r}")
        nodes = plan.tracer.nodes
        count = defaultdict(int)
        for k in plan.live:
            kind = unit_of(nodes[k])
            if kind is not None:
                count[kind] += 1
        live = {nodes[k].name for k in plan.live if nodes[k].op == Op.INPUT}
        fields = sum(1 for name in plan.held_fields if name in live)
        joints = sum(1 for k in plan.angle_fields if {f"cos{k}", f"sin{k}"} & live)
        least = {kind: math.ceil(count[kind] / interval) for kind in KINDS}
        chosen = {Unit.MUL: multipliers, Unit.ADD: adders}
        for kind, name in ((Unit.MUL, "multipliers"), (Unit.ADD, "adders")):
            if chosen[kind] is None:
                chosen[kind] = math.ceil(round((1 + spare) * count[kind], 9) / interval)
            elif check_integer(name, chosen[kind], minimum=0) < least[kind]:
                raise ValueError(f"{count[kind]} operations need at least {least[kind]} "
                                 f"{name} at interval {interval}, not {chosen[kind]}")
        clusters = ()
        if partition is not None:
            if multipliers is not None or adders is not None:
                raise ValueError("a partitioned machine counts its units by cluster: give "
                                 "no multipliers or adders")
            clusters = _clusters(plan, partition, interval, spare)
            chosen = {kind: sum(getattr(c, name) for c in clusters)
                      for kind, name in ((Unit.MUL, "multipliers"), (Unit.ADD, "adders"))}
        recip_fold, reciprocals = reciprocal_fold(count[Unit.RECIP], interval, plan.width)
        root_fold, roots = reciprocal_fold(count[Unit.RSQRT], interval, plan.width)
        return cls(interval, chosen[Unit.MUL], chosen[Unit.ADD], math.ceil(fields / interval),
                   math.ceil(joints / interval),
                   multiplier_stages(product_latency(plan.width)), ADDER_STAGES,
                   pipelined_latency(plan.cordic) + 3, reciprocals, roots,
                   reciprocal_unit_latency(Unit.RECIP, plan.width),
                   reciprocal_unit_latency(Unit.RSQRT, plan.width), recip_fold, root_fold,
                   clusters)

    def units(self, kind):
        """The names of the units of ``kind`` (a :class:`~robohw.dataflow.operations.Unit`)."""
        if self.clusters and kind in (Unit.MUL, Unit.ADD):
            return [unit for cluster in self.clusters
                    for unit in self.cluster_units(cluster.name, kind)]
        count = {Unit.MUL: self.multipliers, Unit.ADD: self.adders, Unit.RECIP: self.reciprocals,
                 Unit.RSQRT: self.roots, Unit.LOAD: self.loaders, Unit.CORDIC: self.cordics}[kind]
        return [f"{kind}{j}" for j in range(count)]

    def cluster_units(self, home, kind):
        """The units of ``kind`` that execute the operations of ``home`` (a cluster's name;
        ``None``: the machine's own, every unit of a machine without clusters)."""
        if home is None:
            return [] if self.clusters and kind in (Unit.MUL, Unit.ADD) else self.units(kind)
        cluster = next(c for c in self.clusters if c.name == home)
        count = cluster.multipliers if kind == Unit.MUL else \
            cluster.adders if kind == Unit.ADD else 0
        return [f"{home}_{kind}{j}" for j in range(count)]

    @functools.cached_property
    def _homes(self):
        units = {unit: c.name for c in self.clusters for kind in (Unit.MUL, Unit.ADD)
                 for unit in self.cluster_units(c.name, kind)}
        nodes = {k: c.name for c in self.clusters for k in c.nodes}
        return units, nodes

    def home(self, unit):
        """The cluster ``unit`` belongs to (an operand port's files are its cluster's), or
        ``None`` (the machine's own units: reciprocal units, loaders, CORDICs, outputs)."""
        return self._homes[0].get(unit)

    def node_home(self, node):
        """The cluster a multiplication or addition ``node`` (an index) is bound to, or
        ``None`` (the machine without clusters, or an operation of the machine's own)."""
        return self._homes[1].get(node)


def _clusters(plan, partition, interval, spare):
    """The :class:`Cluster` tuple of ``partition`` (:meth:`Machine.for_plan`)."""
    nodes = plan.tracer.nodes
    members = defaultdict(list)
    for k in plan.live:
        kind = unit_of(nodes[k])
        if kind in (Unit.MUL, Unit.ADD):
            if k not in partition:
                raise ValueError(f"{nodes[k]}: the partition binds it to no cluster")
            members[partition[k]].append(k)
    clusters = []
    for name, own in sorted(members.items(), key=lambda item: min(item[1])):
        counts = [sum(1 for k in own if unit_of(nodes[k]) == kind)
                  for kind in (Unit.MUL, Unit.ADD)]
        clusters.append(Cluster(name, *(math.ceil(round((1 + spare) * c, 9) / interval)
                                        for c in counts), frozenset(own)))
    return tuple(clusters)


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


def _source(node):
    while node.op == Op.NEG:
        node = node.args[0]
    return node


def compile_program(plan, machine):
    """The :class:`EngineProgram` of a traced ``plan`` (:class:`~robohw.dataflow.plan.
    TracedPlan`) on ``machine``. Raises ``ValueError`` if the machine's units cannot hold
    the plan's operations at its interval, or the plan has an op no unit executes.

    On a machine with clusters each multiplication and addition is issued on its cluster's
    units; a value read in another cluster (or by the machine's own units and outputs) is
    readable there :attr:`~Machine.hop_latency` cycles after its writer's (its hop, one copy
    of the result register a cluster: :meth:`EngineProgram.sender`), and the urgencies count
    the hops."""
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
                   if kind in (Unit.MUL, Unit.ADD) and home_of[k] is None]
        if unbound:
            raise ValueError(f"{nodes[unbound[0]]}: the machine's clusters bind it to none")
    latency = {Unit.MUL: machine.multiplier_latency, Unit.ADD: machine.adder_latency,
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
                consumers[_source(arg).index].append(node.index)
    output_sources = {key: (_source(value).index, value.op == Op.NEG)
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
        cycle = earliest = max(program.arrival(_source(a).index, home) for a in nodes[k].args)
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
