"""The parallel-manipulator section of ``robohw report`` (``platform.md``, ``platform.json``):
the paper against ours (:mod:`.paper_checks`) and the leg processors in hardware: their
timings and accuracy, the platform solve, the dynamics, Gosselin's machine and the forward
kinematics' servo loop."""

import dataclasses
import json
import pathlib

import numpy as np

from robohw.legs.accuracy import leg_dynamics_errors, leg_processor_errors, servo_errors
from robohw.legs.dynamics_graph import (
    STATE_LIMITS,
    dynamics_format,
    dynamics_graph,
    dynamics_scale,
    proven_ranges,
)
from robohw.legs.fk_graph import fk_format
from robohw.legs.givens import ccm_counts, solve_graph
from robohw.legs.ik_graph import leg_ik_graph, platform_format
from robohw.legs.machine_plan import PHASES, plan_machine
from robohw.legs.paper_checks import (
    count_table,
    dynamics_agreement,
    fk_convergence,
    format_count,
    printed_vs_corrected,
)
from robohw.legs.servo import SERVO_ITERATIONS, SERVO_TIMINGS, FkServo, servo_graph
from robohw.robots.platform import SHIPPED_PLATFORMS, load_platform
from robohw.support.formats import versioned
from robohw.taskgraph.model import evaluate_model
from robohw.taskgraph.pipeline import TaskGraphPipeline

__all__ = ["leg_processors", "platform_solve", "leg_dynamics", "machine_phases", "fk_servo",
           "write_platform_report"]

# Widths of the leg processors' accuracy table (the accuracy goals are stated at 24 bits).
LEG_WIDTHS = (16, 20, 24, 28)

def leg_processors(count, seed=0):
    """The leg processors by platform: their CCMs, latency and interval at 24 bits in both
    timings (the plans' figures; ``summary.md`` measures the registry's), and the model's
    accuracy at :data:`LEG_WIDTHS` over ``count`` poses of the workspace."""
    rows = []
    for name in SHIPPED_PLATFORMS:
        platform = load_platform(name)
        timing = {}
        for rows_too in (False, True):
            graph = leg_ik_graph(platform, jacobian=rows_too)
            for mode in ("pipelined", "word_serial"):
                dut = TaskGraphPipeline(graph, **platform_format(platform, 24), timing=mode)
                timing[f"{'jacobian' if rows_too else 'ik'}_{mode}"] = {
                    "ccms": len(graph.ccms), "ccms_per_leg": len(graph.ccms) //
                    len(platform.legs), "depth": graph.depth(), "latency": dut.latency,
                    "interval": dut.interval}
        rows.append({"platform": name, "legs": len(platform.legs), "timing": timing,
                     "accuracy": [leg_processor_errors(platform, width, count, seed)
                                  for width in LEG_WIDTHS]})
    return rows


def _phase(name):
    """The phase of a dynamics CCM by its name (:mod:`robohw.legs.dynamics_graph`)."""
    if "_h_" in name:
        return "scatter"
    if name.startswith("leg"):
        return "legs: dynamics" if "_d_" in name else "legs: lengths and rows"
    return {"p": "platform wrench", "s": "solve"}[name.split("_")[0]]


def leg_dynamics(count, seed=0):
    """The dynamics on the leg processors by platform: its units and limits, CCMs by phase,
    depth, latency and interval at 24 bits in both timings (the plans' figures), and the
    model's accuracy at :data:`LEG_WIDTHS` over ``count`` states."""
    rows = []
    for name in SHIPPED_PLATFORMS:
        platform = load_platform(name)
        scale = dynamics_scale(platform)
        graph = dynamics_graph(platform, scale)
        phases = {}
        for ccm in graph.ccms:
            phases[_phase(ccm.name)] = phases.get(_phase(ccm.name), 0) + 1
        timing = {}
        for mode in ("pipelined", "word_serial"):
            dut = TaskGraphPipeline(graph, **dynamics_format(platform, 24), timing=mode)
            timing[mode] = {"latency": dut.latency, "interval": dut.interval}
        ranges = proven_ranges(platform, scale, 24)
        before_solve = [v for bounds in (ranges.ports, ranges.operands)
                        for (ccm, _), v in bounds.items()
                        if not ccm.startswith("s_") and "_h_" not in ccm]
        rows.append({"platform": name, "legs": len(platform.legs), "ccms": len(graph.ccms),
                     "phases": phases, "depth": graph.depth(), "timing": timing,
                     "time_unit_s": scale.time, "mass_unit_kg": scale.mass,
                     "force_unit_n": scale.force,
                     "limits": dataclasses.asdict(STATE_LIMITS[platform.kind]),
                     "proven": {"largest_bound": max(before_solve), "limit": ranges.limit},
                     "accuracy": [leg_dynamics_errors(platform, width, count, seed)
                                  for width in LEG_WIDTHS]})
    return rows


def _dynamics_section(rows):
    lines = ["### The dynamics on the leg processors (hardware)",
             "Gosselin's three phases as one task graph of CCMs (`robohw.legs.dynamics_graph`): "
             "every leg processor computes its length, row of K/rho and, in its own frame, "
             "the force across the leg and its moment; the platform's wrench about its origin "
             "(in the platform's frame) minus the legs' share is the right-hand side of the "
             "Givens solve, whose matrix is the legs' rows; each leg adds its upper part's "
             "axial force to its f_i. Products are linear rotations, divisions linear "
             "vectorings, frames rotations: no multiplier, square root or reciprocal. "
             "Units: velocities times T, accelerations times T^2, forces in units of M / T^2 "
             "(powers of two from the limits below).",
             "| platform | limits (v, w, dv, dw) | T (s), M (kg), force unit (N) | CCMs by phase "
             "| depth | pipelined: latency, interval | word-serial: latency, interval |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lim = r["limits"]
        phases = ", ".join(f"{k} {v}" for k, v in r["phases"].items())
        p, w = r["timing"]["pipelined"], r["timing"]["word_serial"]
        lines.append(f"| {r['platform']} | {lim['velocity']:g} m/s, "
                     f"{lim['angular_velocity']:g} rad/s, {lim['acceleration']:g} m/s^2, "
                     f"{lim['angular_acceleration']:g} rad/s^2 | {r['time_unit_s']:g}, "
                     f"{r['mass_unit_kg']:g}, {r['force_unit_n']:g} | {r['ccms']}: {phases} | "
                     f"{r['depth']} | {p['latency']}, {p['interval']} | {w['latency']}, "
                     f"{w['interval']} |")
    lines += ["", "Accuracy of the bit-exact model against float64, states inside the limits "
              "with a condition number up to 100 (the goal at 24 bits: within 1e-4 of the "
              "largest force):",
              "| platform | width | states (cond <= 100, valid) | max error (N) | of the "
              "largest force | of each state's largest |", "|---|---|---|---|---|---|"]
    for r in rows:
        for a in r["accuracy"]:
            lines.append(f"| {r['platform']} | {a['width']} | {a['states']:,} ({a['well']:,}, "
                         f"{a['valid']:,}) | {a['max_error_n']:.3g} | {a['relative']:.2e} | "
                         f"{a['per_state']:.2e} |")
    lines += ["", "The planar platform has no gravity: a state at rest needs no force, so "
              "per-state errors grow as its forces vanish; the hexapod always holds its "
              "weight.", "",
              "Proven ranges (`robohw.taskgraph.ranges`, sound bounds from the limits, each leg at "
              "least its shortest stroke): the largest bound of any value the legs or the "
              "platform's wrench compute, against the format's largest real: " + "; ".join(
                  f"{r['platform']} {r['proven']['largest_bound']:.3f} of "
                  f"{r['proven']['limit']:g}" for r in rows) + ". The solve's values depend "
              "on the conditioning: its guards and range flags bound them."]
    return "\n".join(lines)


# The paper's ratios (G:L250, G:L246, G:L296): the kinematics "6 times less" (3 planar) by
# perfect balance; the dynamics by operation counts, serial over parallel: multiplications
# 834 / 240 (planar 35 / 19) and all operations (834 + 566) / (240 + 190) ((35 + 21) /
# (19 + 11)).
PAPER_SPEEDUPS = {("spatial", "kinematics"): (6.0, 6.0),
                  ("spatial", "dynamics"): (834 / 240, (834 + 566) / (240 + 190)),
                  ("planar", "kinematics"): (3.0, 3.0),
                  ("planar", "dynamics"): (35 / 19, (35 + 21) / (19 + 11))}


def machine_phases(width=24):
    """Gosselin's machine (:mod:`robohw.legs.machine_plan`) by platform and computation (the
    kinematics: lengths and rows of K/rho; the dynamics): cycles per phase, the latency on one
    processor per leg and a platform processor against one processor, and the speed-up beside
    the paper's."""
    rows = []
    for name in SHIPPED_PLATFORMS:
        platform = load_platform(name)
        for what, graph, formats in (
                ("kinematics", leg_ik_graph(platform, jacobian=True),
                 platform_format(platform, width)),
                ("dynamics", dynamics_graph(platform), dynamics_format(platform, width)),
                (f"forward kinematics ({SERVO_ITERATIONS} iterations)",
                 servo_graph(platform, SERVO_ITERATIONS), fk_format(platform, width))):
            parallel = plan_machine(graph, **formats)
            serial = plan_machine(graph, **formats, processors=1)
            rows.append({"platform": name, "computation": what, "ccms": len(graph.ccms),
                         "phases": {p: {"first": a, "end": b, "items": n} for p, (a, b, n)
                                    in parallel.phase_spans().items()},
                         "latency": parallel.latency, "interval": parallel.interval,
                         "busy": {str(k): v for k, v in sorted(parallel.busy.items())},
                         "registers": {str(k): parallel.register_count(k)
                                       for k in range(len(platform.legs) + 1)},
                         "serial_latency": serial.latency,
                         "speedup": serial.latency / parallel.latency,
                         "paper_speedup": PAPER_SPEEDUPS.get((platform.kind, what))})
    return rows


def fk_servo(loops, rows, widths=LEG_WIDTHS, seed=0):
    """The forward kinematics' servo loop by platform: cycles a row at 24 bits on each of
    :data:`~robohw.legs.servo.SERVO_TIMINGS` (and the clock a 1 kHz loop needs), and the
    model's errors along ``loops`` 1 kHz trajectories of ``rows`` rows at ``widths`` bits with
    one and :data:`~robohw.legs.servo.SERVO_ITERATIONS` Newton steps a row."""
    out = []
    for name in SHIPPED_PLATFORMS:
        platform = load_platform(name)
        timing = {t: FkServo(platform, SERVO_ITERATIONS, width=24, timing=t).interval
                  for t in SERVO_TIMINGS}
        out.append({"platform": name, "interval": timing,
                    "accuracy": [servo_errors(platform, width, iterations, loops, rows, seed)
                                 for width in widths
                                 for iterations in sorted({1, SERVO_ITERATIONS})]})
    return out


def _servo_section(rows):
    lines = ["### Forward kinematics in a servo loop (hardware)",
             f"Newton iterations on the leg processors (`robohw.legs.servo`), each row of "
             f"measured lengths from the previous row's answer, the first from home, along "
             f"smooth trajectories sampled at 1 kHz (each coordinate a sinusoid of 2-5 Hz, 3 cm "
             f"and 0.05 rad, planar 0.1 rad: moves of up to 1 mm a row). Cycles a row at 24 "
             f"bits with {SERVO_ITERATIONS} iterations (a row waits for the answer before it: "
             f"the design's latency and the cycle the loop closes in), and the clock a 1 kHz "
             f"loop needs:",
             "| platform | " + " | ".join(f"{t}: cycles a row, clock for 1 kHz"
                                         for t in SERVO_TIMINGS) + " |",
             "|---|" + "---|" * len(SERVO_TIMINGS)]
    for r in rows:
        lines.append(f"| {r['platform']} | " + " | ".join(
            f"{r['interval'][t]:,}, {r['interval'][t] / 1e3:.2f} MHz" for t in SERVO_TIMINGS)
            + " |")
    lines += ["", "Accuracy of the bit-exact model against the poses the lengths came from "
              "(the goal at 24 bits: 1 um and 1e-5 rad):",
              "| platform | width | iterations a row | rows (valid) | max position error "
              "(um) | max angle error (rad) |", "|---|---|---|---|---|---|"]
    for r in rows:
        for a in r["accuracy"]:
            lines.append(f"| {r['platform']} | {a['width']} | {a['iterations']} | "
                         f"{a['rows']:,} ({a['valid']:,}) | {a['position_max_m'] * 1e6:.3g} | "
                         f"{a['angle_max_rad']:.2e} |")
    lines += ["", "One iteration a row leaves Newton's error of the row's move (quadratic in "
              "it); two leave the format's."]
    return "\n".join(lines)


def _machine_section(rows):
    lines = ["### Gosselin's machine, cycle by cycle (`robohw.legs.machine_plan`)",
             "One processor per leg and a platform processor, each a register file and one "
             "word-serial CORDIC executing its CCMs in sequence (24 bits), on a bus that "
             "carries one word a cycle: the state broadcast once, the legs' values gathered "
             "to the platform processor, the forces scattered back; list-scheduled by "
             "urgency. Phases overlap (a leg sends its first values while it computes the "
             "rest): each is given as its first cycle to its end, with the words or CCMs in "
             "it. The serial machine is one such processor running every CCM. The hardware "
             "(`robohw.legs.leg_machine`, equal to the model bit for bit) runs this plan: "
             "its latency is the plan's and five cycles (the state taken, the programs "
             "started, the first word's read from its program's ROM and registered, the "
             "outputs offered). Values share a "
             "processor's registers when their lives do not overlap, in banks by their "
             "writer (the CORDIC's x, y, z or the bus): registers of the platform processor "
             "and of a leg's.",
             "| platform | computation | " + " | ".join(PHASES) + " | latency | one "
             "processor | speed-up | paper (mult, all ops) | registers |",
             "|---|---|" + "---|" * (len(PHASES) + 5)]
    for r in rows:
        cells = []
        for phase in PHASES:
            p = r["phases"].get(phase)
            cells.append(f"{p['first']:,}-{p['end']:,} ({p['items']})" if p else "—")
        paper = r["paper_speedup"]
        paper = f"{paper[0]:.2f}, {paper[1]:.2f}" if paper else "— (none in the paper)"
        lines.append(f"| {r['platform']} | {r['computation']} | " + " | ".join(cells) +
                     f" | {r['latency']:,} | {r['serial_latency']:,} | {r['speedup']:.2f} | "
                     f"{paper} | {r['registers']['0']}, {r['registers']['1']} |")
    dyn = {r["platform"]: r for r in rows if r["computation"] == "dynamics"}
    spatial, planar = dyn["hexapod"], dyn["planar_3rpr"]
    lines += ["", "The kinematics has no communication but the broadcast, so its speed-up "
              "approaches the number of legs, the paper's \"6 times less\". The dynamics is "
              "bounded by the platform processor: the platform's wrench and the solve, "
              f"{spatial['phases']['solve']['items']} CCMs on the hexapod against a leg's "
              f"{(spatial['ccms'] - spatial['phases']['solve']['items']) // 6}, in the paper "
              "120m 110a against a leg's 100m 63a + 19m 13a, hence the close ratios "
              f"({spatial['speedup']:.2f} against {spatial['paper_speedup'][0]:.2f} and "
              f"{spatial['paper_speedup'][1]:.2f}). On the planar platform the paper's 3 x 3 "
              "solve (11m 6a) is more than half of its parallel time (19m 11a); ours (the "
              f"wrench and a 3 x 3 Givens solve, {planar['phases']['solve']['items']} CCMs) is "
              f"below a leg's {(planar['ccms'] - planar['phases']['solve']['items']) // 3}, so "
              "the legs' share, which the machine divides by three, weighs more: "
              f"{planar['speedup']:.2f} against {planar['paper_speedup'][0]:.2f}. The solve "
              "phase starts with the broadcast because the platform processor computes its own "
              "wrench while the legs work. The forward kinematics' iterations put the solve "
              "and the pose update on the platform processor, the legs' 11 CCMs an iteration "
              "on theirs, and broadcast the new pose: the platform processor bounds it most."]
    return "\n".join(lines)


def platform_solve(count, seed=0, width=24):
    """The Givens-rotation solve of a 6 x 6 system in CCMs (:mod:`robohw.legs.givens`): its
    CCMs, depth and pipelined latency at ``width`` bits (reals in [-8, 8), two guard bits),
    and the model's largest error over ``count`` random systems (entries and solutions in
    [-1, 1]) by band of condition number."""
    graph = solve_graph(6)
    formats = {"width": width, "frac_bits": width - 4, "guard_bits": 2}
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (count, 6, 6))
    x = rng.uniform(-1, 1, (count, 6))
    b = np.einsum("kij,kj->ki", a, x)
    inputs = {f"a{i + 1}_{j + 1}": a[:, i, j] for i in range(6) for j in range(6)}
    inputs.update({f"b{i + 1}": b[:, i] for i in range(6)})
    out, valid, _ = evaluate_model(graph, inputs, **formats)
    error = np.abs(np.stack([out[f"x{i}"] for i in range(1, 7)], -1) - x).max(-1)
    cond = np.linalg.cond(a)
    bands = []
    for low in (1, 10, 100, 1000):
        band = (cond >= low) & (cond < 10 * low)
        bands.append({"cond_from": low, "systems": int(band.sum()),
                      "valid": int((band & valid).sum()),
                      "max_error": float(error[band & valid].max(initial=0.0))})
    return {"ccms": ccm_counts(6), "depth": graph.depth(), "width": width,
            "latency": TaskGraphPipeline(graph, **formats).latency, "bands": bands}


def _solve_section(solve):
    c = solve["ccms"]
    lines = ["### The platform solve in CCMs (Givens rotations)",
             f"A 6 x 6 system by Gentleman and Kung's triangular array unrolled and "
             f"back-substitution (`robohw.legs.givens`): {c['vectorings']} circular "
             f"vectorings, {c['rotations']} rotations, {c['multiply_adds']} linear rotations "
             f"(multiply-adds) and {c['divisions']} linear vectorings (divisions), no square "
             f"root or reciprocal, against the paper's \"approximately 120m 110a\" on one "
             f"processor; {solve['depth']} CCMs deep, {solve['latency']} cycles pipelined at "
             f"{solve['width']} bits (a system per clock). Every pivot below 2^-10 flags the "
             "system (a consistent singular system would otherwise divide rounding noise). "
             "The model's largest error at 24 bits, entries and solutions in [-1, 1]:",
             "| condition number | systems | valid | max error |", "|---|---|---|---|"]
    for band in solve["bands"]:
        lines.append(f"| {band['cond_from']:,} to {10 * band['cond_from']:,} | "
                     f"{band['systems']:,} | {band['valid']:,} | {band['max_error']:.2e} |")
    return "\n".join(lines)


def _leg_section(rows):
    lines = ["### The leg processors (hardware)",
             "One identical processor of CCMs per leg (`robohw.legs.ik_graph`): the pose "
             "broadcast to every leg, no value passed between legs. Lengths from three "
             "rotations of b' and two vectorings (planar: one and one); the row of K/rho from "
             "six more rotations (planar: two), no division and no square root. At 24 bits:",
             "| platform | outputs | CCMs a leg (all legs) | depth (CCMs) | pipelined: "
             "latency, interval (cycles) | word-serial: latency, interval (cycles) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        for what, label in (("ik", "lengths"), ("jacobian", "lengths and K/rho rows")):
            p, w = r["timing"][f"{what}_pipelined"], r["timing"][f"{what}_word_serial"]
            lines.append(f"| {r['platform']} | {label} | {p['ccms_per_leg']} ({p['ccms']}) | "
                         f"{p['depth']} | {p['latency']}, {p['interval']} | {w['latency']}, "
                         f"{w['interval']} |")
    lines += ["", "One processor doing every leg would do the legs' CCMs one leg after another: "
              "6 (planar 3) times the work of one leg processor, the paper's \"6 times "
              "less\" for the kinematics, by construction.", "",
              "Accuracy of the bit-exact model against float64 (the goals at 24 bits: "
              "lengths within 1 um, rows within 1e-5 relative):",
              "| platform | width | poses (valid) | max length error (um) | in LSBs | max row "
              "error (relative) |", "|---|---|---|---|---|---|"]
    for r in rows:
        for a in r["accuracy"]:
            lines.append(f"| {r['platform']} | {a['width']} | {a['poses']:,} ({a['valid']:,}) | "
                         f"{a['rho_max_m'] * 1e6:.3g} | {a['rho_max_lsb']:.2f} | "
                         f"{a['row_max_relative']:.2e} |")
    return "\n".join(lines)


def _count_section(kind, rows):
    title = {"spatial": "6-6 Stewart-Gough platform (hexapod)",
             "planar": "planar 3-RPR (planar_3rpr)"}[kind]
    lines = [f"### Operation counts, {title}",
             "| item | paper | ours | line | covers | why they differ |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        paper = format_count(r["paper"]) if r["paper"] else "—"
        lines.append(f"| {r['item']} | {paper} | {format_count(r['ours'])} | {r['line'] or '—'} | "
                     f"{r['covers']} | {r['reason']} |")
    return "\n".join(lines)


def write_platform_report(out_dir, quick=False):
    """Measure, write ``platform.md`` and ``platform.json``; return the Markdown."""
    out_dir = pathlib.Path(out_dir)
    counts = {kind: count_table(kind) for kind in ("spatial", "planar")}
    printed = printed_vs_corrected()
    agreement = dynamics_agreement(2_000 if quick else 20_000)
    convergence = fk_convergence(500 if quick else 5_000)
    processors = leg_processors(1_000 if quick else 20_000)
    solve = platform_solve(1_000 if quick else 20_000)
    dynamics = leg_dynamics(500 if quick else 10_000)
    machine = machine_phases()
    servo = fk_servo(10, 10, widths=(24,)) if quick else fk_servo(50, 40)
    legs = printed["planar_legs"]
    fk_lines = ["| platform | poses within | converged | the same pose | median / max "
                "iterations | unreachable | near singular |", "|---|---|---|---|---|---|---|"]
    for r in convergence:
        fk_lines.append(f"| {r['platform']} | {r['scale']} x workspace | {r['converged']} of "
                        f"{r['poses']} | {r['same_pose']} | {r['iterations_median']} / "
                        f"{r['iterations_max']} | {r['unreachable']} | {r['near_singular']} |")
    text = "\n\n".join([
        "# Parallel manipulators (Gosselin 1996)",
        "One computation per leg plus one platform solve. The geometry and inertias are ours "
        "(the paper gives none): `hexapod` and `planar_3rpr`, see their files. Float64 "
        "references, and the leg processors in hardware: lengths, Jacobian rows, the platform "
        "solve, the dynamics and the forward kinematics' servo loop.",
        _count_section("spatial", counts["spatial"]),
        _count_section("planar", counts["planar"]),
        "Counted by running the references over counting scalars (every product with a "
        "constant of the file counts; m: multiplications, a: additions and subtractions, d: "
        "divisions, as reciprocals). The IK counts agree exactly; the paper's Jacobian and "
        "dynamics counts assume a leg-frame formulation it does not spell out, so ours (base "
        "coordinates, reusing what earlier phases computed) differ as each row says.",
        "### Printed against corrected equations",
        f"- Eq. (9), `J rho_dot + K t = 0` as printed: residual "
        f"{printed['eq9']['printed_residual']:.3g} on the spec's test state (t = 0.7 s); "
        f"`J rho_dot = K t`: {printed['eq9']['corrected_residual']:.1e} (rho_dot by central "
        "differences of the IK). Planar eq. (27), the same sign: residual "
        f"{printed['eq27']['printed_residual']:.3g} as printed, "
        f"{printed['eq27']['corrected_residual']:.1e} corrected (the home pose moving, "
        "phi_dot, x_dot, y_dot = 0.4, 0.3, -0.2).",
        "- Planar eqs. (30)-(31), the force across each leg on the platform (N) at the home "
        "pose moving (phi_dot, x_dot, y_dot = 0.4, 0.3, -0.2; accelerations 1.5, -2, 1): "
        "printed " + ", ".join(f"{leg['g_printed']:.4f}" for leg in legs) +
        "; corrected (inertia term negated) " +
        ", ".join(f"{leg['g_corrected']:.4f}" for leg in legs) +
        "; our base-coordinate solve " + ", ".join(f"{leg['g_reference']:.4f}" for leg in legs)
        + ".",
        "- Planar eq. (32), the actuator force (N): printed `m_u a_u|| - f` " +
        ", ".join(f"{leg['h_printed']:.4f}" for leg in legs) + "; corrected `m_u a_u|| + f` "
        "(as eq. 38) " + ", ".join(f"{leg['h_corrected']:.4f}" for leg in legs) +
        "; virtual power " + ", ".join(f"{leg['h_reference']:.4f}" for leg in legs) + ".",
        f"- Gravity, absent from every equation of the paper: at the hexapod's home pose at "
        f"rest each actuator holds {printed['gravity']['with']:.2f} N with gravity, "
        f"{printed['gravity']['without']:.2f} N without.",
        "- The spec's test state: forces " + ", ".join(f"{v:.2f}" for v in
                                                     printed["spec_forces"]) +
        " N (the spec's independent check: 33.44, 32.92, 25.52, 22.98, 39.49, 22.23).",
        "### Two formulations of the dynamics",
        "Gosselin's decomposition against the principle of virtual power (no per-leg "
        "decomposition), largest difference relative to the largest force: " + "; ".join(
            f"{r['platform']} {r['max_relative']:.1e} over {r['states']:,} states"
            for r in agreement) + ".",
        "### Forward kinematics (ours: Newton-Raphson from the home pose)",
        "Poses drawn uniformly within home +- the workspace (hexapod: 5 cm, 0.15 rad; planar: "
        "10 cm, 0.3 rad), times the scale; their leg lengths solved back. 'The same pose': "
        "within 1e-8; a converged row elsewhere is another assembly of the same legs.",
        "\n".join(fk_lines),
        _leg_section(processors),
        _solve_section(solve),
        _dynamics_section(dynamics),
        _servo_section(servo),
        _machine_section(machine),
    ]) + "\n"
    (out_dir / "platform.md").write_text(text)
    (out_dir / "platform.json").write_text(json.dumps(versioned({
        "counts": counts, "printed_vs_corrected": printed, "agreement": agreement,
        "fk_convergence": convergence, "leg_processors": processors,
        "platform_solve": solve, "leg_dynamics": dynamics, "fk_servo": servo,
        "machine": machine}), indent=1))
    return text


def write_section(out_dir, rows, *, quick=False, verilator=False, stream=None):
    """The report's platform section (:class:`robohw.sim.family.Family`): ``platform.md``."""
    write_platform_report(out_dir, quick=quick)
    return ("platform.md",)
