"""The report's engine tables: the Newton-Euler steps compiled onto the engine
(:mod:`robohw.dynamics.inverse.engine`) for the PUMA 560 and the Stanford arm over the initiation
interval, with the latency beside the graph's critical path, the units, files and network,
and the estimated resources (:mod:`robohw.engine.estimate`); and the curve over II as placed
and routed on the ECP5-85F (``robohw synth`` rows), with its Pareto front."""

from dataclasses import dataclass

from robohw.dynamics.inverse.designs import ENGINE_WIDTH
from robohw.dynamics.inverse.engine import LinkFramePlan
from robohw.engine.estimate import engine_resources
from robohw.engine.machine import MIN_INTERVAL, SPARE_UNITS, Machine
from robohw.engine.program import compile_program
from robohw.hw.devices import DEVICES
from robohw.hw.multiplier import split_product_tiles
from robohw.robots import load_robot
from robohw.sim.design import TAG_WIDTH
from robohw.support.pareto import lut_equivalents, pareto_mask

__all__ = ["engine_rows", "engine_section", "placed_rows", "placed_section", "ENGINE_INTERVALS",
           "ENGINE_DEVICE", "PlacedCurve", "PLACED_CURVES", "THROUGHPUT_GOAL", "GOAL_MHZ"]

# The engine's curve over II: from the smallest the DSP tiles allow up to 128.
ENGINE_INTERVALS = (4, 5, 6, 8, 10, 12, 16, 24, 32, 48, 64, 96, 128)
ENGINE_DEVICE = "ecp5-85k"


@dataclass(frozen=True)
class PlacedCurve:
    """A robot's engine curve as placed and routed: its ``name`` in the report, its throughput
    ``goal`` (torque vectors a second) and the ``intervals`` it should have a point at."""
    name: str
    goal: float
    intervals: tuple


# The placed curves (a robot's robohw synth --robot label; None: the design's own, the PUMA
# 560) and their goals: twenty million torque vectors a second for the six-joint arms (II 5 at
# 100 MHz), ten million for the seven-joint Panda and iiwa 14 (II 10, by locality); the points
# measured (docs/notes/2026-12-link-frame-engine.md and 2026-12-engine-locality.md have what
# did not route).
PLACED_CURVES = {None: PlacedCurve("the PUMA 560", 20e6, (3, 5, 10)),
                 "ur5": PlacedCurve("the UR5", 20e6, (3, 5, 10)),
                 "panda": PlacedCurve("the Panda", 10e6, (10, 14, 16)),
                 "iiwa14": PlacedCurve("the KUKA iiwa 14", 10e6, (10,))}
THROUGHPUT_GOAL = 20e6
GOAL_MHZ = 100


def engine_rows(width=ENGINE_WIDTH, quick=False):
    """One dict per (robot, II) of the engine at ``width`` bits (the default machine: a tenth
    spare units): its units, latency beside the graph's critical path at the units'
    latencies and beside the latency with the fewest units, register files and network, and
    the estimated resources (:func:`robohw.engine.estimate.engine_resources`); II from the
    smallest whose multipliers fit the ECP5-85F's DSP tiles, then :data:`ENGINE_INTERVALS`
    above it (``quick``: 10 and 128 only)."""
    rows, tiles = [], DEVICES[ENGINE_DEVICE].dsp
    tiles_each = split_product_tiles(width, width)
    for name in ("puma560", "stanford"):
        plan = LinkFramePlan(load_robot(name), width=width)
        smallest = next(ii for ii in range(MIN_INTERVAL, 129)
                        if Machine.for_plan(plan, ii).multipliers * tiles_each <= tiles)
        above = (10, 128) if quick else ENGINE_INTERVALS
        for ii in sorted({smallest, *(ii for ii in above if ii > smallest)}):
            program = compile_program(plan, Machine.for_plan(plan, ii))
            fewest = compile_program(plan, Machine.for_plan(plan, ii, spare=0))
            machine, estimate = program.machine, engine_resources(plan, program, TAG_WIDTH)
            rows.append({
                "robot": name, "interval": ii, "latency": program.latency + 2,
                "output_cycle": program.output_cycle, "critical_path": program.critical_path,
                "multipliers": machine.multipliers, "adders": machine.adders,
                "loaders": machine.loaders, "cordics": machine.cordics,
                "largest_file": max(program.depth.values()),
                "most_files": max(len(files) for files in program.reads.values()),
                "operand_ports": len(program.reads), **estimate,
                "fewest_units": [fewest.machine.multipliers, fewest.machine.adders],
                "fewest_output_cycle": fewest.output_cycle,
                "states_per_s_at_100mhz": 100e6 / ii})
    return rows


def engine_section(rows, array_cycles, pipeline_fold, measured=None, simulated=None):
    """The report's engine section: :func:`engine_rows`' table, the latency against the
    critical path, and the array (``array_cycles`` a PUMA state) and the pipeline (a state
    every ``pipeline_fold`` cycles) beside it; ``measured``, the registry design's simulated
    row, in the sentence ``simulated(title, measured)`` gives."""
    table = ["| robot | II | a state at 100 MHz | latency (cycles) | critical path | latency / "
             "path | multipliers, adders, loaders, CORDICs | register files, words (largest "
             "file) | operand ports (most files a port) | write multiplexer inputs | LUT RAM "
             "cells (est.) | LUT4s (est.) | flip-flops (est.) "
             "| DSP tiles | block RAMs | the fewest units: multipliers, adders; latency / path |",
             "|" + "---|" * 16]
    for r in rows:
        table.append(
            f"| {r['robot']} | {r['interval']} | {r['states_per_s_at_100mhz'] / 1e6:.1f} M/s | "
            f"{r['latency']} | {r['critical_path'] + 2} | "
            f"{r['output_cycle'] / r['critical_path']:.3f} | {r['multipliers']}, "
            f"{r['adders']}, {r['loaders']}, {r['cordics']} | {r['files']}, {r['file_words']:,} "
            f"({r['largest_file']}) | {r['operand_ports']} ({r['most_files']}) | "
            f"{r['connections']:,} | {r['lut_ram_cells']:,} | {r['luts']:,} | "
            f"{r['register_bits']:,} | {r['dsp_tiles']} | {r['block_rams']} | "
            f"{r['fewest_units'][0]}, {r['fewest_units'][1]}; "
            f"{r['fewest_output_cycle'] / r['critical_path']:.3f} |")
    near = [r for r in rows if r["interval"] <= 32]
    worst = max(near, key=lambda r: r["output_cycle"] / r["critical_path"])
    fewest = max(r["fewest_output_cycle"] / r["critical_path"] for r in near)
    lines = [
        "## The engine: modulo-scheduled units over rotating register files",
        "Any traced graph on a machine of pipelined multipliers (one DSP tile each up to 18 "
        "bits, wider beside the fabric's partial products), adders, loaders of the state's fields "
        "and "
        "pipelined CORDICs, successive states overlapped one every II cycles "
        "(robohw.engine, robohw.dynamics.inverse.engine): the compiler places the operations most "
        "urgent first, each at the first cycle after its operands with a unit free in that "
        "slot of the interval; every operand port (and output) reads its own rotating register "
        "files (LUT RAM), each holding only the values that port reads, written through one "
        "multiplexed write port, one writer a slot. The Newton-Euler "
        f"equations in link frames at {ENGINE_WIDTH} bits, the default machine at each II (a "
        f"{SPARE_UNITS:.0%} spare multipliers and adders), "
        "from the smallest II whose multipliers fit the ECP5-85F's "
        f"{DEVICES[ENGINE_DEVICE].dsp} tiles. Latency: the program's output cycle and the "
        "output queue's two; the critical path is the graph's longest chain of the units' "
        "latencies (inputs loaded and angles issued in the state's first cycle after its "
        "transfer), the least latency any schedule has. Resources are estimates from the "
        "program (robohw.engine.estimate), not synthesis:",
        "\n".join(table),
        f"From II {min(r['interval'] for r in near)} to {max(r['interval'] for r in near)} the "
        f"latency is within "
        f"{worst['output_cycle'] / worst['critical_path'] - 1:.1%} of the critical path "
        f"(worst: {worst['robot']} at II {worst['interval']}; with the fewest units, up to "
        f"{fewest - 1:.1%}: a state's last operations wait for free slots); above, the few "
        "units serialize the graph's wide levels. Beside it, at the cycle level: Lee & Chang's "
        "array takes "
        f"{array_cycles} cycles a PUMA state (six elements, direct network), the pipeline a "
        f"state every {pipeline_fold} cycles (folded, 98 multipliers; it does not route).",
    ]
    if measured and simulated is not None:
        lines.append(simulated("The registry's dynamics-engine", measured) + ".")
    return "\n\n".join(lines)


def placed_rows(synth_rows, design="dynamics-engine", robot=None):
    """The engine's curve as placed and routed: one dict per II of ``design``'s rows among
    ``synth_rows`` (:func:`robohw.flows.synth_rows.worst_of_seeds` rows of ``robot``, a label of
    ``robohw synth --robot``, or ``None``: its own robot, at any fold), ordered by II: the
    resources, the worst seed's Fmax (and each seed's), torque vectors a second and the latency at
    it, the LUT-equivalents (:func:`robohw.support.pareto.lut_equivalents`) and whether the point is
    on the Pareto
    front of vectors a second against LUT-equivalents."""
    rows = []
    for r in synth_rows:
        if r.get("design") != design or r.get("robot") != robot or not r.get("fmax_mhz"):
            continue
        size = lut_equivalents(r["luts"], r["carry"], r.get("lut_ram", 0), r["dsp"])
        rows.append({"interval": r["interval_cycles"], "width": r["width"],
                     "luts": r["luts"], "carry": r["carry"], "lut_ram": r.get("lut_ram", 0),
                     "flip_flops": r["flip_flops"], "dsp": r["dsp"], "bram": r["bram"],
                     "fmax_mhz": r["fmax_mhz"], "fmax_by_seed": r.get("fmax_by_seed", {}),
                     "latency": r["latency_cycles"],
                     "latency_us": r["latency_cycles"] / r["fmax_mhz"],
                     "vectors_per_s": r["fmax_mhz"] * 1e6 / r["interval_cycles"],
                     "lut_equivalents": size, "critical_path": r.get("critical_path")})
    rows.sort(key=lambda r: r["interval"])
    front = pareto_mask([(r["vectors_per_s"], r["lut_equivalents"]) for r in rows],
                        [True, False])
    for row, on in zip(rows, front):
        row["front"] = on
    return rows


def placed_section(rows, default_interval, robot=None):
    """The report's curve of the engine for ``robot`` (a key of :data:`PLACED_CURVES`) as
    placed and routed (:func:`placed_rows`), the II of its curve's intervals that no row
    holds named, and the robot's throughput goal against the fastest point that routes at
    100 MHz on every seed."""
    curve = PLACED_CURVES[robot]
    name, goal_rate = curve.name, curve.goal
    table = ["| II | LUT4 | carry cells | LUT RAM (16x4) | flip-flops | DSP tiles | block RAMs "
             "| LUT-equivalents | Fmax, worst of the seeds (each seed) | torque vectors / s | "
             "latency (cycles) | latency (µs) | Pareto front |", "|" + "---|" * 13]
    for r in rows:
        seeds = ", ".join(f"{m}" for m in r["fmax_by_seed"].values())
        table.append(
            f"| {r['interval']} | {r['luts']:,} | {r['carry']:,} | {r['lut_ram']:,} | "
            f"{r['flip_flops']:,} | {r['dsp']} | {r['bram']} | {r['lut_equivalents']:,} | "
            f"{r['fmax_mhz']} ({seeds}) | {r['vectors_per_s'] / 1e6:.2f} M | {r['latency']} | "
            f"{r['latency_us']:.2f} | {'yes' if r['front'] else ''} |")
    missing = [ii for ii in curve.intervals if ii not in {r["interval"] for r in rows}]
    # fmax_mhz is the worst seed's.
    routed = [r for r in rows if r["fmax_mhz"] >= GOAL_MHZ]
    best = max(routed, key=lambda r: r["vectors_per_s"], default=None)
    option = "" if robot is None else f" --robot {robot}"
    lines = [f"## The engine placed and routed: the curve over II, {name}"]
    if rows:
        lines += [
            f"{name[0].upper()}{name[1:]}'s engine at its default width, synthesized by Yosys "
            "and placed and routed by nextpnr on the ECP5-85F (speed grade 6, router2 routed "
            "for 100 MHz), each Fmax the worst of its placement seeds (the `robohw synth "
            f"--designs dynamics-engine{option} --ii N` rows of this folder's synth.json; "
            "LUT-equivalents weigh "
            "a carry cell as two LUTs, a 16x4 LUT-RAM block as four and a DSP tile as the "
            "fabric's own 18 x 18 product; the front: no other II gives more vectors a second "
            "in fewer LUT-equivalents):", "\n".join(table)]
    else:
        lines.append(f"No placed dynamics-engine rows of {name} in this folder's synth.json "
                     f"(`robohw synth --designs dynamics-engine{option} --ii N`).")
    if missing:
        lines.append("Not placed and routed here: II " + ", ".join(map(str, missing)) +
                     " (no row in synth.json; docs/notes/2026-12-link-frame-engine.md has what "
                     "was measured).")
    goal = (f"{goal_rate / 1e6:.0f} million torque vectors a second (II <= "
            f"{round(GOAL_MHZ * 1e6 / goal_rate)} at {GOAL_MHZ} MHz)")
    if not rows:
        lines.append(f"The goal, {goal}: no placed point to meet it.")
    elif best is None:
        lines.append(f"The goal, {goal}, is NOT met: no II routes at 100 MHz on every seed.")
    else:
        met = best["vectors_per_s"] >= goal_rate
        lines.append(
            f"The goal, {goal}, is {'met' if met else 'NOT met'}: the fastest point that "
            f"routes at 100 MHz or more on every seed is II {best['interval']}, "
            f"{best['vectors_per_s'] / 1e6:.2f} million a second at {best['fmax_mhz']} MHz, "
            f"latency {best['latency_us']:.2f} µs"
            + ("" if met else f", {goal_rate / best['vectors_per_s']:.1f} times short") +
            f". The registry's default II is {default_interval}.")
    return "\n\n".join(lines)
