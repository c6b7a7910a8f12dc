"""Buffer-assignment benchmark: seconds to balance random task graphs, with and without
tapped-delay-line sharing (each optimum certified, as always)."""

import time

import numpy as np

from robohw.buffers import Edge, assign_buffers

__all__ = ["random_task_graph", "bench_buffers", "format_buffer_bench"]


def random_task_graph(nodes, seed=0, inputs=20, fan_in=2, max_latency=20):
    """A random DAG: ``inputs`` sources, then ``nodes`` nodes with ``fan_in`` operands each
    (fewer while fewer nodes exist) from earlier nodes (two output ports per node) and
    latencies 1 .. ``max_latency``. Returns ``(latencies, edges, inputs)``."""
    rng = np.random.default_rng(seed)
    latencies = {f"i{k}": 0 for k in range(inputs)}
    names = list(latencies)
    edges = []
    for k in range(nodes):
        name = f"n{k}"
        latencies[name] = int(rng.integers(1, max_latency + 1))
        for src in rng.choice(len(names), size=min(fan_in, len(names)), replace=False):
            edges.append(Edge(names[src], name, port=str(rng.integers(0, 2))))
        names.append(name)
    return latencies, edges, [f"i{k}" for k in range(inputs)]


def bench_buffers(sizes=(1_000, 10_000), seed=0):
    rows = []
    for nodes in sizes:
        latencies, edges, inputs = random_task_graph(nodes, seed)
        for share in (False, True):
            started = time.perf_counter()
            result = assign_buffers(latencies, edges, inputs=inputs, share=share)
            rows.append({"nodes": nodes, "edges": len(edges), "shared": share,
                         "seconds": time.perf_counter() - started,
                         "buffer_stages": result.buffer_stages, "depth": result.depth})
    return rows


def format_buffer_bench(rows):
    lines = ["| nodes | edges | sharing | seconds (solve + certificate) | buffer stages | depth |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['nodes']:,} | {r['edges']:,} | {'yes' if r['shared'] else 'no'} | "
                     f"{r['seconds']:.2f} | {r['buffer_stages']:,} | {r['depth']} |")
    return "\n".join(lines)
