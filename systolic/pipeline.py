"""A traced dataflow graph as a pipeline: cell windows, a schedule, and the Amaranth registers.

Every arithmetic node is one register stage (``neg`` is wiring into its consumer). Nodes belong
to *cells* (processing elements) and every cell runs in a *window* of clock cycles its array
fixes; a value crossing from one cell to another is handed over at the end of the producer's
window, as between the processing elements of a systolic array, so the array's latency is a
formula in its window lengths. Inside a window nodes run as soon as their operands are ready.
Each producer drives one tapped delay line (:func:`robohw.hw.delay_line.tapped_delay_line`) that
serves every consumer, and the whole pipeline moves on one enable.
"""

from collections import defaultdict
from dataclasses import dataclass

from amaranth.hdl import Assert, Const, Signal, signed

from robohw.hw.delay_line import tapped_delay_line
from robohw.hw.fixed import hdl_round_shift
from robohw.systolic.dataflow import OPS
from robohw.systolic.model import ROUNDING

__all__ = ["cell_depths", "Schedule", "schedule", "delay_taps", "build_dataflow", "INPUT_CELL"]

INPUT_CELL = ("in",)


def _latency(node):
    return OPS[node.op][1]


def cell_depths(tracer, indices):
    """``{cell: depth}``: the longest chain of registers inside each cell, its operands from
    other cells all arriving at cycle 0."""
    time, depth = {}, defaultdict(int)
    for k in indices:
        node = tracer.nodes[k]
        if node.op == "input":
            continue
        start = max((time[a.index] for a in node.args if a.cell == node.cell), default=0)
        time[k] = start + _latency(node)
        depth[node.cell] = max(depth[node.cell], time[k])
    return dict(depth)


@dataclass
class Schedule:
    """Start and ready cycles of every node (by index), and each cell's window."""
    start: dict
    ready: dict
    windows: dict


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
        if node.op == "input":
            start[k] = ready[k] = input_ready[node.name]
            continue
        first, end = windows.setdefault(node.cell, window(node.cell))
        start[k] = max([visible(a, node.cell) for a in node.args] + [first])
        ready[k] = start[k] + _latency(node)
        if ready[k] > end:
            raise AssertionError(f"{node}: ready at cycle {ready[k]}, after its window "
                                 f"{first}..{end}")
    return Schedule(start, ready, windows)


def _round(value, shift):
    # Sign-extend first when the shift reaches past the value's own bits.
    if len(value) <= shift + 1:
        value = value + Const(0, signed(shift + 2))
    return hdl_round_shift(value, shift, ROUNDING)


def _const(value):
    return Const(value, signed(max(value.bit_length(), 1) + 1))


def _hdl_op(node, fmt, args, arg_formats):
    """Amaranth twin of :func:`robohw.systolic.model.fixed_op`."""
    op, frac = node.op, fmt.frac
    if op in ("add", "sub"):
        top = max(f.frac for f in arg_formats)
        a, b = (v << (top - f.frac) for v, f in zip(args, arg_formats))
        return _round(a + b if op == "add" else a - b, top - frac)
    if op == "addc":
        top = max(arg_formats[0].frac, frac)
        constant = round(node.constant * 2.0 ** top)
        aligned = args[0] << (top - arg_formats[0].frac)
        return _round(aligned + _const(constant), top - frac)
    if op == "mul":
        return _round(args[0] * args[1], arg_formats[0].frac + arg_formats[1].frac - frac)
    if op == "cmul":
        return _round(args[0] * _const(fmt.const_code), arg_formats[0].frac + fmt.const_frac - frac)
    raise ValueError(f"{node}: not a registered op")


def _cell_name(cell):
    return "_".join(str(part) for part in cell) if cell else "top"


def delay_taps(tracer, indices, plan, reads):
    """``{index: {delay}}``: the taps each producer's delay line needs (``neg`` nodes read
    their operand's line), for the consumers in ``indices`` and the ``reads``."""
    nodes = tracer.nodes
    taps = defaultdict(set)

    def need(index, cycle):
        node = nodes[index]
        if node.op == "neg":
            need(node.args[0].index, cycle)
        else:
            taps[index].add(cycle - plan.ready[index])

    for k in indices:
        if nodes[k].op != "neg":
            for arg in nodes[k].args:
                need(arg.index, plan.start[k])
    for index, cycle in reads:
        need(index, cycle)
    return taps


def build_dataflow(m, tracer, indices, formats, plan, sources, enable, width, reads,
                   check_valid=None):
    """Registers and delay lines of the scheduled graph inside module ``m``.

    ``sources[index]`` is the signal of each input node (valid from its ready cycle);
    ``reads`` lists ``(index, cycle)`` pairs the caller needs. Returns ``{(index, cycle):
    value}``. With ``check_ranges``, simulation ``Assert``s that no register's value leaves
    ``signed(width)``: the formats' promise, checked where it matters.
    """
    nodes = tracer.nodes
    taps = delay_taps(tracer, indices, plan, reads)
    lines = {}

    def value(index, cycle):
        node = nodes[index]
        if node.op == "neg":
            return -value(node.args[0].index, cycle)
        return lines[index][cycle - plan.ready[index]]

    low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
    if check_valid is not None:
        starts = {plan.start[k] for k in indices if nodes[k].op not in ("input", "neg")}
        holds = tapped_delay_line(m, check_valid, starts, enable, "check_valid",
                                  reset_less=False)
    for k in indices:
        node = nodes[k]
        if node.op == "neg":
            continue
        label = f"{_cell_name(node.cell)}_n{k}"
        if node.op == "input":
            register = sources[k]
        else:
            args = [value(a.index, plan.start[k]) for a in node.args]
            expr = _hdl_op(node, formats[k], args, [formats[a.index] for a in node.args])
            register = Signal(signed(width), name=label, reset_less=True)
            with m.If(enable):
                m.d.sync += register.eq(expr)
            if check_valid is not None:
                real = holds[plan.start[k]]
                m.d.comb += Assert(~enable | ~real | ((expr >= low) & (expr <= high)),
                                   f"{label} ({node.op}) overflows signed({width})")
        lines[k] = tapped_delay_line(m, register, taps[k] | {0}, enable, label)
    return {(index, cycle): value(index, cycle) for index, cycle in reads}
