"""The engine's compiler: one state's traced graph modulo-scheduled onto a machine of units, its
values in rotating register files, successive states overlapped one every initiation interval.

The machine (:class:`Machine`): pipelined multipliers and adders that each issue once a cycle
(:func:`robohw.dataflow.unit.fixed_point_unit`: any node's micro-operation, bit for bit),
*loaders* that write the state's fixed-point fields into the files, pipelined CORDICs that give
each revolute joint's cos and sin, and one rotating register file
(:mod:`robohw.engine.registers`) per writer: each unit's results, each loader's fields, each
CORDIC's cos and its sin. Every operand port reads the banks its operations need, and only
those: the network between units is what the program uses.

The program (:func:`compile_program`) repeats every ``interval`` cycles (II). A state is taken
in cycle 0 of its program and held for the interval: the loaders write its fields in cycles 1
to II, the CORDICs take its angles in cycles 1 to II. Then the operations, most urgent first
(urgency: the longest chain of latencies from the operation to an output; a producer is always
more urgent than its consumers), each at the first cycle from its operands' ready cycle with a
unit of its kind free in that cycle's slot (``cycle % II``) of the modulo reservation table:
of the free units, the one whose operand ports already read the operands' banks, if any (a
commutative operation may swap its operands to match). The graph has no recurrence between
states, so every operation finds a slot within II cycles of its operands: the critical chains
are placed first, near their least latency. The outputs are read together in the cycle the
last is readable.
"""

import math
from collections import defaultdict
from dataclasses import dataclass, field

from robohw.cordic.pipelined import pipelined_latency
from robohw.dataflow.micro_op import micro_operation
from robohw.dataflow.unit import (ADDER_STAGES, ADDS, MULTIPLIES, multiplier_stages,
                                  swapped_operation)
from robohw.engine.registers import (access_offset, live_lower_bound, physical_register,
                                     rotating_allocation)
from robohw.hw.checks import check_integer, check_positive_integer
from robohw.hw.multiplier import PRODUCT_LATENCY, SPLIT_PRODUCT_LATENCY

__all__ = ["Machine", "Issue", "Load", "Trig", "EngineProgram", "compile_program",
           "product_latency", "MIN_INTERVAL", "MAX_INTERVAL", "KINDS", "SPARE_UNITS"]

# A program of at least two words (its ROM's address has a bit); the report's curve goes to 128.
MIN_INTERVAL = 2
MAX_INTERVAL = 1024
# The kinds of unit, and the ops each executes.
KINDS = {"mul": MULTIPLIES, "add": ADDS}
# A loader writes a held field in the cycle it is given; it is readable in the next.
LOAD_LATENCY = 1
# The default machine's spare share of multipliers and adders: a state's last operations then
# find free slots near their operands' ready cycles (measured on the PUMA 560 and the Stanford
# arm, the report's engine table: a latency within 6 % of the critical path from II 4 to 32,
# against up to 20 % with the fewest units).
SPARE_UNITS = 0.1


def product_latency(width):
    """Register stages of a multiplier's product at ``width`` bits: a tile's two
    (:data:`~robohw.hw.multiplier.PRODUCT_LATENCY`) up to 18 bits, one more up to
    :data:`~robohw.hw.multiplier.SPLIT_PRODUCT_BITS` (the fabric's partial products beside one
    tile, :func:`~robohw.hw.multiplier.split_product`), and the same three above (Yosys's
    tiles)."""
    return PRODUCT_LATENCY if width <= 18 else SPLIT_PRODUCT_LATENCY


@dataclass(frozen=True)
class Machine:
    """The engine's parameters: its ``interval`` (II, cycles per state) and its units."""
    interval: int
    multipliers: int
    adders: int
    loaders: int
    cordics: int
    multiplier_latency: int
    adder_latency: int
    trig_latency: int

    def __post_init__(self):
        check_integer("interval", self.interval, minimum=MIN_INTERVAL, maximum=MAX_INTERVAL)
        for name in ("multipliers", "adders", "loaders", "cordics"):
            check_integer(name, getattr(self, name), minimum=0)
        for name in ("multiplier_latency", "adder_latency", "trig_latency"):
            check_positive_integer(name, getattr(self, name))

    @classmethod
    def for_plan(cls, plan, interval, *, multipliers=None, adders=None, spare=SPARE_UNITS):
        """The machine for a traced ``plan`` at ``interval``: by default ``spare`` (a share,
        default :data:`SPARE_UNITS`) more units of each kind than the fewest its operations
        fit in, ``ceil((1 + spare) * operations / interval)``, and as many loaders and CORDICs
        as the fields and angles need to be taken in one interval; the units' latencies are
        the hardware's at the plan's width (:func:`product_latency`), the CORDICs' their angle
        register, pipeline and write. ``multipliers`` or ``adders`` given must be at least
        the fewest."""
        check_integer("interval", interval, minimum=MIN_INTERVAL, maximum=MAX_INTERVAL)
        if not isinstance(spare, (int, float)) or isinstance(spare, bool):
            raise TypeError(f"spare must be a number, not {spare!r}")
        if not 0 <= spare <= 1:
            raise ValueError(f"spare must be from 0 to 1, not {spare!r}")
        nodes = plan.tracer.nodes
        count = defaultdict(int)
        for k in plan.live:
            for kind, ops in KINDS.items():
                count[kind] += nodes[k].op in ops
        live = {nodes[k].name for k in plan.live if nodes[k].op == "input"}
        fields = sum(1 for name in plan.value_fields if name in live)
        joints = sum(1 for k in plan.angle_fields if {f"cos{k}", f"sin{k}"} & live)
        least = {kind: math.ceil(count[kind] / interval) for kind in KINDS}
        chosen = {"mul": multipliers, "add": adders}
        for kind, name in (("mul", "multipliers"), ("add", "adders")):
            if chosen[kind] is None:
                chosen[kind] = math.ceil(round((1 + spare) * count[kind], 9) / interval)
            elif check_integer(name, chosen[kind], minimum=0) < least[kind]:
                raise ValueError(f"{count[kind]} operations need at least {least[kind]} "
                                 f"{name} at interval {interval}, not {chosen[kind]}")
        return cls(interval, chosen["mul"], chosen["add"], math.ceil(fields / interval),
                   math.ceil(joints / interval),
                   multiplier_stages(product_latency(plan.width)), ADDER_STAGES,
                   pipelined_latency(plan.cordic) + 2)

    def units(self, kind):
        """The names of the units of ``kind`` (``mul``, ``add``, ``load``, ``cordic``)."""
        count = {"mul": self.multipliers, "add": self.adders, "load": self.loaders,
                 "cordic": self.cordics}[kind]
        return [f"{kind}{j}" for j in range(count)]


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
    """A held field (input ``node``, payload ``field``) written by loader ``unit`` in
    ``cycle``."""
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


@dataclass
class EngineProgram:
    """A compiled program: the operations, loads and CORDIC issues of one state's program,
    the cycle each value is readable (``ready``, by node) and the bank that holds it
    (``bank``), the values' lives (``lives``: ``{node: (first, last)}``), each bank's depth and
    each value's base (:mod:`robohw.engine.registers`), the banks each operand port reads
    (``reads``: ``{(unit, port): [banks]}``), the outputs' source nodes (``outputs``: ``{key:
    (node, negated)}``, constant outputs left out) and the cycle they are read
    (``output_cycle``), and the least output cycle any program on the machine has: the
    graph's longest chain of the units' latencies, from inputs loaded or CORDICs issued in
    cycle 1 (``critical_path``)."""
    machine: Machine
    issues: list = field(default_factory=list)
    loads: list = field(default_factory=list)
    trigs: list = field(default_factory=list)
    ready: dict = field(default_factory=dict)
    bank: dict = field(default_factory=dict)
    lives: dict = field(default_factory=dict)
    depth: dict = field(default_factory=dict)
    base: dict = field(default_factory=dict)
    reads: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)
    output_cycle: int = 1
    critical_path: int = 1
    words: dict = field(default_factory=dict)

    @property
    def interval(self):
        return self.machine.interval

    @property
    def banks(self):
        """Every bank's name, in order: the units', the loaders', the CORDICs' cos and sin."""
        return list(self.depth)

    def offset(self, node, cycle):
        """The program's address constant of an access to ``node`` in ``cycle``
        (:func:`~robohw.engine.registers.access_offset`)."""
        bank = self.bank[node]
        return access_offset(self.base[node], cycle, self.interval, self.depth[bank])

    def register(self, node, iteration):
        """The register of ``node``'s value of the state that entered in ``iteration``."""
        return physical_register(self.base[node], iteration, self.depth[self.bank[node]])

    def operation(self, issue):
        """The micro-operation the issue's unit executes (operands swapped if it says)."""
        word = self.words[issue.node]
        return swapped_operation(word) if issue.swapped else word

    def operands(self, issue):
        """``{port: node}`` the issue reads."""
        word = self.operation(issue)
        return {port: word[port] for port in "ab" if word[port] is not None}

    def bank_values(self, bank):
        """The nodes whose values ``bank`` holds."""
        return [k for k, b in self.bank.items() if b == bank]

    def lower_bound(self, bank):
        """The fewest registers ``bank`` could hold its values in
        (:func:`~robohw.engine.registers.live_lower_bound`)."""
        return live_lower_bound({k: self.lives[k] for k in self.bank_values(bank)},
                                self.interval)

    @property
    def latency(self):
        """Cycles from a state's transfer to its outputs being read: :attr:`output_cycle`."""
        return self.output_cycle

    def connections(self):
        """Operand port to bank connections: the network's size."""
        return sum(len(banks) for banks in self.reads.values())


def _source(node):
    while node.op == "neg":
        node = node.args[0]
    return node


def compile_program(plan, machine):
    """The :class:`EngineProgram` of a traced ``plan`` (:class:`~robohw.dataflow.plan.
    TracedPlan`) on ``machine``. Raises ``ValueError`` if the machine's units cannot hold
    the plan's operations at its interval, or the plan has an op no unit executes."""
    nodes, ii = plan.tracer.nodes, machine.interval
    live = [nodes[k] for k in plan.live]
    kind_of = {}
    for node in live:
        if node.op in ("input", "neg"):
            continue
        kind = next((kind for kind, ops in KINDS.items() if node.op in ops), None)
        if kind is None:
            raise ValueError(f"{node}: the engine has no unit for op {node.op!r}")
        kind_of[node.index] = kind
    latency = {"mul": machine.multiplier_latency, "add": machine.adder_latency}
    units = {kind: machine.units(kind) for kind in KINDS}
    for kind in KINDS:
        wanted = sum(1 for k in kind_of.values() if k == kind)
        if wanted > len(units[kind]) * ii:
            raise ValueError(f"{wanted} {kind} operations do not fit {len(units[kind])} units "
                             f"at interval {ii}")
    program = EngineProgram(machine)
    consumers = defaultdict(list)
    for node in live:
        if node.index in kind_of:
            for arg in node.args:
                consumers[_source(arg).index].append(node.index)
    output_sources = {key: (_source(value).index, value.op == "neg")
                      for key, value in plan.outputs.items() if not isinstance(value, float)}
    # Urgency: the longest chain of latencies from a node to an output.
    urgency = {}
    for node in reversed(live):
        if node.op == "neg":
            continue
        own = latency[kind_of[node.index]] if node.index in kind_of else 0
        urgency[node.index] = own + max((urgency[c] for c in consumers[node.index]), default=0)

    def place_inputs():
        by_name = {node.name: node.index for node in live if node.op == "input"}
        fields = sorted((name for name in plan.value_fields if name in by_name),
                        key=lambda name: (-urgency[by_name[name]], by_name[name]))
        for name, unit, cycle in _entries(fields, machine.units("load"), ii, "fields",
                                          "loaders"):
            node = by_name[name]
            program.loads.append(Load(cycle, unit, node, plan.value_fields[name]))
            program.ready[node], program.bank[node] = cycle + LOAD_LATENCY, unit
        joints = [k for k in plan.angle_fields if f"cos{k}" in by_name or f"sin{k}" in by_name]
        joints.sort(key=lambda k: (-max(urgency.get(by_name.get(f"{t}{k}"), 0)
                                        for t in ("cos", "sin")), k))
        for k, unit, cycle in _entries(joints, machine.units("cordic"), ii, "angles",
                                       "CORDICs"):
            cos, sin = by_name.get(f"cos{k}"), by_name.get(f"sin{k}")
            program.trigs.append(Trig(cycle, unit, k, plan.angle_fields[k], cos, sin))
            for node, part in ((cos, "cos"), (sin, "sin")):
                if node is not None:
                    program.ready[node] = cycle + machine.trig_latency
                    program.bank[node] = f"{part}{unit[len('cordic'):]}"

    place_inputs()
    arrival = {"input": 1 + LOAD_LATENCY, "trig": 1 + machine.trig_latency}
    program.critical_path = max(
        (arrival["trig" if node.name[:3] in ("cos", "sin") else "input"] + urgency[node.index]
         for node in live if node.op == "input"), default=1)
    words = {k: micro_operation(plan.tracer, plan.formats, k) for k in kind_of}
    program.words = words
    reads = defaultdict(set)
    busy = {kind: [set() for _ in range(ii)] for kind in KINDS}
    # Most urgent first: a producer is more urgent than its consumers (every unit's latency is
    # at least a cycle), so its operands are placed before it.
    for k in sorted(kind_of, key=lambda k: (-urgency[k], k)):
        kind = kind_of[k]
        cycle = max(program.ready[_source(a).index] for a in nodes[k].args)
        while len(busy[kind][cycle % ii]) == len(units[kind]):
            cycle += 1
        taken = busy[kind][cycle % ii]
        unit, swapped = _bind(units[kind], taken, words[k], program.bank, reads)
        issue = Issue(cycle, unit, k, swapped)
        program.issues.append(issue)
        taken.add(unit)
        for port, operand in program.operands(issue).items():
            reads[(unit, port)].add(program.bank[operand])
        program.ready[k], program.bank[k] = cycle + latency[kind], unit
    program.issues.sort(key=lambda issue: (issue.cycle, issue.unit))
    program.output_cycle = max((program.ready[k] for k, _ in output_sources.values()),
                               default=1)
    program.outputs = output_sources
    _allocate(program, nodes, units)
    program.reads = {port: sorted(banks, key=program.banks.index)
                     for port, banks in sorted(reads.items())}
    return program


def _entries(items, units, interval, what, kind):
    """``(item, unit, cycle)``: the ``items``, in order, into the ``units`` round robin in
    cycles 1 to ``interval`` (a state's entry); ``ValueError`` if they do not fit."""
    if len(items) > len(units) * interval:
        raise ValueError(f"{len(items)} {what} do not fit {len(units)} {kind} at interval "
                         f"{interval}")
    for position, item in enumerate(items):
        yield item, units[position % len(units)], 1 + position // len(units)


def _bind(units, taken, word, bank, reads):
    """``(unit, swapped)``: the free unit (and operand order) whose ports already read the
    most of the operation's operands' banks; ties: the first unit, unswapped."""
    orders = [False]
    if word["b"] is not None and not word["subtract"]:
        orders.append(True)
    best = None
    for unit in units:
        if unit in taken:
            continue
        for swapped in orders:
            w = swapped_operation(word) if swapped else word
            cost = sum(1 for port in "ab" if w[port] is not None and
                       bank[w[port]] not in reads.get((unit, port), ()))
            if best is None or cost < best[0]:
                best = (cost, unit, swapped)
    return best[1], best[2]


def _allocate(program, nodes, units):
    """Each value's life (readable from its ready cycle to its last read) and each bank's
    rotating allocation."""
    last = {k: ready for k, ready in program.ready.items()}
    for issue in program.issues:
        for operand in program.operands(issue).values():
            last[operand] = max(last[operand], issue.cycle)
    for node, _ in program.outputs.values():
        last[node] = max(last[node], program.output_cycle)
    program.lives = {k: (program.ready[k], last[k]) for k in program.ready}
    machine = program.machine
    banks = [*units["mul"], *units["add"], *machine.units("load")]
    for cordic in machine.units("cordic"):
        banks += [f"cos{cordic[len('cordic'):]}", f"sin{cordic[len('cordic'):]}"]
    for bank in banks:
        lives = {k: program.lives[k] for k in sorted(program.bank) if program.bank[k] == bank}
        program.depth[bank], bases = rotating_allocation(lives, machine.interval)
        program.base.update(bases)
