"""``robohw ik-graph``: a PUMA IK task graph balanced by the optimal buffer assignment, as JSON.

Node latency is one stage (word-serial CCMs, the paper's accounting) or the pipelined CCM's
latency in clock cycles at a data width, its operand register included. The JSON holds the graph
(CCMs with their operation and latency, operand edges with their buffer stages), the totals
without and with tapped-delay-line sharing, and the depth.
"""

from robohw.cordic.config import CordicConfig
from robohw.cordic.pipelined import pipelined_latency
from robohw.hw.checks import check_choice
from robohw.ik.puma_graph import GRAPHS, puma_format
from robohw.taskgraph.pipeline import OPERAND_REGISTERS

__all__ = ["TIMINGS", "ccm_latency", "graph_solution"]

TIMINGS = ("stage", "pipelined")


def ccm_latency(timing, width):
    """``ccm -> latency``: 1 per stage, or a pipelined CCM's cycles at ``width`` as the IK
    pipeline builds it (:data:`robohw.taskgraph.pipeline.OPERAND_REGISTERS` and the pipelined CORDIC
    datapath)."""
    if timing == "stage":
        return lambda ccm: 1
    check_choice("timing", timing, TIMINGS)
    return lambda ccm: OPERAND_REGISTERS + pipelined_latency(
        CordicConfig(ccm.system, ccm.direction, width=width, expansion=ccm.expansion))


def graph_solution(robot, graph="best", timing="stage", width=24, align_outputs=False):
    """The balanced graph as a JSON-ready dict (see the module docstring). CCMs and lines are
    as wide as the hardware builds them at ``width``-bit ports
    (:func:`robohw.ik.puma_graph.puma_format`: guard bits inside)."""
    check_choice("graph", graph, GRAPHS)
    task_graph = GRAPHS[graph](robot)
    inside = width + puma_format(width)["guard_bits"]
    latencies = task_graph.latencies(ccm_latency(timing, inside))
    inputs = task_graph.inputs + task_graph.branches
    plain = task_graph.balance(latencies, width=inside, align_outputs=align_outputs)
    shared = task_graph.balance(latencies, width=inside, align_outputs=align_outputs, share=True)
    edges = plain.edges
    return {
        "robot": robot.name, "graph": graph, "timing": timing,
        "width": width if timing == "pipelined" else None,
        "nodes": [{"name": c.name, "op": f"{c.system.name.lower()} {c.direction.value}",
                   "latency": latencies[c.name], "start": plain.start[c.name],
                   "expansion": c.expansion, "computes": c.label} for c in task_graph.ccms],
        "edges": [{"src": e.src, "port": e.port, "dst": e.dst, "buffers": b}
                  for e, b in zip(edges, plain.edge_buffers)],
        "inputs": list(inputs),
        "outputs": {name: f"{src}.{port}" for name, (src, port) in task_graph.outputs.items()},
        "ccms": len(task_graph), "critical_path_ccms": task_graph.depth(),
        "operand_adders": task_graph.adders(),
        "total_buffer_stages": plain.buffer_stages,
        "shared_buffer_stages": shared.buffer_stages,
        "tapped_delay_lines": shared.tapped_delay_lines,
        "delay_lines": shared.delay_lines,
        # Without the 1-bit lines of the branch indicators: comparable with the paper's count.
        "data_buffer_stages": sum(b for e, b in zip(edges, plain.edge_buffers)
                                  if e.src not in task_graph.branches),
        "shared_data_buffer_stages": sum(length for (src, _), length in shared.line_lengths.items()
                                         if src not in task_graph.branches),
        "buffer_bits": plain.buffer_bits, "shared_buffer_bits": shared.buffer_bits,
        "depth": plain.depth,
    }
