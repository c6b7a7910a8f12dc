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

Which multiplier of its phase a product takes does not change the schedule, only the wires:
by default the first free one; with ``locality`` (:func:`bind_by_locality`) the one that
already serves its operands or its cell, so that each multiplier's operand multiplexers gather
from fewer places of the chip.
"""

import math
from collections import Counter, defaultdict

from robohw.hw.stream import check_fold
from robohw.dataflow.graph import OPS
from robohw.dataflow.pipeline import MULTIPLIER_STAGES, SHARED_OPS, Schedule

__all__ = ["modulo_schedule", "shared_products", "bind_by_locality"]


def shared_products(tracer, indices):
    """The live nodes that a folded schedule puts on shared multipliers."""
    return [k for k in indices if tracer.nodes[k].op in SHARED_OPS]


def modulo_schedule(tracer, indices, fold, input_ready, locality=False):
    """A :class:`~robohw.dataflow.pipeline.Schedule` of the live ``indices`` folded by ``fold``.

    ``input_ready[name]`` is the cycle each input node's value exists (for one cycle: a port or
    a CORDIC's last stage). Products go on ``ceil(products / fold)`` multipliers, no two in the
    same phase on one, and are ready :data:`~robohw.dataflow.pipeline.MULTIPLIER_STAGES` cycles
    after they start; every other node starts when its operands are ready. The schedule's
    ``windows`` are empty: a folded array is one pool of multipliers, not cells in windows.
    With ``locality``, the products are bound to multipliers by :func:`bind_by_locality`
    (the same start cycles).
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
    if locality:
        unit = bind_by_locality(tracer, list(unit), start, fold, units)
    return Schedule(start, ready, {}, fold=fold, multipliers=units, unit=unit)


def bind_by_locality(tracer, products, start, fold, units):
    """``{index: multiplier}``: each product, in ``products``' order, on the multiplier free in
    its phase (``start[index] % fold``) that already serves the most of its operands, then the
    most products of its cell; failing both, on an idle one rather than one serving others.

    Placed, a multiplier sits near its operands' registers. In the Newton-Euler pipeline (18
    bits, folded by 6), the first free multiplier of a phase gave a multiplier operands from
    10.8 values on average and sent one value to 25 multipliers; bound by locality, 9.1 and 14.
    """
    taken = [set() for _ in range(fold)]
    cells, sources = defaultdict(Counter), defaultdict(set)
    unit = {}
    for k in products:
        node = tracer.nodes[k]
        operands = {a.index for a in node.args}

        def affinity(u):
            return (len(operands & sources[u]), cells[u][node.cell], not cells[u], -u)
        phase = start[k] % fold
        unit[k] = max((u for u in range(units) if u not in taken[phase]), key=affinity)
        taken[phase].add(unit[k])
        cells[unit[k]][node.cell] += 1
        sources[unit[k]] |= operands
    return unit
