"""A traced dataflow graph as a pipeline: cell windows, a schedule, and the Amaranth registers.

Every arithmetic node is one register stage (``neg`` is wiring into its consumer). Nodes belong
to *cells* (processing elements) and every cell runs in a *window* of clock cycles its array
fixes; a value crossing from one cell to another is handed over at the end of the producer's
window, as between the processing elements of a systolic array, so the array's latency is a
formula in its window lengths. Inside a window nodes run as soon as their operands are ready.
Each producer drives one tapped delay line (:func:`robohw.hw.delay_line.tapped_delay_line`) that
serves every consumer, and the whole pipeline moves on one enable.

Folded by ``k`` (:mod:`robohw.dataflow.folding` schedules it), the pipeline takes an input every
``k`` cycles and every register takes a new value once every ``k`` cycles, in the phase its
node's schedule gives it: a node's register holds its value for ``k`` cycles and each stage of
its delay line for ``k`` more, and the products share ``ceil(products / k)`` multipliers whose
operands a multiplexer picks by phase.
"""

import re
from collections import defaultdict
from dataclasses import dataclass, field

from amaranth.hdl import Assert, Signal, signed

from robohw.dataflow.operations import Op, Unit, hdl_constant, operation, unit_of
from robohw.hw.delay_line import tapped_delay_line
from robohw.hw.fixed import rounding_increment, rounding_mask, rounding_shift
from robohw.hw.multiplier import OPERAND_REGISTERS, SPLIT_PRODUCT_LATENCY, split_product

__all__ = ["cell_depths", "Schedule", "asap_schedule", "schedule", "delay_taps", "build_dataflow",
           "INPUT_CELL", "shared_product", "MULTIPLIER_STAGES", "MULTIPLIER_OPERAND_REGISTERS",
           "MULTIPLIER_PRODUCT_REGISTERS", "control_parts", "ring_parts", "hdl_op"]

INPUT_CELL = ("in",)
# The ops a folded schedule puts on shared multipliers, and the register stages of one: the
# operands its multiplexers pick, registered twice (beside the multiplexers, then at the DSP tile:
# inside it on an ECP5, robohw.hw.multiplier), the product registered twice (at the tile, then
# beside its consumers), the node's own register of it (its rounding's first step: the shared
# product register into every node's rounding, across the array, limited both inertia arrays:
# docs/notes/2026-12-every-design-at-100-mhz.md), and the rounded result in the node's register.
# The DSP tiles sit in a few rows of the chip, far from most registers: two registers on each side
# of the tile clocked the folded linear array fastest of one, two and three (one: the path operand
# register -> tile -> product register limits it; three: the operand multiplexers' inputs cross
# the chip; the measurements: docs/inertia.md).
# The product's two registers are robohw.hw.multiplier.split_product's: the tile's, and one
# beside its consumers (where a product wider than the tile adds the fabric's partial products).
MULTIPLIER_OPERAND_REGISTERS = 2
MULTIPLIER_PRODUCT_REGISTERS = SPLIT_PRODUCT_LATENCY - OPERAND_REGISTERS
MULTIPLIER_STAGES = MULTIPLIER_OPERAND_REGISTERS + MULTIPLIER_PRODUCT_REGISTERS + 2


def _latency(node):
    return int(operation(node.op).registered)


def shared_product(node):
    """Whether ``node`` is a product, which a folded plan gives its shared multipliers: an
    operation a multiplier unit executes (:attr:`~robohw.dataflow.operations.Operation.unit`
    ``Unit.MUL``)."""
    return unit_of(node) == Unit.MUL


def cell_depths(tracer, indices):
    """``{cell: depth}``: the longest chain of registers inside each cell, its operands from
    other cells all arriving at cycle 0."""
    time, depth = {}, defaultdict(int)
    for k in indices:
        node = tracer.nodes[k]
        if node.op == Op.INPUT:
            continue
        start = max((time[a.index] for a in node.args if a.cell == node.cell), default=0)
        time[k] = start + _latency(node)
        depth[node.cell] = max(depth[node.cell], time[k])
    return dict(depth)


@dataclass
class Schedule:
    """Start and ready cycles of every node (by index), each cell's window, and for a folded
    schedule (:func:`robohw.dataflow.folding.modulo_schedule`) the fold, the number of shared
    multipliers and the multiplier of every product (by index)."""
    start: dict
    ready: dict
    windows: dict
    fold: int = 1
    multipliers: int = 0
    unit: dict = field(default_factory=dict)

    def hold(self, node):
        """Cycles ``node``'s own signal holds its value from its ready cycle: an input (a
        port or a CORDIC's last stage) one, a register ``fold``."""
        return 1 if node.op == Op.INPUT else self.fold

    def stage(self, node, cycle):
        """The stage of ``node``'s delay line that holds its value at ``cycle`` (0: the node's
        own signal)."""
        late = cycle - self.ready[node.index]
        if late < 0:
            raise AssertionError(f"{node} read at cycle {cycle}, before it is ready")
        late -= self.hold(node)
        return 0 if late < 0 else late // self.fold + 1

    def line_phase(self, node):
        """The phase in which ``node``'s delay line moves: the last cycle its own signal holds."""
        return (self.ready[node.index] + self.hold(node) - 1) % self.fold


def asap_schedule(tracer, indices, input_ready):
    """Schedule the live ``indices`` with every node as soon as its operands are ready
    (``input_ready[name]``: the cycle an input node's value exists); no windows."""
    start, ready = {}, {}
    for k in indices:
        node = tracer.nodes[k]
        if node.op == Op.INPUT:
            start[k] = ready[k] = input_ready[node.name]
            continue
        start[k] = max(ready[a.index] for a in node.args)
        ready[k] = start[k] + _latency(node)
    return Schedule(start, ready, {})


def schedule(tracer, indices, window, input_ready):
    """Schedule the live ``indices``: ``window(cell) -> (first, end)`` cycles;
    ``input_ready[name]`` is the cycle an input node's value exists, and it is handed over at
    the end of :data:`INPUT_CELL`'s window. Raises ``AssertionError`` if a window is too short
    for its cell."""
    start, ready, windows = {}, {}, {}

    def visible(arg, cell):
        if arg.cell == cell:
            return ready[arg.index]
        return windows.setdefault(arg.cell, window(arg.cell))[1]

    for k in indices:
        node = tracer.nodes[k]
        if node.op == Op.INPUT:
            start[k] = ready[k] = input_ready[node.name]
            continue
        first, end = windows.setdefault(node.cell, window(node.cell))
        start[k] = max([visible(a, node.cell) for a in node.args] + [first])
        ready[k] = start[k] + _latency(node)
        if ready[k] > end:
            raise AssertionError(f"{node}: ready at cycle {ready[k]}, after its window "
                                 f"{first}..{end}")
    return Schedule(start, ready, windows)


def hdl_op(node, fmt, args, arg_formats):
    """Amaranth twin of :func:`robohw.dataflow.evaluate.fixed_op`: one node's registered value
    from its operands (``args``, Amaranth values in their ``arg_formats``); its kind's
    :meth:`~robohw.dataflow.operations.Operation.hdl`."""
    return operation(node.op).hdl(node, fmt, args, arg_formats)


def _cell_name(cell):
    """A signal-name prefix of a cell: its parts joined by ``_`` (``None`` parts left out), any
    character other than a letter, a digit or ``_`` replaced (RTLIL names end at a space)."""
    name = "_".join(str(part) for part in cell if part is not None) if cell else "top"
    return re.sub(r"\W", "_", name) or "top"


def delay_taps(tracer, indices, plan, reads):
    """``{index: {delay}}``: the taps each producer's delay line needs (``neg`` nodes read
    their operand's line), for the consumers in ``indices`` and the ``reads``."""
    nodes = tracer.nodes
    taps = defaultdict(set)

    def need(index, cycle):
        node = nodes[index]
        if node.op == Op.NEG:
            need(node.args[0].index, cycle)
        else:
            taps[index].add(plan.stage(node, cycle))

    for k in indices:
        if nodes[k].op != Op.NEG:
            for arg in nodes[k].args:
                need(arg.index, plan.start[k])
    for index, cycle in reads:
        need(index, cycle)
    return taps


def _product_shift(node, fmt, arg_formats):
    """Bits a product of ``node``'s operand codes is rounded by: its micro-operation's shift
    (:meth:`~robohw.dataflow.operations.Operation.word`)."""
    args = [a.args[0] if a.op == Op.NEG else a for a in node.args]
    return operation(node.op).word(node, fmt, [f.frac for f in arg_formats], args,
                                   [a.op == Op.NEG for a in node.args])["shift"]


def ring_parts(tracer, indices, taps, width, fanout=None):
    """``{index: part}``: the part whose phase ring (:func:`build_dataflow`'s ``phase_copy``)
    enables each node's register and delay line. Without ``fanout`` the part is the node's
    cell. With it, each cell is split, in node order, into groups of at most ``fanout``
    flip-flops (a node's register and its line's ``max(taps)`` stages of ``width`` bits; a
    group holds at least one node): one ring bit driving the enables of a thousand flip-flops
    spread over the chip was the Newton-Euler pipeline's limit (its cells are whole phases of
    the equations)."""
    parts, load, group = {}, defaultdict(int), defaultdict(int)
    for k in indices:
        node = tracer.nodes[k]
        if node.op == Op.NEG:
            continue
        cell = _cell_name(node.cell)
        if fanout is None:
            parts[k] = cell
            continue
        bits = width * ((node.op != Op.INPUT) + max(taps[k] | {0}))
        if load[cell] and load[cell] + bits > fanout:
            group[cell], load[cell] = group[cell] + 1, 0
        load[cell] += bits
        parts[k] = f"{cell}_{group[cell]}"
    return parts


def build_dataflow(m, tracer, indices, formats, plan, sources, enable, width, reads,
                   check_valid=None, phases=None, phase_copy=None, phase_index_copy=None,
                   ring_fanout=None, platform=None):
    """Registers and delay lines of the scheduled graph inside module ``m``.

    ``sources[index]`` is the signal of each input node (valid in its ready cycle);
    ``reads`` lists ``(index, cycle)`` pairs the caller needs. Returns ``{(index, cycle):
    value}``. A folded ``plan`` needs ``phases``, the one-hot phase signals of
    :meth:`robohw.hw.stream.StreamPipeline.fold_control`. With ``check_valid`` (the input's
    transfer), simulation ``Assert``s that no register's value leaves ``signed(width)``: the
    formats' promise, checked where it matters. ``phase_copy``, if given, is a function from a
    part's name (a processor, ``mul{unit}``) to that part's own copy of ``phases``
    (:meth:`robohw.hw.stream.StreamPipeline.phase_copy`): no single ring drives every
    register's enable or every multiplexer's select. A folded ``plan`` also needs
    ``phase_index_copy``, a function from a name (``mul{unit}_a``, ``mul{unit}_b``) to a
    binary copy of the phase (:meth:`robohw.hw.stream.StreamPipeline.phase_index_copy`): the
    select of each shared multiplier's operand multiplexers. ``platform``: what the design
    is elaborated for; for an ECP5 the shared multipliers' registers at the tile are the
    tile's own (:func:`robohw.hw.multiplier.split_product`).
    """
    nodes = tracer.nodes
    fold = plan.fold
    if fold > 1 and (phases is None or len(phases) != fold):
        raise ValueError(f"a schedule folded by {fold} needs {fold} phase signals")
    if fold > 1 and phase_index_copy is None:
        raise ValueError(f"a schedule folded by {fold} needs phase_index_copy")
    taps = delay_taps(tracer, indices, plan, reads)
    rings = ring_parts(tracer, indices, taps, width, ring_fanout)
    lines = {}

    parts = {}

    def part(name):  # the phase ring of one part
        if phase_copy is None or fold == 1:
            return phases
        if name not in parts:
            parts[name] = phase_copy(name)
        return parts[name]

    def at(cycle, name):  # the enable of a register that takes its value in cycle's phase
        return enable if fold == 1 else enable & part(name)[cycle % fold]

    def value(index, cycle):
        node = nodes[index]
        if node.op == Op.NEG:
            return -value(node.args[0].index, cycle)
        return lines[index][plan.stage(node, cycle)]

    shifts = {k: _product_shift(nodes[k], formats[k], [formats[a.index] for a in nodes[k].args])
              for k in plan.unit}
    products, operands = _shared_multipliers(m, width, plan, enable, shifts,
                                             exact=check_valid is not None, platform=platform)
    low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
    if check_valid is not None:
        starts = {plan.ready[k] - 1 for k in indices if nodes[k].op not in (Op.INPUT, Op.NEG)}
        holds = tapped_delay_line(m, check_valid, starts, enable, "check_valid",
                                  reset_less=False)
    for k in indices:
        node = nodes[k]
        if node.op == Op.NEG:
            continue
        cell = _cell_name(node.cell)
        label = f"{cell}_n{k}"
        if node.op == Op.INPUT:
            register = sources[k]
        else:
            arg_formats = [formats[a.index] for a in node.args]
            if k in products:
                expr = _node_product(m, products[k], at(plan.ready[k] - 2, rings[k]), label)
            else:
                args = [value(a.index, plan.start[k]) for a in node.args]
                expr = hdl_op(node, formats[k], args, arg_formats)
            # The register takes its value in the cycle before the node is ready.
            take = plan.ready[k] - 1
            register = Signal(signed(width), name=label, reset_less=True)
            with m.If(at(take, rings[k])):
                m.d.sync += register.eq(expr)
            if check_valid is not None:
                real = holds[take]
                # Checked at the clock edge, on settled values: the shared multipliers'
                # operand multiplexers may glitch while a cycle settles.
                m.d.sync += Assert(~at(take, rings[k]) | ~real |
                                   ((expr >= low) & (expr <= high)),
                                   f"{label} ({node.op}) overflows signed({width})")
        lines[k] = tapped_delay_line(m, register, taps[k] | {0},
                                     at(plan.line_phase(node), rings[k]), label)
    _select_operands(m, nodes, formats, plan, operands, value, phase_index_copy)
    return {(index, cycle): value(index, cycle) for index, cycle in reads}


def control_parts(tracer, indices, plan, reads, width, ring_fanout=None):
    """``(rings, selects)``: the names of the parts that :func:`build_dataflow` (with the same
    arguments) asks ``phase_copy`` for (:func:`ring_parts`: every processor, or cell, that
    holds a register or a line, or its groups) and those it asks ``phase_index_copy`` for (both
    operand multiplexers of every shared multiplier)."""
    taps = delay_taps(tracer, indices, plan, reads)
    rings = set(ring_parts(tracer, indices, taps, width, ring_fanout).values())
    return rings, {f"mul{unit}_{side}" for unit in set(plan.unit.values()) for side in "ab"}


def _shared_multipliers(m, width, plan, enable, shifts, exact, platform):
    """The folded schedule's multipliers: ``({index: (halved, sticky)}, {unit: operands})``. A
    multiplier takes, in each phase, the operands of the product scheduled on it then (a
    multiplexer, driven by :func:`_select_operands` once every value exists), registers them
    :data:`MULTIPLIER_OPERAND_REGISTERS` times and their product
    :data:`MULTIPLIER_PRODUCT_REGISTERS` times (the last operand register and the product
    registers: :func:`~robohw.hw.multiplier.split_product`'s, in and beside one DSP tile on an
    ECP5 ``platform`` up to :data:`~robohw.hw.multiplier.SPLIT_PRODUCT_BITS`); each product
    node rounds the last product register by its own ``shifts[index]`` in two steps, each into
    registers of its own (:func:`~robohw.hw.fixed.rounding_shift`, wiring and an OR of the
    dropped bits below the half, into the node's ``halved`` and ``sticky`` registers
    (:func:`_node_product`), then :func:`~robohw.hw.fixed.rounding_increment`, a carry chain
    over the kept ``width + 1`` bits, or all of them if ``exact``, for the range checks, into
    the node's register, which wraps to ``width``): :data:`MULTIPLIER_STAGES` cycles. Rounding
    at the node routes
    better than one adder over every bit of a product or a shift multiplexer at the multiplier
    (``docs/notes/2026-10-inertia-on-the-ecp5.md``). The operands are ``signed(width)``; a
    negated operand fits too: every code is under ``2**(width - 1)`` in magnitude
    (:func:`~robohw.dataflow.graph.frac_bits_for` keeps a margin), so its negation is one."""
    by_unit, operands = {}, {}

    def register(value, name):
        held = Signal(value.shape(), name=name, reset_less=True)
        with m.If(enable):
            m.d.sync += held.eq(value)
        return held
    for unit in sorted(set(plan.unit.values())):
        operands[unit] = [Signal(signed(width), name=f"mul{unit}_{side}") for side in "ab"]
        a, b = operands[unit]
        # split_product holds the last operand registers and the product registers.
        for stage in range(MULTIPLIER_OPERAND_REGISTERS - OPERAND_REGISTERS):
            a, b = register(a, f"mul{unit}_a_reg{stage}"), register(b, f"mul{unit}_b_reg{stage}")
        by_unit[unit] = split_product(m, a, b, enable, f"mul{unit}", platform)
    halves = {}
    for k, unit in plan.unit.items():
        halved, sticky = rounding_shift(by_unit[unit], shifts[k], rounding_mask(shifts[k]))
        if not exact:
            halved = halved[:width + 1].as_signed()
        halves[k] = halved, sticky
    return halves, operands


def _node_product(m, half, enable, label):
    """A product node's rounded product: the first step of its rounding (``half``:
    ``(halved, sticky)`` of :func:`_shared_multipliers`) into registers of the node's own,
    taken while ``enable`` (in the node's phase), then the increment."""
    halved, sticky = half
    held = Signal(halved.shape(), name=f"{label}_halved", reset_less=True)
    held_sticky = Signal(name=f"{label}_sticky", reset_less=True)
    with m.If(enable):
        m.d.sync += [held.eq(halved), held_sticky.eq(sticky)]
    return rounding_increment(held, held_sticky)


def _select_operands(m, nodes, formats, plan, operands, value, phase_index_copy):
    """Drive each shared multiplier's operands by phase: a multiplexer per operand on its own
    binary phase, ``phase_index_copy(f"mul{unit}_{side}")``."""
    for side in (0, 1):
        by_unit = defaultdict(list)
        for k, unit in plan.unit.items():
            node, start = nodes[k], plan.start[k]
            if side < len(node.args):
                operand = value(node.args[side].index, start)
            else:                       # a constant's product: its code
                operand = hdl_constant(formats[k].const_code)
            by_unit[unit].append((start % plan.fold, operand))
        for unit, choices in by_unit.items():
            with m.Switch(phase_index_copy(f"mul{unit}_{'ab'[side]}")):
                for phase, operand in choices:
                    with m.Case(phase):
                        m.d.comb += operands[unit][side].eq(operand)
