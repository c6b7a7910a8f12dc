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
from collections import Counter, defaultdict

import networkx as nx

from robohw.dataflow.operations import Op, operation
from robohw.dataflow.pipeline import MULTIPLIER_STAGES, Schedule, shared_product
from robohw.hw.devices import DEVICES
from robohw.hw.multiplier import split_product_tiles
from robohw.hw.stream import check_fold

__all__ = ["modulo_schedule", "shared_products", "product_pools", "fold_for_tiles"]


def shared_products(tracer, indices):
    """The live nodes that a folded schedule puts on shared multipliers."""
    return [k for k in indices if shared_product(tracer.nodes[k])]


def fold_for_tiles(plan, least=1, device="ecp5-85k"):
    """The smallest fold from ``least`` at which the shared products of ``plan`` (a traced
    plan at its width), each on :func:`robohw.hw.multiplier.split_product_tiles` DSP tiles,
    fit ``device``'s tiles: ``ceil(products / k) * tiles_per_product <= tiles``."""
    products = len(shared_products(plan.tracer, plan.live))
    tiles_per_product = split_product_tiles(plan.width, plan.width)
    fold = least
    while math.ceil(products / fold) * tiles_per_product > DEVICES[device].dsp:
        fold += 1
    return fold


def product_pools(tracer, indices, resolution, seed=1):
    """``{product index: pool}``: the pool of each product is its community in the live graph
    (Louvain's modularity clustering at ``resolution``, seeded: the same graph, the same
    pools). Values flow mostly inside a community; a pool of multipliers serving one keeps its
    operand multiplexers' inputs among nearby registers."""
    nodes = tracer.nodes
    graph = nx.Graph()
    for k in indices:
        if nodes[k].op != Op.INPUT:
            graph.add_node(k)
            graph.add_edges_from((k, a.index) for a in nodes[k].args
                                 if nodes[a.index].op != Op.INPUT)
    communities = nx.community.louvain_communities(graph, resolution=resolution, seed=seed)
    # Numbered by their first node: the order of the trace, not of the algorithm's sets.
    communities = sorted(communities, key=min)
    where = {k: pool for pool, members in enumerate(communities) for k in members}
    return {k: where[k] for k in shared_products(tracer, indices)}


def modulo_schedule(tracer, indices, fold, input_ready, pools=None):
    """A :class:`~robohw.dataflow.pipeline.Schedule` of the live ``indices`` folded by ``fold``.

    ``input_ready[name]`` is the cycle each input node's value exists (for one cycle: a port or
    a CORDIC's last stage). Products go on ``ceil(products / fold)`` multipliers, no two in the
    same phase on one, and are ready :data:`~robohw.dataflow.pipeline.MULTIPLIER_STAGES` cycles
    after they start; every other node starts when its operands are ready. The schedule's
    ``windows`` are empty: a folded array is a pool of multipliers, not cells in windows.
    With ``pools`` (``{product index: pool}``, as
    :func:`product_pools` gives), each pool of products has multipliers of its own,
    ``ceil(its products / fold)``, numbered pool after pool.
    """
    check_fold(fold)
    nodes = tracer.nodes
    products = shared_products(tracer, indices)
    pools = pools or {k: 0 for k in products}
    sizes = Counter(pools[k] for k in products)
    capacity = {pool: math.ceil(size / fold) for pool, size in sizes.items()}
    first, units = {}, 0
    for pool in sorted(capacity):
        first[pool], units = units, units + capacity[pool]
    busy = defaultdict(lambda: [0] * fold)  # multipliers of a pool taken in each phase
    start, ready, unit = {}, {}, {}
    for k in indices:
        node = nodes[k]
        if node.op == Op.INPUT:
            start[k] = ready[k] = input_ready[node.name]
            continue
        cycle = max(ready[a.index] for a in node.args)
        if shared_product(node):
            taken = busy[pools[k]]
            while taken[cycle % fold] == capacity[pools[k]]:
                cycle += 1
            unit[k] = first[pools[k]] + taken[cycle % fold]
            taken[cycle % fold] += 1
            start[k], ready[k] = cycle, cycle + MULTIPLIER_STAGES
        else:
            start[k], ready[k] = cycle, cycle + int(operation(node.op).registered)
    return Schedule(start, ready, {}, fold=fold, multipliers=units, unit=unit)
