"""The PUMA IK part of ``robohw report``: the best CCM graph against Lee & Chang's figures,
latency measured in the Amaranth simulation of the pipeline, and accuracy against float."""

import json
import pathlib

import numpy as np

from hw.fixed import FixedFormat
from hw.puma_ik_graph import POSE_INPUTS, best_graph
from hw.task_graph_pipeline import TaskGraphPipeline
from robots import load_robot
from sim.harness import run_stream
from sim.ik_accuracy import ELBOW_FILTER, SHOULDER_FILTER, WRIST_FILTER, ik_accuracy
from sim.ik_graph import graph_solution
from sim.kinematics import forward_kinematics
from sim.progress import Progress

__all__ = ["PAPER", "measure_pipeline", "write_ik_report"]

# Lee & Chang, section 2.2 and the conclusion: the realised architecture of their Figure 3.
PAPER = {"ccms": 25, "depth_stages": 18, "buffer_stages": 141, "tapped_delay_lines": 4,
         "stage_us": 40}


def measure_pipeline(robot, width, count=32, seed=0, timing="pipelined"):
    """Latency and interval of the IK pipeline, measured by simulating ``count`` poses."""
    graph = best_graph(robot)
    dut = TaskGraphPipeline(graph, width=width, timing=timing)
    rng = np.random.default_rng(seed)
    limits = np.array([j.limits or (-np.pi, np.pi) for j in robot.joints])
    pose = forward_kinematics(robot, rng.uniform(limits[:, 0], limits[:, 1], (count, 6)))
    fmt = FixedFormat(width, width - 3)
    payloads = [{n: int(fmt.from_float(p["xyz".index(n[1]), "noap".index(n[0])]))
                 for n in POSE_INPUTS} for p in pose]
    run = run_stream(dut, payloads)
    return {"stated_latency": dut.latency,
            "latency": run.output_cycles[0] - run.input_cycles[0],
            "interval": int(np.diff(run.output_cycles).max()),
            "amaranth_cycles_per_s": run.cycles / run.wall_seconds}


def write_ik_report(out_dir, *, quick=False, stream=None):
    """Measure, write ``ik.md`` and ``ik.json`` into ``out_dir``, return the Markdown."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    robot = load_robot()
    progress = Progress(4, stream)
    stage = graph_solution(robot, timing="stage", align_outputs=True)
    paper_stage = graph_solution(robot, graph="paper", timing="stage", align_outputs=True)
    pipelined = graph_solution(robot, timing="pipelined", width=24, align_outputs=True)
    progress.step("IK graphs balanced")
    width = 16 if quick else 24
    measured = measure_pipeline(robot, width, count=16 if quick else 32)
    progress.step("IK pipeline simulated (pipelined CCMs)")
    measured_serial = measure_pipeline(robot, width, count=4, timing="word_serial")
    progress.step("IK pipeline simulated (word-serial CCMs)")
    accuracy = ik_accuracy(robot, widths=(16, 24, 32) if quick else (16, 20, 24, 28, 32),
                           count=20_000 if quick else 100_000)
    progress.step("IK accuracy measured")

    graphs = "\n".join([
        "| | CCMs | critical path (CCMs) | depth | buffer stages | shared | tapped delay lines | result every |",
        "|---|---|---|---|---|---|---|---|",
        f"| Lee & Chang (paper) | {PAPER['ccms']} | — | {PAPER['depth_stages']} stages | "
        f"— | {PAPER['buffer_stages']} | {PAPER['tapped_delay_lines']} | 1 stage "
        f"({PAPER['stage_us']} µs) |",
        f"| reconstruction of the paper's graph, word-serial accounting | {paper_stage['ccms']} | "
        f"{paper_stage['critical_path_ccms']} | {paper_stage['depth']} stages | "
        f"{paper_stage['data_buffer_stages']} | {paper_stage['shared_data_buffer_stages']} | "
        f"{paper_stage['tapped_delay_lines']} | 1 stage |",
        f"| best graph, word-serial accounting | {stage['ccms']} | {stage['critical_path_ccms']} | "
        f"{stage['depth']} stages | {stage['data_buffer_stages']} | "
        f"{stage['shared_data_buffer_stages']} | {stage['tapped_delay_lines']} | 1 stage |",
        f"| best graph, pipelined CCMs, 24 bits | {pipelined['ccms']} | "
        f"{pipelined['critical_path_ccms']} | {pipelined['depth']} cycles | "
        f"{pipelined['data_buffer_stages']} | {pipelined['shared_data_buffer_stages']} | "
        f"{pipelined['tapped_delay_lines']} | 1 cycle |",
    ])
    head = ["width", "poses kept / drawn", "joint max (rad)", "joint 99.9% (rad)",
            "q1-q3 max (rad)", "position max (mm)", "orientation max (rad)"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in accuracy:
        rows.append(f"| {r['width']} | {r['valid']:,} / {r['poses']:,} | {r['joint_max_rad']:.2e} | "
                    f"{r['joint_p999_rad']:.2e} | {r['joint_max_rad_q1_q3']:.2e} | "
                    f"{r['position_max_mm']:.2e} | {r['orientation_max_rad']:.2e} |")
    text = "\n\n".join([
        "# PUMA inverse kinematics",
        f"Robot: {robot.name}. All six joint angles leave on the same cycle (aligned outputs); "
        "buffer stages count the data lines (the 1-bit branch-indicator lines come on top). "
        "The paper's figures are quoted from its section 2.2.",
        graphs,
        f"Amaranth simulation of the hardware at {width} bits. Pipelined CCMs: latency "
        f"{measured['latency']} cycles (stated {measured['stated_latency']}), one result every "
        f"{measured['interval']} cycle(s), {measured['amaranth_cycles_per_s']:,.0f} simulated "
        f"cycles/s. Word-serial CCMs: latency {measured_serial['latency']} cycles (stated "
        f"{measured_serial['stated_latency']}), one result every {measured_serial['interval']} "
        f"cycles (one stage), {measured_serial['amaranth_cycles_per_s']:,.0f} simulated "
        "cycles/s.",
        "Accuracy of the bit-exact model against the float64 closed form, poses from random "
        f"joint vectors in the joint limits, kept when |sin q5| >= {WRIST_FILTER}, "
        f"|sin(elbow angle)| >= {ELBOW_FILTER} and the wrist centre is >= {SHOULDER_FILTER} m "
        "from the shoulder-singular line; the model flagged none of them:",
        "\n".join(rows),
    ]) + "\n"
    (out_dir / "ik.md").write_text(text)
    (out_dir / "ik.json").write_text(json.dumps(
        {"paper": PAPER, "paper_graph_stage": paper_stage, "stage": stage,
         "pipelined": pipelined, "measured": measured,
         "measured_word_serial": measured_serial,
         "accuracy": accuracy}, indent=1))
    return text
