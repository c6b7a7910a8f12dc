"""A traced dataflow graph folded by ``k``: one result every ``k`` cycles on shared multipliers.

Unfolded (``k = 1``) every product of the graph has its own multiplier, which on an FPGA is a
DSP block or four (a 24 x 24 product takes four 18 x 18 tiles). Folded, the graph takes an input
every ``k`` cycles, so a multiplier can compute ``k`` products per input, one in each phase of
the ``k``: ``ceil(products / k)`` multipliers serve them all. :func:`modulo_schedule` finds start
cycles for the nodes under that constraint, a modulo reservation table of ``k`` phases with
``units`` slots each, by list scheduling in the traced (topological) order: every node as soon
as its operands are ready, a product in the first cycle after that whose phase still has a free
multiplier (one always comes within ``k`` cycles, since the table has room for all products).
The adders are not shared: a shared adder would cost as much in multiplexers as it saves.
"""

import math

from robohw.hw.stream import check_fold
from robohw.dataflow.graph import OPS
from robohw.dataflow.pipeline import MULTIPLIER_STAGES, SHARED_OPS, Schedule

__all__ = ["modulo_schedule", "shared_products"]


def shared_products(tracer, indices):
    """The live nodes that a folded schedule puts on shared multipliers."""
    return [k for k in indices if tracer.nodes[k].op in SHARED_OPS]


def modulo_schedule(tracer, indices, fold, input_ready):
    """A :class:`~robohw.dataflow.pipeline.Schedule` of the live ``indices`` folded by ``fold``.

    ``input_ready[name]`` is the cycle each input node's value exists (for one cycle: a port or
    a CORDIC's last stage). Products go on ``ceil(products / fold)`` multipliers, no two in the
    same phase on one, and are ready :data:`~robohw.dataflow.pipeline.MULTIPLIER_STAGES` cycles
    after they start; every other node starts when its operands are ready. The schedule's
    ``windows`` are empty: a folded array is one pool of multipliers, not cells in windows.
    """
    check_fold(fold)
    nodes = tracer.nodes
    units = math.ceil(len(shared_products(tracer, indices)) / fold)
    busy = [0] * fold                # multipliers taken in each phase
    start, ready, unit = {}, {}, {}
    for k in indices:
        node = nodes[k]
        if node.op == "input":
            start[k] = ready[k] = input_ready[node.name]
            continue
        cycle = max(ready[a.index] for a in node.args)
        if node.op in SHARED_OPS:
            while busy[cycle % fold] == units:
                cycle += 1
            unit[k] = busy[cycle % fold]
            busy[cycle % fold] += 1
            start[k], ready[k] = cycle, cycle + MULTIPLIER_STAGES
        else:
            start[k], ready[k] = cycle, cycle + OPS[node.op][1]
    return Schedule(start, ready, {}, fold=fold, multipliers=units, unit=unit)
