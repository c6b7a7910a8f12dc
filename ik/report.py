"""The PUMA IK part of ``robohw report``: the best CCM graph against Lee & Chang's figures,
latency measured in the Amaranth simulation of the pipeline, and accuracy against float."""

import json
import pathlib

import numpy as np

from robohw.buffers.bench import bench_buffers, format_buffer_bench
from robohw.hw.stream import StreamPipeline
from robohw.ik.accuracy import (
    ELBOW_FILTER,
    SHOULDER_FILTER,
    WRIST_FILTER,
    fk_accuracy,
    ik_accuracy,
    joint_errors,
    wrist_sweep,
)
from robohw.ik.puma_graph import GRAPHS, puma_format
from robohw.ik.solved_graph import graph_solution
from robohw.robots import load_robot
from robohw.support.formats import versioned
from robohw.support.plots import pyplot
from robohw.support.progress import Progress
from robohw.taskgraph.pipeline import plan_pipeline

__all__ = ["PAPER", "write_ik_report", "ik_error_panel", "plot_ik_schedules"]

# Lee & Chang, section 2.2 and the conclusion: the realised architecture of their Figure 3.
PAPER = {"ccms": 25, "depth_stages": 18, "buffer_stages": 141, "tapped_delay_lines": 4,
         "stage_us": 40}


def write_ik_report(out_dir, measured, measured_serial, *, quick=False, stream=None):
    """Measure, write ``ik.md`` and ``ik.json`` into ``out_dir``, return the Markdown.
    ``measured`` and ``measured_serial``: the simulation rows of the best graph's pipelined
    and word-serial hardware at 24 bits (:func:`robohw.sim.measure.measure_design`)."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    robot = load_robot()
    progress = Progress(4, stream)
    graphs = []
    for graph_name in ("paper", "best"):
        for timing in ("word_serial", "pipelined"):
            solution = graph_solution(robot, graph_name,
                                      "stage" if timing == "word_serial" else "pipelined",
                                      width=24, align_outputs=True)
            plan = plan_pipeline(GRAPHS[graph_name](robot), **puma_format(24), timing=timing)
            graphs.append({**solution, "timing": timing,
                           # the stream's latency, its output queue included
                           "latency_cycles": StreamPipeline.control_latency(plan.depth,
                                                                           plan.period),
                           "interval_cycles": plan.period // plan.slots})
    progress.step("IK graphs balanced")
    width = 24
    widths = (16, 24, 32) if quick else (16, 20, 24, 28, 32)
    count = 20_000 if quick else 100_000
    accuracy = ik_accuracy(robot, widths=widths, count=count)
    paper_accuracy = ik_accuracy(robot, widths=widths, count=count, make_graph=GRAPHS["paper"])
    progress.step("IK accuracy measured")
    residual_widths = (24, 32)
    fk = {name: fk_accuracy(robot, residual_widths, count=count, make_graph=GRAPHS[name])
          for name in ("best", "paper")}
    sweep = {name: wrist_sweep(robot, residual_widths, count=300 if quick else 1000,
                               make_graph=GRAPHS[name]) for name in ("best", "paper")}
    progress.step("FK residuals, wrist sweep")
    buffer_bench = bench_buffers((1_000, 10_000))
    progress.step("buffer assignment benchmarked")

    table = ["| graph | CCMs | critical path | CCM timing | depth | buffer stages | shared | "
             "tapped delay lines | shared buffer bits | latency (cycles) | one result every |",
             "|" + "---|" * 11,
             f"| Lee & Chang (paper) | {PAPER['ccms']} | — | word-serial | "
             f"{PAPER['depth_stages']} stages | — | {PAPER['buffer_stages']} | "
             f"{PAPER['tapped_delay_lines']} | — | — | 1 stage ({PAPER['stage_us']} µs) |"]
    for r in graphs:
        unit = "stages" if r["timing"] == "word_serial" else "cycles"
        name = "reconstruction of the paper's" if r["graph"] == "paper" else "best"
        table.append(
            f"| {name} | {r['ccms']} | {r['critical_path_ccms']} | "
            f"{r['timing'].replace('_', '-')} | {r['depth']} {unit} | {r['data_buffer_stages']} | "
            f"{r['shared_data_buffer_stages']} | {r['tapped_delay_lines']} | "
            f"{r['shared_buffer_bits']:,} | {r['latency_cycles']} | {r['interval_cycles']} "
            f"cycle{'s' if r['interval_cycles'] > 1 else ''} |")
    head = ["graph", "width", "poses kept / drawn", "joint max (rad)", "joint 99.9% (rad)",
            "q1-q3 max (rad)", "position max (mm)", "orientation max (rad)"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, table_rows in (("best", accuracy), ("paper's", paper_accuracy)):
        for r in table_rows:
            rows.append(f"| {name} | {r['width']} | {r['valid']:,} / {r['poses']:,} | "
                        f"{r['joint_max_rad']:.2e} | {r['joint_p999_rad']:.2e} | "
                        f"{r['joint_max_rad_q1_q3']:.2e} | {r['position_max_mm']:.2e} | "
                        f"{r['orientation_max_rad']:.2e} |")
    fk_table = ["| graph | width | poses | solved (valid) | position residual max (um) | "
                "orientation residual max (rad) |", "|---|---|---|---|---|---|"]
    for name, label in (("best", "best"), ("paper", "paper's")):
        fk_table += [f"| {label} | {r['width']} | {r['poses']:,} | {r['valid']:,} | "
                     f"{r['position_max_um']:.3f} | {r['orientation_max_rad']:.1e} |"
                     for r in fk[name]]
    sweep_table = ["| graph | width | " + " | ".join(f"{s:g}" for s in
                                                    dict.fromkeys(r["sin_q5"] for r in
                                                                  sweep["best"])) + " |"]
    sweep_table.append("|" + "---|" * (len(sweep_table[0].split("|")) - 2))
    for name, label in (("best", "best"), ("paper", "paper's")):
        for width in residual_widths:
            cells = [f"{r['orientation_max_rad']:.1e} rad, {r['position_max_um']:.3f} um"
                     for r in sweep[name] if r["width"] == width]
            sweep_table.append(f"| {label} | {width} | " + " | ".join(cells) + " |")
    text = "\n\n".join([
        "# PUMA inverse kinematics",
        f"Robot: {robot.name}. 24-bit data; all six joint angles leave on the same cycle "
        "(aligned outputs); buffer stages count the data lines (the 1-bit branch-indicator "
        "lines come on top); a word-serial stage holds two poses (each CCM runs two at once, "
        "one at its shifters while the other is at its adders) and lasts as long as the "
        "slowest CCM takes for both, so one result every half stage. The paper's figures are "
        "quoted from its section 2.2.",
        "\n".join(table),
        f"Amaranth simulation of the best graph's hardware at {width} bits. Pipelined CCMs: "
        f"latency {measured['latency']} cycles (stated {measured['stated_latency']}), one result "
        f"every {measured['interval']} cycle(s), {measured['amaranth_cycles_per_s']:,.0f} "
        f"simulated cycles/s. Word-serial CCMs: latency {measured_serial['latency']} cycles "
        f"(stated {measured_serial['stated_latency']}), one result every "
        f"{measured_serial['interval']} cycles (two per stage), "
        f"{measured_serial['amaranth_cycles_per_s']:,.0f} simulated cycles/s.",
        "Accuracy of the bit-exact models against the float64 closed form, "
        "poses from random joint vectors in the joint limits, kept when "
        f"|sin q5| >= {WRIST_FILTER}, |sin(elbow angle)| >= {ELBOW_FILTER} and the wrist "
        f"centre is >= {SHOULDER_FILTER} m from the shoulder-singular line; the model flagged "
        "none of them:",
        "\n".join(rows),
        "Every reachable pose, singular ones included: the forward-kinematics residual of the "
        "bit-exact model's solution (the distance between the pose asked for and the pose of "
        "the joint angles returned), over random joint vectors in the limits with no filter, "
        "each solved on the branch it lies on. The graphs flag only poses on the "
        "shoulder-singular line and with a straight or folded elbow (the rest of 'poses'); "
        "the goal is 1e-4 rad and 5 um.",
        "\n".join(fk_table),
        "The wrist singularity: the largest FK residual (orientation, position) of poses with "
        "|sin q5| fixed, down to 0 (other joints random in the limits). At and near "
        "sin q5 = 0 only q4 + q6 (or q4 - q6) is determined; the hardware turns the hand frame "
        "by the q4 it produced before it computes q6, so every such pose is solved.",
        "\n".join(sweep_table),
        "Optimal buffer assignment on random task graphs (two operands per node, latencies 1 "
        "to 20), HiGHS plus the exact dual certificate:",
        format_buffer_bench(buffer_bench),
    ]) + "\n"
    (out_dir / "ik.md").write_text(text)
    (out_dir / "ik.json").write_text(json.dumps(versioned(
        {"paper": PAPER, "graphs": graphs, "measured": measured,
         "measured_word_serial": measured_serial, "accuracy": accuracy,
         "paper_graph_accuracy": paper_accuracy, "fk_residual": fk, "wrist_sweep": sweep,
         "buffer_bench": buffer_bench}), indent=1))
    return text


def ik_error_panel(quick=False):
    """The IK panel of the report's error histograms: the best graph's joint errors (rad,
    max over joints) at 20 and 24 bits over 20,000 (``quick``) or 100,000 poses."""
    count = 20_000 if quick else 100_000
    robot = load_robot()
    return ("PUMA IK, best graph, max over joints", "rad",
            {f"{width} bits": joint_errors(robot, width, count=count) for width in (20, 24)})


def plot_ik_schedules(path):
    """``ik_schedule.png``: the schedules of the best and the paper's graph on pipelined CCMs
    at 24 bits (:func:`plot_ik_schedule`)."""
    robot = load_robot()
    panels = []
    for name in ("best", "paper"):
        graph = GRAPHS[name](robot)
        plan = plan_pipeline(graph, **puma_format(24), timing="pipelined")
        title = "best graph" if name == "best" else "reconstruction of Lee & Chang's graph"
        panels.append((f"{title}, pipelined CCMs, 24 bits", "cycles", graph, plan.latencies,
                       plan.schedule))
    plot_ik_schedule(panels, path)


def plot_ik_schedule(panels, path):
    """Gantt charts of balanced CCM graphs: ``(title, unit, graph, latencies, schedule)``.

    Each CCM is a bar from its start to its result; a thin line before it shows the longest
    buffer its operands wait in (from the earliest operand's arrival to the start)."""
    plt = pyplot()
    figure, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 6))
    for axis, (title, unit, graph, latencies, schedule) in zip(np.atleast_1d(axes), panels):
        start = schedule.start
        names = [c.name for c in sorted(graph.ccms, key=lambda c: start[c.name])]
        ready = {n: start[n] + latencies[n] for n in latencies}
        for row, name in enumerate(names):
            arrivals = [ready.get(source, 0) for _, op in graph[name].operands()
                        for source, _ in op.sources()]
            earliest = min(arrivals, default=start[name])
            if earliest < start[name]:
                axis.plot([earliest, start[name]], [row, row], color="tab:orange", lw=1.5)
            axis.barh(row, latencies[name], left=start[name], color="tab:blue", height=0.6)
        axis.set_yticks(range(len(names)), names, fontsize=7)
        axis.invert_yaxis()
        axis.set(title=title, xlabel=f"start ({unit})")
        axis.grid(True, axis="x", alpha=0.3)
        from matplotlib.patches import Patch  # after pyplot() has chosen the backend
        axis.legend(handles=[Patch(color="tab:blue", label="CCM: start to result"),
                             Patch(color="tab:orange", label="longest operand wait (buffer)")],
                    fontsize=8, loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def write_section(out_dir, rows, *, quick=False, verilator=False, stream=None):
    """The report's IK section (:class:`robohw.sim.family.Family`): ``ik.md`` with the best
    graph's pipelined and word-serial designs' simulated ``rows``, and ``ik_schedule.png``."""
    out_dir = pathlib.Path(out_dir)
    plot_ik_schedules(out_dir / "ik_schedule.png")
    write_ik_report(out_dir, rows["ik-best-pipelined"], rows["ik-best-word-serial"],
                    quick=quick, stream=stream)
    return ("ik.md", "ik_schedule.png")
