"""The inertia-matrix part of ``robohw report``: both arrays for the PUMA (latency measured in
the Amaranth simulation, accuracy of the bit-exact model against float64 by width), the
O(N) against O(log2 N) trade-off for N = 2 .. 16, and the operation counts of both
algorithms."""

import json
import pathlib

import numpy as np

from robohw.dataflow.operations import Count, Op
from robohw.dataflow.pipeline import MULTIPLIER_STAGES
from robohw.hw.devices import DEVICES, dsp_tiles
from robohw.hw.multiplier import split_product_tiles
from robohw.robots import load_robot
from robohw.robots.sampling import random_robot, sample_joints
from robohw.sim.measure import measure_design
from robohw.support.formats import SYNTH_FILE, read_rows, versioned
from robohw.support.plots import pyplot
from robohw.support.progress import Progress
from robohw.systolic.arrays import ARRAYS, PLANS
from robohw.systolic.counts import operation_counts
from robohw.systolic.designs import DESIGN_CLASSES, DESIGNS
from robohw.systolic.model import model_inertia
from robohw.systolic.reference import jacobian_inertia

__all__ = ["array_accuracy", "tradeoff", "write_inertia_report", "tradeoff_robot",
           "folding_curve", "CURVE_FOLDS", "inertia_error_panel"]

# The folds of the curve: every k up to 12, and the smallest that fit the ECP5-45F's and -25F's
# DSP tiles (18 and 7 shared 24 x 24 multipliers) for both arrays.
CURVE_FOLDS = tuple(range(1, 13)) + (15, 17, 37, 43)

# Neither the paper nor the other papers in our collection state operation counts for the
# inertia matrix; the report says so instead of quoting figures from elsewhere.
PAPER_COUNTS = None


def array_accuracy(robot, widths, count=100_000, seed=1):
    """Max |H_fixed - H_float| (absolute and relative to max |H|) per array and width."""
    q = sample_joints(robot, count, np.random.default_rng(seed))
    reference = jacobian_inertia(robot, q)
    scale = np.abs(reference).max()
    rows = []
    for name, plan in PLANS.items():
        for width in widths:
            dut = plan(robot, width=width)
            error = np.abs(model_inertia(dut, q) - reference)
            rows.append({"array": name, "width": width, "configurations": count,
                         "max_abs": float(error.max()), "max_rel": float(error.max() / scale),
                         "max_abs_diagonal": float(np.diagonal(error, 0, 1, 2).max())})
    return rows


def tradeoff_robot(n):
    """The N-link robot of the trade-off table: revolute, random twists and inertial data,
    seeded by N (a PUMA's 0 and 90 degree twists would fold most of the work away)."""
    return random_robot(np.random.default_rng(1000 + n), n, prismatic=0.0)


def tradeoff(sizes, measured=()):
    """Latency, processing elements and resources of both arrays for each N in ``sizes``;
    latency also measured in simulation for N in ``measured``."""
    rows = []
    for n in sizes:
        robot = tradeoff_robot(n)
        for name, array in ARRAYS.items():
            dut = array(robot)           # the component: its latency has the output queue
            row = {"n": n, "array": name, "latency": dut.latency, "interval": dut.interval,
                   **dut.resources(), "window_lengths": dut.window_lengths}
            if n in measured:
                design = DESIGN_CLASSES[name](f"inertia-{name}", default_fold=1, robot=robot)
                row["measured"] = measure_design(design, count=4)
            rows.append(row)
    return rows


def _estimated_dsp(plan):
    """18 x 18 tiles of the plan's multipliers: shared ones at the full width (one tile each up
    to :data:`robohw.hw.multiplier.SPLIT_PRODUCT_BITS`), unfolded constant multipliers at their
    constant's width."""
    width = plan.width
    if plan.fold > 1:
        return plan.schedule.multipliers * split_product_tiles(width, width)
    nodes = [plan.tracer.nodes[k] for k in plan.live]
    return sum(dsp_tiles(width, width) for n in nodes if n.op == Op.MUL) + \
        sum(dsp_tiles(width, plan.formats[n.index].const_code.bit_length() + 1)
            for n in nodes if n.op == Op.CMUL)


def folding_curve(robot, folds=CURVE_FOLDS, synth_rows=(), width=24):
    """Each array at each fold: latency, results per cycle, shared multipliers and CORDICs,
    estimated DSP tiles, register bits, the devices whose DSP tiles hold it, and where
    ``synth_rows`` (``robohw synth`` rows) have it, LUT4, carry cells, flip-flops, DSP, BRAM and
    Fmax measured on each device synthesized."""
    rows = []
    for name, array in ARRAYS.items():
        for fold in folds:
            dut = array(robot, width=width, fold=fold)
            resources = dut.resources()
            dsp = _estimated_dsp(dut.plan)
            row = {"array": name, "fold": fold, "width": width, "latency": dut.latency,
                   "interval": dut.interval, "multipliers": resources["multipliers"],
                   "constant_multipliers": resources["constant_multipliers"],
                   "cordics": resources["cordics"], "register_bits": resources["register_bits"],
                   "estimated_dsp": dsp,
                   "dsp_fits": [d for d, device in DEVICES.items()
                                if device.family == "ecp5" and dsp <= device.dsp],
                   "synthesized": {}}
            for r in synth_rows:
                if (r["design"], r.get("fold"), r["width"]) == (f"inertia-{name}", fold, width):
                    key = f"{r['device']}-{r.get('speed_grade')}"
                    row["synthesized"][key] = {
                        k: r.get(k) for k in ("luts", "carry", "flip_flops", "dsp", "bram",
                                              "fmax_mhz", "placed", "note", "results_per_us")}
            rows.append(row)
    return rows


def _curve_table(curve):
    head = ["array", "fold k", "latency (cycles)", "multipliers", "CORDICs", "register bits",
            "DSP tiles (estimated)", "DSP fits", "synthesized: LUT4 + carry / FF / DSP / BRAM",
            "Fmax (MHz)", "results/µs"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    smallest = {}
    for r in curve:
        for device in r["dsp_fits"]:
            smallest.setdefault((r["array"], device), r["fold"])
    for r in curve:
        marks = [d for d in r["dsp_fits"] if smallest[(r["array"], d)] == r["fold"]]
        fits = ", ".join(f"**{d}**" if d in marks else d for d in r["dsp_fits"]) or "none"
        multipliers = f"{r['multipliers']}" if r["fold"] > 1 else \
            f"{r['multipliers']} + {r['constant_multipliers']} constant"
        synth, fmax, rate = [], [], []
        for key, s in sorted(r["synthesized"].items()):
            synth.append(f"{key}: {s['luts']:,} + {s['carry']:,} / {s['flip_flops']:,} / "
                         f"{s['dsp']} / {s['bram']}")
            fmax.append(f"{key}: {s['fmax_mhz']}" if s["placed"] else
                        f"{key}: {s.get('note') or 'not placed'}")
            if s.get("results_per_us"):
                rate.append(f"{s['results_per_us']}")
        lines.append(f"| {r['array']} | {r['fold']} | {r['latency']} | {multipliers} | "
                     f"{r['cordics']} | {r['register_bits']:,} | {r['estimated_dsp']} | {fits} | "
                     f"{'; '.join(synth) or '—'} | {'; '.join(fmax) or '—'} | "
                     f"{', '.join(rate) or '—'} |")
    return "\n".join(lines)


def _plot(rows, path):
    plt = pyplot()
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for name, style in (("linear", "o-"), ("logdepth", "s-")):
        n = [r["n"] for r in rows if r["array"] == name]
        left.plot(n, [r["latency"] for r in rows if r["array"] == name], style, label=name)
        right.plot(n, [r["processing_elements"] for r in rows if r["array"] == name], style,
                   label=name)
    left.set(xlabel="links N", ylabel="latency (cycles)", title="Latency, one H per clock")
    right.set(xlabel="links N", ylabel="processing elements", title="Processing elements",
              yscale="log")
    for axis in (left, right):
        axis.grid(True, alpha=0.3)
        axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def write_inertia_report(out_dir, measured, *, quick=False, stream=None):
    """Measure, write ``inertia.md``, ``inertia.json`` and ``inertia_tradeoff.png`` into
    ``out_dir``; return the Markdown. ``measured``: ``{array: simulation row}`` of the PUMA
    arrays at the registry width (:func:`robohw.sim.measure.measure_design`)."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    progress = Progress(3, stream)
    robot = load_robot()
    puma = []
    # The registry's configuration of each array (one width for both: the curve's too).
    designs = {d.array: d for d in DESIGNS}
    width, = {design.default_width for design in designs.values()}
    for name, array in ARRAYS.items():
        dut = array(robot, width=width, fold=designs[name].default_fold)
        puma.append({"array": name, "fold": dut.plan.fold, "latency": dut.latency,
                     "interval": dut.interval, "window_lengths": dut.window_lengths,
                     **dut.resources(), "measured": measured[name]})
    synth_rows = read_rows(out_dir / SYNTH_FILE)
    curve = folding_curve(robot, CURVE_FOLDS[:8] if quick else CURVE_FOLDS, synth_rows,
                          width=width)
    widths = (16, 24, 31) if quick else (16, 20, 24, 28, 31)
    accuracy = array_accuracy(robot, widths, count=20_000 if quick else 100_000)
    progress.step("inertia accuracy measured")
    sizes = range(2, 17)
    trade = tradeoff(sizes, measured=() if quick else (2, 4, 8))
    _plot(trade, out_dir / "inertia_tradeoff.png")
    progress.step("O(N) against O(log2 N) trade-off")
    counts = [{"n": n, "table1": operation_counts(n, "table1"),
               "table2": operation_counts(n, "table2")} for n in range(1, 17)]
    progress.step("operation counts")

    head = ["array", "fold", "latency (cycles)", "measured", "one H every", "equals model",
            "processing elements", "CORDICs", "multipliers (variable + constant)", "adders",
            "register bits", "window lengths (cycles)"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in puma:
        m = r["measured"]
        lengths = ", ".join(f"{k} {v}" for k, v in r["window_lengths"].items())
        rows.append(f"| {r['array']} | {r['fold']} | {r['latency']} | {m['latency']} | "
                    f"{m['interval']} cycles |"
                    f" {'yes' if m['equals_model'] else 'NO'} | {r['processing_elements']} | "
                    f"{r['cordics']} | {r['multipliers']} + {r['constant_multipliers']} | "
                    f"{r['adders']} | {r['register_bits']:,} | {lengths} |")
    acc = ["| array | width | max abs error | max error / max abs H | configurations |",
           "|---|---|---|---|---|"]
    acc += [f"| {r['array']} | {r['width']} | {r['max_abs']:.2e} | {r['max_rel']:.2e} | "
            f"{r['configurations']:,} |" for r in accuracy]
    tr = ["| N | linear latency | logdepth latency | linear PEs | logdepth PEs | "
          "linear mult. | logdepth mult. | linear adders | logdepth adders | "
          "linear register bits | logdepth register bits |", "|" + "---|" * 11]
    for n in sizes:
        lin, log = (next(r for r in trade if r["n"] == n and r["array"] == a)
                    for a in ("linear", "logdepth"))

        def lat(r):
            m = r.get("measured")
            return f"{r['latency']}" + (f" (measured {m['latency']})" if m else "")
        tr.append(f"| {n} | {lat(lin)} | {lat(log)} | {lin['processing_elements']} | "
                  f"{log['processing_elements']} | "
                  f"{lin['multipliers'] + lin['constant_multipliers']} | "
                  f"{log['multipliers'] + log['constant_multipliers']} | {lin['adders']} | "
                  f"{log['adders']} | {lin['register_bits']:,} | {log['register_bits']:,} |")
    ops = ["| N | Table 1 mult. | Table 1 add. | Table 1 div. | Table 2 mult. | Table 2 add. "
           "| Table 2 div. |", "|---|---|---|---|---|---|---|"]
    ops += [f"| {c['n']} | " + " | ".join(str(c[table][kind]) for table in ("table1", "table2")
                                          for kind in (Count.MUL, Count.ADD, Count.DIV)) + " |"
            for c in counts]
    text = "\n\n".join([
        "# Manipulator inertia matrix",
        f"Robot: {robot.name}, N = 6, {width}-bit datapath, at the registry's width and folds "
        "(one 18 x 18 DSP tile per shared product; folds chosen by placing them on an "
        "ECP5-85F). Both arrays take q (binary angles), compute cos and sin in "
        "pipelined CORDICs and stream out the upper triangle of H. Unfolded, latency is the "
        "formula of each array (linear: L_in + L_T + max(N L_A, L_A + (N-1) L_B); logdepth: "
        "L_in + L_T + ceil(log2 N) (L_A + L_B) + L_D; the window lengths below), folded the "
        "modulo schedule's length; both measured in the Amaranth simulation; register bits "
        "count datapath registers, delay lines, CORDIC stages, valid and tag.",
        "\n".join(rows),
        "## Folding curve",
        "Folded by k, an array takes a configuration every k cycles: its products (variable "
        "and constant) share ceil(products / k) multipliers and its joints ceil(5 / k) "
        "CORDICs, scheduled by a modulo reservation table (robohw.dataflow.folding). The "
        "processing elements' windows are the unfolded array's timing; folded, every operation "
        "starts as soon as its operands and a multiplier are free, so a folded array is about "
        "as deep as the unfolded one although each shared product takes "
        f"{MULTIPLIER_STAGES} stages. DSP tiles are estimated from the multipliers (18 x 18 "
        f"tiles at {width} bits; four per product at 24 bits; constants at their own width "
        "unfolded); \"DSP "
        "fits\" lists the ECP5 devices whose tiles hold them, in bold where k is the smallest "
        "that does. Columns under \"synthesized\" are `robohw synth` results (`make synth`, "
        "synth.json in this folder) where they exist.",
        _curve_table(curve),
        "Accuracy of the bit-exact models against the float64 Jacobian reference, "
        "configurations uniform in the joint limits (the goal at 24 bits: "
        "max error <= 1e-4 max |H|):",
        "\n".join(acc),
        "The trade-off the paper describes (\"as the order of computation decreases, the "
        "number of processors increases\"), on seeded random revolute robots with general "
        "twists, 24-bit datapath; processing elements are the linear array's links with "
        "logic and the recursive-doubling array's boxes of Figure 3. Latencies are the stated "
        "formulas, measured in simulation where shown (the tests measure N = 1 .. 8); both "
        "arrays take one configuration per clock at every N. "
        "Plot: inertia_tradeoff.png.",
        "\n".join(tr),
        "Operations of the general algorithms (revolute links, general twists, counted by "
        "running the references over counting scalars; composite masses are constants and "
        "not counted, each 1/M is one division). The paper states no counts, nor do the "
        "other papers in our collection.",
        "\n".join(ops),
    ]) + "\n"
    (out_dir / "inertia.md").write_text(text)
    (out_dir / "inertia.json").write_text(json.dumps(versioned(
        {"puma": puma, "folding": curve, "accuracy": accuracy, "tradeoff": trade,
         "operation_counts": counts}),
        indent=1))
    return text


def inertia_error_panel(quick=False):
    """The inertia panel of the report's error histograms: both arrays' bit-exact models at 24
    bits for the PUMA 560 (of max |H|, max over elements) over 20,000 (``quick``) or 100,000
    configurations."""
    count = 20_000 if quick else 100_000
    robot = load_robot()
    q = sample_joints(robot, count, np.random.default_rng(2))
    reference = jacobian_inertia(robot, q)
    series = {}
    for name, plan in PLANS.items():
        got = model_inertia(plan(robot), q)
        series[f"{name}, 24 bits"] = np.abs(got - reference).max((1, 2)) / np.abs(reference).max()
    return "PUMA inertia matrix, max over elements", "max |H|", series


def write_section(out_dir, rows, *, quick=False, verilator=False, stream=None):
    """The report's inertia section (:class:`robohw.sim.family.Family`): ``inertia.md`` with
    each array's registered design's simulated ``rows``."""
    write_inertia_report(out_dir, {d.array: rows[d.name] for d in DESIGNS if d.name in rows},
                         quick=quick, stream=stream)
    return ("inertia.md", "inertia_tradeoff.png")
