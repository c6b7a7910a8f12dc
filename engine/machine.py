"""The engine's machine (:class:`Machine`): its interval and units, the units' latencies at a
width, and by locality its clusters (:class:`Cluster`), each with its own multipliers and
adders, values between them on hops of :data:`HOP_LATENCY` cycles. The compiler
(:mod:`robohw.engine.program`) schedules a traced graph onto it."""

import functools
import math
from collections import defaultdict
from dataclasses import dataclass

from robohw.cordic.pipelined import pipelined_latency
from robohw.dataflow.operations import RECIPROCAL_KINDS, Op, Unit, unit_of
from robohw.dataflow.unit import ADDER_STAGES, multiplier_stages
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

__all__ = ["Machine", "Cluster", "product_latency", "unit_product", "reciprocal_unit_latency",
           "reciprocal_fold", "MAX_RECIPROCAL_FOLD", "MIN_INTERVAL", "MAX_INTERVAL", "KINDS",
           "SPARE_UNITS", "HOP_LATENCY", "RECIPROCAL_UNIT_STAGES", "COUNTED"]

# A program of at least two words (its ROM's address has a bit); the report's curve goes to 128.
MIN_INTERVAL = 2
MAX_INTERVAL = 1024
# The programmable units a machine and each of its clusters counts: {kind: its count's name}.
COUNTED = {Unit.MUL: "multipliers", Unit.NMUL: "narrow_multipliers", Unit.ADD: "adders"}
# The kinds of unit (each executes the operations whose Operation.unit names it,
# robohw.dataflow.operations).
KINDS = (*COUNTED, *RECIPROCAL_KINDS)
# The most steps a reciprocal unit's stage takes (reciprocal_fold): its tokens select the
# numerator bits of each next step through an OR of as many terms (up to 16 inputs, two LUT4
# levels beside the step's carry chain).
MAX_RECIPROCAL_FOLD = 8
# A reciprocal unit's stages beside its recurrence's: the operand read and the write.
RECIPROCAL_UNIT_STAGES = 2
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


def unit_product(width, *, balanced=False):
    """The product arguments of a multiplier unit at ``width`` bits
    (:func:`~robohw.dataflow.unit.fixed_point_unit`'s ``product``, ``product_latency`` and
    ``registered_operands``): a tile's registered product up to 18 bits,
    :func:`~robohw.hw.multiplier.split_product` (a stage more, its operands from registers)
    up to :data:`~robohw.hw.multiplier.SPLIT_PRODUCT_BITS`, its partial products one adder
    level a stage where ``balanced`` (the engine by locality's and the Newton-Euler array's),
    :func:`~robohw.hw.multiplier.tiled_product` above."""
    split = 18 < width <= SPLIT_PRODUCT_BITS
    product = registered_product if width <= 18 else \
        (functools.partial(split_product, first_levels=1) if balanced else split_product) \
        if split else tiled_product
    return {"product": product, "product_latency": product_latency(width),
            "registered_operands": split}


@dataclass(frozen=True)
class Cluster:
    """One cluster of an engine by locality: its ``multipliers``, ``adders`` and
    ``narrow_multipliers`` (named ``<name>_mul<j>``, ``<name>_add<j>`` and
    ``<name>_nmul<j>``), which execute its ``nodes`` (the traced operations bound to it) and
    whose operand ports read its register files."""
    name: str
    multipliers: int
    adders: int
    nodes: frozenset
    narrow_multipliers: int = 0

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"a cluster's name must be an identifier, not {self.name!r}")
        for name in COUNTED.values():
            check_integer(name, getattr(self, name), minimum=0)


@dataclass(frozen=True)
class Machine:
    """The engine's parameters: its ``interval`` (II, cycles per state) and its units
    (``reciprocals`` of ``1 / a`` and ``roots`` of ``1 / sqrt(a)``: none but for a graph that
    has them, each holding an operation for its kind's fold, ``reciprocal_fold`` or
    ``root_fold`` cycles: :func:`reciprocal_fold`; ``narrow_multipliers`` of the products of
    operands narrowed to a DSP tile's, :mod:`robohw.dataflow.narrowing`)."""
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
    narrow_multipliers: int = 0

    def __post_init__(self):
        check_integer("interval", self.interval, minimum=MIN_INTERVAL, maximum=MAX_INTERVAL)
        for name in ("multipliers", "adders", "loaders", "cordics", "reciprocals", "roots",
                     "narrow_multipliers"):
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
            for name in COUNTED.values():
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
        reciprocal units, loaders and CORDICs the machine's. The narrow multipliers
        (``nmul``, ``ncmul`` operations) are counted as the multipliers are, never given."""
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
        chosen = {Unit.MUL: multipliers, Unit.ADD: adders, Unit.NMUL: None}
        for kind, name in COUNTED.items():
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
                      for kind, name in COUNTED.items()}
        recip_fold, reciprocals = reciprocal_fold(count[Unit.RECIP], interval, plan.width)
        root_fold, roots = reciprocal_fold(count[Unit.RSQRT], interval, plan.width)
        return cls(interval, chosen[Unit.MUL], chosen[Unit.ADD], math.ceil(fields / interval),
                   math.ceil(joints / interval),
                   multiplier_stages(product_latency(plan.width)), ADDER_STAGES,
                   pipelined_latency(plan.cordic) + 3, reciprocals, roots,
                   reciprocal_unit_latency(Unit.RECIP, plan.width),
                   reciprocal_unit_latency(Unit.RSQRT, plan.width), recip_fold, root_fold,
                   clusters, narrow_multipliers=chosen[Unit.NMUL])

    def units(self, kind):
        """The names of the units of ``kind`` (a :class:`~robohw.dataflow.operations.Unit`)."""
        if self.clusters and kind in COUNTED:
            return [unit for cluster in self.clusters
                    for unit in self.cluster_units(cluster.name, kind)]
        count = {Unit.MUL: self.multipliers, Unit.ADD: self.adders, Unit.RECIP: self.reciprocals,
                 Unit.RSQRT: self.roots, Unit.LOAD: self.loaders, Unit.CORDIC: self.cordics,
                 Unit.NMUL: self.narrow_multipliers}[kind]
        return [f"{kind}{j}" for j in range(count)]

    def cluster_units(self, home, kind):
        """The units of ``kind`` that execute the operations of ``home`` (a cluster's name;
        ``None``: the machine's own, every unit of a machine without clusters)."""
        if home is None:
            return [] if self.clusters and kind in COUNTED else self.units(kind)
        cluster = next(c for c in self.clusters if c.name == home)
        count = getattr(cluster, COUNTED[kind]) if kind in COUNTED else 0
        return [f"{home}_{kind}{j}" for j in range(count)]

    @functools.cached_property
    def _homes(self):
        units = {unit: c.name for c in self.clusters for kind in COUNTED
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
        if kind in COUNTED:
            if k not in partition:
                raise ValueError(f"{nodes[k]}: the partition binds it to no cluster")
            members[partition[k]].append(k)
    clusters = []
    for name, own in sorted(members.items(), key=lambda item: min(item[1])):
        units = {name: math.ceil(round((1 + spare) * sum(1 for k in own
                                                         if unit_of(nodes[k]) == kind), 9) /
                                 interval)
                 for kind, name in COUNTED.items()}
        clusters.append(Cluster(name, units["multipliers"], units["adders"], frozenset(own),
                                units["narrow_multipliers"]))
    return tuple(clusters)
