"""``robohw bench sim``: how fast each simulator runs each design, measured in one run.

For every design at its registry default (width and fold) it measures the compiled backend
(:mod:`robohw.sim.compiled`: the cold or cached build's seconds, then cycles per second over a
long seeded workload, checked against the bit-exact model), the Amaranth simulator (cycles
per second over a short workload, checked too) and, if asked, cocotb + Verilator
(:mod:`robohw.sim.verilator`, a Python testbench in every cycle). Wall-clock figures: they
depend on the machine and its load, so they live in the report and docs/simulation.md, never in a
test.
"""

import time

from robohw.hw.checks import check_choice
from robohw.registry import design as find_design
from robohw.sim.compiled import SIMULATORS, build_compiled, run_stream_compiled
from robohw.sim.harness import run_stream
from robohw.sim.verilator import run_stream_verilator
from robohw.support.progress import Progress

__all__ = ["bench_sim", "format_sim_bench"]


def bench_sim(names, *, cycles=1_000_000, amaranth_cycles=2_000, simulators=("verilator",),
              threads=1, cocotb_cycles=0, directory=None, stream=None):
    """One row per design in ``names``: the compiled backend run for about ``cycles`` cycles
    per simulator in ``simulators`` (:data:`robohw.sim.compiled.SIMULATORS`; Verilator's
    model on ``threads`` threads), the Amaranth simulator for about ``amaranth_cycles`` (past
    one latency) and, with ``cocotb_cycles``, the exported Verilog under cocotb + Verilator
    for about that many (its build takes a minute or more for a large design). Raises
    ``AssertionError`` if a simulation differs from the bit-exact model."""
    for simulator in simulators:
        check_choice("simulator", simulator, SIMULATORS)
    designs = [find_design(name) for name in names]
    progress = Progress(len(designs) * (len(simulators) + 1 + bool(cocotb_cycles)), stream)
    rows = []
    for design in designs:
        dut = design.build()
        row = {"design": design.name, "width": design.width_of(dut),
               "fold": design.fold_of(dut) if design.default_fold else None,
               "latency": dut.latency, "interval": dut.interval, "threads": threads}
        count = max(10, cycles // dut.interval)
        workload = design.workload(dut, count, seed=1)
        for simulator in simulators:
            def say(step, s=simulator):
                progress.update(progress.done, f"{design.name}, {s}: {step}", force=True)
            parallel = threads if simulator == "verilator" else 1
            identity = f"{design.name} width={row['width']} fold={row['fold']}"
            model = build_compiled(dut, simulator=simulator, threads=parallel,
                                   identity=identity, directory=directory, say=say)
            run = run_stream_compiled(dut, workload.payloads, simulator=simulator,
                                      threads=parallel, identity=identity,
                                      directory=directory)
            _check(design, dut, workload, run.outputs, simulator)
            row[f"{simulator}_build_s"] = model.build_seconds
            row[f"{simulator}_cached"] = model.cached
            row[f"{simulator}_cycles"] = run.cycles
            row[f"{simulator}_cycles_per_s"] = run.cycles / run.wall_seconds
            progress.step(f"{design.name}: {simulator}")
        short = design.workload(dut, max(2, (amaranth_cycles - dut.latency) // dut.interval),
                                seed=2)
        started = time.perf_counter()
        run = run_stream(dut, short.payloads)
        row["amaranth_elaborate_s"] = time.perf_counter() - started - run.wall_seconds
        _check(design, dut, short, run.outputs, "amaranth")
        row["amaranth_cycles"] = run.cycles
        row["amaranth_cycles_per_s"] = run.cycles / run.wall_seconds
        progress.step(f"{design.name}: amaranth")
        if cocotb_cycles:
            short = design.workload(dut, max(2, (cocotb_cycles - dut.latency) // dut.interval),
                                    seed=3)
            outputs, stats = run_stream_verilator(dut, short.payloads, name="top",
                                                  optimize=True)
            _check(design, dut, short, outputs, "cocotb")
            row["cocotb_cycles"] = stats["cycles"]
            row["cocotb_cycles_per_s"] = stats["cycles"] / stats["wall_seconds"]
            progress.step(f"{design.name}: cocotb")
        rows.append(row)
    return rows


def _check(design, dut, workload, outputs, simulator):
    equal, _ = design.check(dut, workload, outputs)
    if not equal:
        raise AssertionError(f"{design.name}: the {simulator} simulation differs from the "
                             f"bit-exact model")


def format_sim_bench(rows):
    """A Markdown table of :func:`bench_sim` rows."""
    simulators = [s for s in SIMULATORS if any(f"{s}_cycles_per_s" in row for row in rows)]
    cocotb = any("cocotb_cycles_per_s" in row for row in rows)
    head = ["design", "width", "fold", "latency", "interval", "Amaranth (cycles/s)"]
    if cocotb:
        head.append("cocotb + Verilator (cycles/s)")
    for simulator in simulators:
        head += [f"{simulator} build (s)", f"{simulator} (cycles/s)", "speed-up"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [row["design"], row["width"], row["fold"] or "—", row["latency"],
                 row["interval"], f"{row['amaranth_cycles_per_s']:,.0f}"]
        if cocotb:
            cells.append(f"{row['cocotb_cycles_per_s']:,.0f}" if "cocotb_cycles_per_s" in row
                         else "—")
        for simulator in simulators:
            if f"{simulator}_cycles_per_s" not in row:
                cells += ["—"] * 3
                continue
            build = f"{row[f'{simulator}_build_s']:.1f}"
            if row[f"{simulator}_cached"]:
                build += " (cached)"
            speed = row[f"{simulator}_cycles_per_s"]
            cells += [build, f"{speed:,.0f}", f"{speed / row['amaranth_cycles_per_s']:,.0f}x"]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)
