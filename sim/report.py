"""``robohw report``: every design simulated cycle by cycle on a seeded workload, checked
against its bit-exact model and its float reference, in one table; then the detailed sections
of each family, and the plots.

Writes into the output folder: ``summary.md`` and ``summary.json`` (the one table),
``cordic.md``, ``ik.md``, ``inertia.md`` and their ``.json`` twins, ``errors.png`` (error
histograms), ``ik_schedule.png`` (the IK pipelines' schedules) and ``inertia_tradeoff.png``
(latency and processing elements against N).
"""

import json
import pathlib
from fractions import Fraction

import numpy as np

from sim.designs import DESIGNS
from sim.harness import run_stream
from sim.progress import Progress
from sim.resources import register_bits

__all__ = ["measure_design", "summary_table", "write_report"]

# Results per simulation, (pipelined, word-serial): enough to see a pipeline full or several
# word-serial results (P cycles each); the long sweeps run in the bit-exact models.
_RESULTS = {"quick": (16, 2), "full": (32, 3)}


def measure_design(design, width=None, count=32, seed=0, vcd=None):
    """Simulate ``design`` on a seeded workload of ``count`` results; return its row."""
    dut = design.build(width)
    workload = design.workload(dut, count, seed)
    run = run_stream(dut, workload.payloads, vcd=vcd)
    equal, errors = design.check(dut, workload, run.outputs)
    label, value = design.structure(dut)
    interval = int(np.diff(run.output_cycles).max()) if len(run.outputs) > 1 else None
    return {
        "design": design.name, "family": design.family,
        "configuration": design.configuration(dut), "width": width or design.default_width,
        "results": len(run.outputs), "stated_latency": dut.latency,
        "latency": run.output_cycles[0] - run.input_cycles[0],
        "stated_interval": dut.interval, "interval": interval,
        "throughput": str(Fraction(1, interval)) if interval else None,
        "equals_model": equal, "max_error": float(errors.max()), "error_unit": design.error_unit,
        "structure": label, "structure_count": value, "register_bits": register_bits(dut),
        "amaranth_cycles_per_s": run.cycles / run.wall_seconds,
    }


def summary_table(rows):
    """The one table, in Markdown."""
    head = ["design", "configuration", "latency (cycles)", "throughput (results/cycle)",
            "equals model", "max error vs float64", "buffer stages / PEs", "register bits"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        latency = str(r["latency"]) if r["latency"] == r["stated_latency"] else \
            f"{r['latency']} (stated {r['stated_latency']})"
        lines.append(
            f"| {r['design']} | {r['configuration']} | {latency} | {r['throughput']} | "
            f"{'yes' if r['equals_model'] else 'NO'} | {r['max_error']:.2g} {r['error_unit']} | "
            f"{r['structure_count']:,} {r['structure']} | {r['register_bits']:,} |")
    return "\n".join(lines)


def _error_samples(quick):
    from cordic.config import CordicConfig
    from robots import load_robot
    from sim.cordic_accuracy import output_errors, sample_inputs
    from sim.cordic_model import cordic_model
    from sim.ik_accuracy import joint_errors
    from sim.inertia import jacobian_inertia
    from systolic import PLANS
    count = 20_000 if quick else 100_000
    cordic = {}
    for width in (16, 24):
        config = CordicConfig("circular", "rotation", width=width)
        x, y, z = sample_inputs(config, count, np.random.default_rng(width))
        errors = output_errors(config, x, y, z, cordic_model(config, x, y, z))
        cordic[f"{width} bits, x and y"] = np.concatenate(list(errors.values()))
    robot = load_robot()
    ik = {f"{width} bits": joint_errors(robot, width, count=count) for width in (20, 24)}
    limits = np.array([j.limits for j in robot.joints])
    q = np.random.default_rng(2).uniform(limits[:, 0], limits[:, 1], (count, 6))
    reference = jacobian_inertia(robot, q)
    inertia = {}
    for name, plan in PLANS.items():
        dut = plan(robot)
        got = dut.decode(dut.model(dut.encode(q)))
        inertia[f"{name}, 24 bits"] = np.abs(got - reference).max((1, 2)) / np.abs(reference).max()
    return [("CORDIC circular rotation (bit-exact model)", "LSB", cordic),
            ("PUMA IK, best graph, max over joints", "rad", ik),
            ("PUMA inertia matrix, max over elements", "max |H|", inertia)]


def _schedules():
    from hw.task_graph_pipeline import plan_pipeline
    from robots import load_robot
    from sim.ik_graph import GRAPHS
    robot = load_robot()
    panels = []
    for name in ("best", "paper"):
        graph = GRAPHS[name](robot)
        _, latencies, schedule, _ = plan_pipeline(graph, width=24, timing="pipelined")
        title = "best graph" if name == "best" else "reconstruction of Lee & Chang's graph"
        panels.append((f"{title}, pipelined CCMs, 24 bits", "cycles", graph, latencies,
                       schedule))
    return panels


def write_report(out_dir, *, quick=False, verilator=False, stream=None):
    """Run everything; write the files of the module docstring; return the summary table."""
    from sim.cordic_report import write_cordic_report
    from sim.ik_report import write_ik_report
    from sim.inertia_report import write_inertia_report
    from sim.report_plots import plot_error_histograms, plot_ik_schedule
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    progress = Progress(len(DESIGNS) + 2, stream)
    rows = []
    pipelined_count, serial_count = _RESULTS["quick" if quick else "full"]
    for design in DESIGNS.values():
        serial = "word-serial" in design.name
        rows.append(measure_design(design, count=serial_count if serial else pipelined_count))
        progress.step(f"{design.name} simulated")
    table = summary_table(rows)
    (out_dir / "summary.md").write_text(
        "# Every design, simulated cycle by cycle\n\n"
        "Default widths, a seeded workload per design (in-domain CORDIC vectors, "
        "well-conditioned PUMA poses, configurations in the joint limits), simulated in "
        "Amaranth; outputs compared with the bit-exact model (equal: yes) and with float64 "
        "(max error). Latency is measured from an input transfer to its result; throughput "
        "from consecutive results.\n\n" + table + "\n")
    (out_dir / "summary.json").write_text(json.dumps(rows, indent=1))
    plot_error_histograms(_error_samples(quick), out_dir / "errors.png")
    plot_ik_schedule(_schedules(), out_dir / "ik_schedule.png")
    progress.step("plots: errors.png, ik_schedule.png")
    by_name = {r["design"]: r for r in rows}
    write_cordic_report(out_dir, quick=quick, verilator=verilator, stream=stream)
    write_ik_report(out_dir, by_name["ik-best-pipelined"], by_name["ik-best-word-serial"],
                    quick=quick, stream=stream)
    write_inertia_report(out_dir, {name: by_name[f"inertia-{name}"]
                                   for name in ("linear", "logdepth")},
                         quick=quick, stream=stream)
    progress.step("detailed sections: cordic.md, ik.md, inertia.md")
    return table
