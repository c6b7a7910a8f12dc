"""Optimal buffer assignment: hand example, brute force on tiny graphs, the independent dual
on medium graphs, options and errors."""

import itertools

import numpy as np
import pytest

from robohw.buffers import Edge, assign_buffers, assignment, critical_path
from robohw.buffers.assignment import _network_simplex_dual
from robohw.buffers.bench import random_task_graph


def random_dag(rng, nodes, fan_in=2, max_latency=3):
    return random_task_graph(nodes, seed=int(rng.integers(2 ** 31)), inputs=2, fan_in=fan_in,
                             max_latency=max_latency)


def brute_force(latencies, edges, inputs, share, depth):
    free = [n for n in latencies if n not in inputs]
    best = None
    for times in itertools.product(range(depth + 1), repeat=len(free)):
        start = dict.fromkeys(inputs, 0) | dict(zip(free, times))
        if any(start[v] + latencies[v] > depth for v in latencies):
            continue
        buffers = [start[e.dst] - start[e.src] - latencies[e.src] for e in edges]
        if min(buffers, default=0) < 0:
            continue
        if share:
            lines = {}
            for e, b in zip(edges, buffers):
                lines[(e.src, e.port)] = max(lines.get((e.src, e.port), 0), b)
            cost = sum(lines.values())
        else:
            cost = sum(buffers)
        best = cost if best is None else min(best, cost)
    return best


def test_hand_example():
    latencies = {"i": 0, "a": 3, "b": 1, "c": 2, "o": 1}
    edges = [Edge("i", "a"), Edge("i", "b"), Edge("a", "c"), Edge("b", "c"), Edge("i", "c"),
             Edge("c", "o")]
    plain = assign_buffers(latencies, edges, inputs=["i"], outputs=["o"])
    assert (plain.buffer_stages, plain.depth, plain.start["c"]) == (5, 6, 3)
    shared = assign_buffers(latencies, edges, inputs=["i"], outputs=["o"], share=True)
    # One line from i, 3 stages long, tapped at 2 for b: b starts later to share it.
    assert shared.buffer_stages == 3 and shared.line_lengths == {("i", "out"): 3}
    assert shared.tapped_delay_lines == 1 and shared.start["b"] == 2


@pytest.mark.parametrize("share", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_equals_brute_force_on_tiny_graphs(share, seed):
    rng = np.random.default_rng(seed)
    latencies, edges, inputs = random_dag(rng, nodes=4)
    depth = critical_path(latencies, edges)
    result = assign_buffers(latencies, edges, inputs=inputs, share=share)
    assert result.buffer_stages == brute_force(latencies, edges, inputs, share, depth)
    assert all(b >= 0 for b in result.edge_buffers)


@pytest.mark.parametrize("share", [False, True])
def test_certificate_agrees_with_independent_network_simplex(share):
    rng = np.random.default_rng(7)
    latencies, edges, inputs = random_dag(rng, nodes=300, fan_in=3, max_latency=20)
    seen = []
    original = assignment._solve_difference_lp

    def spy(names, costs, arcs):
        times, objective, dual = original(names, costs, arcs)
        seen.append((objective, _network_simplex_dual(names, costs, arcs)))
        return times, objective, dual
    assignment._solve_difference_lp = spy
    try:
        result = assign_buffers(latencies, edges, inputs=inputs, share=share)
    finally:
        assignment._solve_difference_lp = original
    objective, independent = seen[0]
    assert objective == independent
    assert result.buffer_bits == result.dual_objective


def test_balanced_means_operands_arrive_together():
    rng = np.random.default_rng(8)
    latencies, edges, inputs = random_dag(rng, nodes=200, fan_in=3, max_latency=9)
    result = assign_buffers(latencies, edges, inputs=inputs)
    arrival = {}
    for e, b in zip(edges, result.edge_buffers):
        arrival.setdefault(e.dst, set()).add(result.start[e.src] + latencies[e.src] + b)
    assert all(times == {result.start[v]} for v, times in arrival.items())
    assert result.depth == critical_path(latencies, edges)


def test_align_outputs_and_depth():
    latencies = {"i": 0, "a": 2, "b": 5, "x": 1, "y": 1}
    edges = [Edge("i", "a"), Edge("i", "b"), Edge("a", "x"), Edge("b", "y")]
    free = assign_buffers(latencies, edges, inputs=["i"], outputs=["x", "y"])
    assert free.start["x"] + 1 == 3 and free.buffer_stages == 0
    aligned = assign_buffers(latencies, edges, inputs=["i"], outputs=["x", "y"],
                             align_outputs=True)
    assert aligned.start["x"] + 1 == aligned.start["y"] + 1 == 6
    assert aligned.buffer_stages == 3
    deeper = assign_buffers(latencies, edges, inputs=["i"], outputs=["x", "y"],
                            align_outputs=True, depth=9)
    # A looser bound does not make finishing later pay: still 3 stages, outputs together.
    assert deeper.buffer_stages == 3 and deeper.depth <= 9
    assert deeper.start["x"] == deeper.start["y"]


@pytest.mark.parametrize("latencies, edges, kwargs, message", [
    ({"a": 1, "b": 1}, [Edge("a", "b"), Edge("b", "a")], {}, "the task graph has a cycle: a -> b"),
    ({"a": 1}, [Edge("a", "z")], {}, "edge 'a' -> 'z': unknown node 'z'"),
    ({"a": -1}, [], {}, "latency of node 'a' must be a non-negative integer"),
    ({"a": 0, "b": 1}, [Edge("b", "a")], {"inputs": ["a"]},
     "input node 'a' must not have operands"),
    ({"a": 0, "b": 1}, [Edge("a", "b")], {"depth": 0},
     "depth must be 'critical', None or an integer >= the critical path 1"),
    ({"a": 0, "b": 1}, [Edge("a", "b", width=0)], {}, "width must be a positive integer"),
])
def test_errors_name_the_problem(latencies, edges, kwargs, message):
    with pytest.raises(ValueError, match=message):
        assign_buffers(latencies, edges, **kwargs)
