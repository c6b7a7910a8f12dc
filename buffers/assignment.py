"""Optimal delay-buffer assignment that balances a pipelined task graph (Lee & Chang, section 2.2).

A node ``v`` of a directed acyclic task graph starts at cycle (or stage) ``t_v`` and delivers its
outputs ``d_v`` later. An edge ``u -> v`` then needs ``t_v - t_u - d_u >= 0`` buffer stages so
that all operands of ``v`` arrive together. :func:`assign_buffers` chooses integer start times
that minimise the buffer bits (stages times signal width):

* without sharing, every edge has its own delay line:
  ``min sum_e w_e (t_v - t_u - d_u)``;
* with sharing (``share=True``), every producer output ``p = (u, port)`` drives one tapped delay
  line as long as its latest consumer needs, the other consumers tapping it on the way:
  ``min sum_p w_p (m_p - t_u - d_u)`` with ``m_p >= t_v`` for every consumer ``v``.

Inputs start at 0. The depth (cycles from the inputs to the last output) is held at the critical
path unless ``depth`` says otherwise; ``align_outputs`` makes every output finish on the same
cycle.

Every constraint is a difference ``t_j - t_i >= l``: one +1 and one -1 per row, so the
constraint matrix is totally unimodular and the LP optimum at a vertex is integral. The LP is
solved with HiGHS (:func:`scipy.optimize.linprog`, interior point with crossover; ``milp`` with
presolve has been seen to return suboptimal 'optimal' answers on such graphs), and every optimum
is certified: the dual solution, a flow, is checked in exact integers to be feasible and to
have the primal's objective (weak duality then proves both optimal). Should HiGHS's duals not be
exact, the dual min-cost flow is solved independently with :func:`networkx.network_simplex`.
"""

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

# networkx and scipy are imported where they are used: a command that imports a task graph
# without solving one (robohw ik --backend float) starts without them.
from robohw.hw.checks import check_integer

__all__ = ["Edge", "BufferAssignment", "assign_buffers", "critical_path"]


@dataclass(frozen=True)
class Edge:
    """One operand: output ``port`` of node ``src`` feeds node ``dst``; ``width`` bits."""
    src: str
    dst: str
    port: str = "out"
    width: int = 1


@dataclass
class BufferAssignment:
    """An optimal, certified assignment.

    ``start``: start cycle of every node. ``edge_buffers``: stages between producer and consumer
    of every edge (the tap position when shared), in the order of the edges given.
    ``line_lengths``: stages of the delay line of every producer ``(node, port)`` that has one.
    ``buffer_stages`` and ``buffer_bits``: the totals that were minimised (lines when shared,
    edges otherwise). ``tapped_delay_lines``: shared lines with two or more taps before their end.
    ``depth``: cycles from the inputs to the last output. ``dual_objective`` equals the primal
    objective: the certificate.
    """
    start: dict
    edge_buffers: list
    line_lengths: dict
    buffer_stages: int
    buffer_bits: int
    delay_lines: int
    tapped_delay_lines: int
    depth: int
    dual_objective: int
    shared: bool = False
    edges: list = field(default_factory=list)


def _check(latencies, edges, inputs, outputs):
    import networkx as nx
    for name, latency in latencies.items():
        check_integer(f"latency of node {name!r}", latency, minimum=0)
    for edge in edges:
        for end in (edge.src, edge.dst):
            if end not in latencies:
                raise ValueError(f"edge {edge.src!r} -> {edge.dst!r}: unknown node {end!r}")
        check_integer(f"edge {edge.src!r} -> {edge.dst!r}: width", edge.width, minimum=1)
    for name in (*inputs, *outputs):
        if name not in latencies:
            raise ValueError(f"unknown input or output node {name!r}")
    fed = {edge.dst for edge in edges}
    for name in inputs:
        if name in fed:
            raise ValueError(f"input node {name!r} must not have operands")
    graph = nx.MultiDiGraph()
    graph.add_nodes_from(latencies)
    graph.add_edges_from((e.src, e.dst) for e in edges)
    if not nx.is_directed_acyclic_graph(graph):
        cycle = " -> ".join(str(arc[0]) for arc in nx.find_cycle(graph))
        raise ValueError(f"the task graph has a cycle: {cycle}")
    return graph


def critical_path(latencies, edges):
    """Earliest finishing cycle of the last node: the least possible depth."""
    import networkx as nx
    finish = {}
    graph = _check(latencies, edges, (), ())
    preds = defaultdict(list)
    for e in edges:
        preds[e.dst].append(e.src)
    for node in nx.topological_sort(graph):
        start = max((finish[p] for p in preds[node]), default=0)
        finish[node] = start + latencies[node]
    return max(finish.values(), default=0)


def _solve_difference_lp(names, costs, arcs):
    """min sum c_v t_v  s.t.  t_j - t_i >= l for (i, j, l) in arcs.

    Returns ``(t, objective, dual_objective)`` with integer start times and a verified
    certificate: an integral dual flow ``f >= 0`` with ``inflow - outflow = c_v`` at every node
    and ``sum l f`` equal to the primal objective, checked here in exact integers.
    """
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix
    index = {name: k for k, name in enumerate(names)}
    src = np.array([index[i] for i, _, _ in arcs])
    dst = np.array([index[j] for _, j, _ in arcs])
    length = np.array([l for _, _, l in arcs], dtype=np.int64)
    rows = np.repeat(np.arange(len(arcs)), 2)
    cols = np.stack([src, dst], 1).ravel()
    vals = np.tile([1.0, -1.0], len(arcs))  # -(t_j - t_i) <= -l
    a_ub = coo_matrix((vals, (rows, cols)), shape=(len(arcs), len(names))).tocsr()
    c = np.array([costs.get(name, 0) for name in names], dtype=np.int64)
    # Interior point with crossover ends on a vertex: integral here, and 20x faster than the
    # dual simplex on 10,000-node graphs.
    result = linprog(c, A_ub=a_ub, b_ub=-length.astype(float), bounds=(None, None),
                     method="highs-ipm")
    if result.status != 0:
        raise RuntimeError(f"HiGHS did not solve the balancing LP: {result.message}")
    t = np.rint(result.x - result.x[index["@0"]]).astype(np.int64)
    if np.any(t[dst] - t[src] < length):
        raise RuntimeError("HiGHS returned a non-integral or infeasible vertex")
    objective = int(c @ t)

    flow = np.rint(-result.ineqlin.marginals).astype(np.int64)
    balance = np.zeros(len(names), dtype=np.int64)
    np.add.at(balance, dst, flow)
    np.add.at(balance, src, -flow)
    if np.any(flow < 0) or np.any(balance != c) or int(length @ flow) != objective:
        dual = _network_simplex_dual(names, costs, arcs)  # HiGHS's duals were not exact
    else:
        dual = int(length @ flow)
    if dual != objective:
        raise RuntimeError(f"optimality certificate failed: primal {objective}, dual {dual}")
    return dict(zip(names, t.tolist())), objective, dual


def _network_simplex_dual(names, costs, arcs):
    """The dual optimum, max sum l f over flows with inflow - outflow = c_v, solved
    independently of HiGHS by networkx's network simplex."""
    import networkx as nx
    flow = nx.DiGraph()
    for name in names:
        flow.add_node(name, demand=int(costs.get(name, 0)))
    for i, j, l in arcs:
        if not flow.has_edge(i, j) or flow[i][j]["weight"] > -l:
            flow.add_edge(i, j, weight=-int(l))
    return -nx.network_simplex(flow)[0]


def assign_buffers(latencies, edges, *, inputs=(), outputs=(), share=False,
                   align_outputs=False, depth="critical"):
    """Minimum-buffer start times for a task graph.

    Parameters
    ----------
    latencies : dict of str to int
        Cycles (or stages) from a node's start to its outputs.
    edges : list of :class:`Edge`
        Operands; parallel edges are allowed.
    inputs, outputs : sequences of node names
        Inputs start at 0; ``align_outputs`` makes the outputs finish together.
    share : bool
        One tapped delay line per producer output instead of one line per edge.
    depth : "critical", int or None
        Bound on the cycle the last node finishes: the critical path (default), a given number
        of cycles, or none.

    Returns
    -------
    :class:`BufferAssignment`
    """
    edges = list(edges)
    _check(latencies, edges, inputs, outputs)
    if depth == "critical":
        depth = critical_path(latencies, edges)
    elif depth is not None and check_integer("depth", depth) < critical_path(latencies, edges):
        raise ValueError(f"depth must be 'critical', None or an integer >= the critical path "
                         f"{critical_path(latencies, edges)}, not {depth!r}")

    names = ["@0", "@end", *latencies]
    arcs = [(e.src, e.dst, int(latencies[e.src])) for e in edges]
    arcs += [a for s in inputs for a in (("@0", s, 0), (s, "@0", 0))]
    sinks = set(latencies) - {e.src for e in edges}
    arcs += [(v, "@end", int(latencies[v])) for v in sinks]   # @end after every sink
    arcs += [("@0", "@end", 0)]
    if depth is not None:
        arcs.append(("@end", "@0", -depth))
    if align_outputs:
        arcs += [a for o in outputs
                 for a in ((o, "@end", int(latencies[o])), ("@end", o, -int(latencies[o])))]
    costs = defaultdict(int)
    constant = 0
    producers = defaultdict(list)
    for k, e in enumerate(edges):
        producers[(e.src, e.port)].append(k)
    widths = {}
    for p, ks in producers.items():
        found = {edges[k].width for k in ks}
        if len(found) != 1:
            raise ValueError(f"edges from {p[0]!r} port {p[1]!r} disagree on width: "
                             f"{sorted(found)}")
        widths[p] = found.pop()
    if share:
        for (u, port), ks in producers.items():
            line = f"@line:{u}:{port}"
            names.append(line)
            arcs.append((u, line, int(latencies[u])))
            arcs += [(edges[k].dst, line, 0) for k in ks]
            costs[line] += widths[(u, port)]
            costs[u] -= widths[(u, port)]
            constant -= widths[(u, port)] * int(latencies[u])
    else:
        for e in edges:
            costs[e.dst] += e.width
            costs[e.src] -= e.width
            constant -= e.width * int(latencies[e.src])
    times, objective, dual = _solve_difference_lp(names, costs, arcs)

    start = {name: times[name] for name in latencies}
    edge_buffers = [start[e.dst] - start[e.src] - latencies[e.src] for e in edges]
    lines, tapped = {}, 0
    if share:
        for (u, port), ks in producers.items():
            taps = {edge_buffers[k] for k in ks}
            if max(taps) > 0:
                lines[(u, port)] = max(taps)
                tapped += len(taps - {0, max(taps)}) > 0
        stages = sum(lines.values())
        bits = sum(length * widths[p] for p, length in lines.items())
    else:
        lines = {(e.src, e.port, k): b for k, (e, b) in enumerate(zip(edges, edge_buffers)) if b}
        stages = sum(edge_buffers)
        bits = sum(b * e.width for b, e in zip(edge_buffers, edges))
    if bits != objective + constant:
        raise RuntimeError("buffer bits disagree with the LP objective")
    finish = max((start[v] + latencies[v] for v in latencies), default=0)
    return BufferAssignment(start=start, edge_buffers=edge_buffers, line_lengths=lines,
                            buffer_stages=stages, buffer_bits=bits, delay_lines=len(lines),
                            tapped_delay_lines=tapped, depth=finish,
                            dual_objective=dual + constant, shared=share, edges=edges)
