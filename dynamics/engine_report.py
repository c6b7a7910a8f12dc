"""The report's engine table (issue 56's figures at the cycle level): the Newton-Euler steps
compiled onto the engine (:mod:`robohw.dynamics.engine`) for the PUMA 560 and the Stanford arm
over the initiation interval, with the latency beside the graph's critical path, the units,
files and network, and the estimated resources (:mod:`robohw.engine.estimate`)."""

from robohw.dynamics.designs import ENGINE_WIDTH
from robohw.dynamics.engine import ScanPlan
from robohw.engine.estimate import engine_resources
from robohw.engine.program import MIN_INTERVAL, SPARE_UNITS, Machine, compile_program
from robohw.hw.devices import DEVICES
from robohw.hw.multiplier import split_product_tiles
from robohw.robots import load_robot
from robohw.sim.design import TAG_WIDTH

__all__ = ["engine_rows", "engine_section", "ENGINE_INTERVALS", "ENGINE_DEVICE"]

# The engine's curve over II (issue 56): from the smallest the DSP tiles allow up to 128.
ENGINE_INTERVALS = (4, 5, 6, 8, 10, 12, 16, 24, 32, 48, 64, 96, 128)
ENGINE_DEVICE = "ecp5-85k"


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
        plan = ScanPlan(load_robot(name), width=width)
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
            f"{r['connections']:,} | {r['lut_ram_cells']:,} | {r['luts']:,} | {r['register_bits']:,} | {r['dsp_tiles']} | {r['block_rams']} | "
            f"{r['fewest_units'][0]}, {r['fewest_units'][1]}; "
            f"{r['fewest_output_cycle'] / r['critical_path']:.3f} |")
    near = [r for r in rows if r["interval"] <= 32]
    worst = max(near, key=lambda r: r["output_cycle"] / r["critical_path"])
    fewest = max(r["fewest_output_cycle"] / r["critical_path"] for r in near)
    lines = [
        "## The engine: modulo-scheduled units over rotating register files",
        "Any traced graph on a machine of pipelined multipliers (one DSP tile each at 20 bits, "
        "beside the fabric's partial products), adders, loaders of the state's fields and "
        "pipelined CORDICs, successive states overlapped one every II cycles "
        "(robohw.engine, robohw.dynamics.engine): the compiler places the operations most "
        "urgent first, each at the first cycle after its operands with a unit free in that "
        "slot of the interval; every operand port (and output) reads its own rotating register "
        "files (LUT RAM), each holding only the values that port reads, written through one "
        "multiplexed write port, one writer a slot. The Newton-Euler "
        f"steps with serial scans at {ENGINE_WIDTH} bits, the default machine at each II (a "
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
        "units serialize the graph's wide levels. Beside it, at the cycle level: Lee & Chang's array takes "
        f"{array_cycles} cycles a PUMA state (six elements, direct network), the pipeline a "
        f"state every {pipeline_fold} cycles (folded, 98 multipliers; it does not route).",
    ]
    if measured and simulated is not None:
        lines.append(simulated("The registry's dynamics-engine", measured) + ".")
    return "\n\n".join(lines)
