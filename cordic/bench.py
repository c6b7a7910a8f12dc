"""CORDIC benchmark: latency and throughput in cycles, and simulation speed of every level.

For each architecture and width (circular rotation, default parameters) it measures, not
assumes: latency and interval in the Amaranth simulation, Amaranth-simulator cycles per
second, Verilator cycles per second (exported Verilog, driven by cocotb: the Python
testbench dominates), and bit-exact-model results per second.
"""

import tempfile
import time

import numpy as np

from robohw.cordic.accuracy import sample_inputs
from robohw.cordic.architectures import ARCHITECTURES
from robohw.cordic.config import CordicConfig
from robohw.cordic.model import cordic_model
from robohw.sim.harness import run_stream
from robohw.sim.measure import measure_timing
from robohw.sim.verilator import run_stream_verilator
from robohw.support.progress import Progress

__all__ = ["bench_cordic", "format_bench"]


def _payloads(config, count, seed):
    x, y, z = sample_inputs(config, count, np.random.default_rng(seed))
    return [{"x": int(a), "y": int(b), "z": int(c), "tag": k % 256}
            for k, (a, b, c) in enumerate(zip(x, y, z))]


def _check(config, payloads, outputs):
    want = cordic_model(config, *(np.array([p[n] for p in payloads]) for n in "xyz"))
    for name in "xyz":
        if [o[name] for o in outputs] != getattr(want, name).tolist():
            raise AssertionError(f"simulation differs from the bit-exact model in {name}")


def bench_cordic(widths=(16, 24, 32), *, amaranth_results=200, verilator_results=20_000,
                 model_results=1_000_000, verilator=True, stream=None):
    """Run the benchmark; return one dict per (architecture, width)."""
    rows = []
    progress = Progress(len(ARCHITECTURES) * len(widths), stream)
    for arch_name, architecture in ARCHITECTURES.items():
        for width in widths:
            config = CordicConfig("circular", "rotation", width=width)
            dut = architecture(config, tag_width=8)
            row = {"architecture": arch_name, "width": width, "iterations": config.iterations,
                   "stated_latency": dut.latency, "stated_interval": dut.interval}

            count = max(8, amaranth_results // dut.interval)
            payloads = _payloads(config, count, width)
            run = run_stream(dut, payloads)
            _check(config, payloads, run.outputs)
            timing = measure_timing(run.input_cycles, run.output_cycles)
            row["latency"], row["interval"] = timing.latency, timing.interval
            row["amaranth_cycles_per_s"] = run.cycles / run.wall_seconds

            if verilator:
                count = max(8, verilator_results // dut.interval)
                payloads = _payloads(config, count, width + 1)
                with tempfile.TemporaryDirectory(prefix="robohw-bench-") as build_dir:
                    started = time.perf_counter()
                    outputs, stats = run_stream_verilator(
                        architecture(config, tag_width=8), payloads, name="cordic",
                        build_dir=build_dir, optimize=True)
                    row["verilator_build_s"] = time.perf_counter() - started - stats["wall_seconds"]
                _check(config, payloads, outputs)
                row["verilator_cycles_per_s"] = stats["cycles"] / stats["wall_seconds"]

            x, y, z = sample_inputs(config, model_results, np.random.default_rng(0))
            started = time.perf_counter()
            cordic_model(config, x, y, z)
            row["model_results_per_s"] = model_results / (time.perf_counter() - started)
            rows.append(row)
            progress.step(f"{arch_name} width {width}")
    return rows


def format_bench(rows):
    """A Markdown table of :func:`bench_cordic` rows."""
    has_verilator = any("verilator_cycles_per_s" in row for row in rows)
    head = ["architecture", "width", "iterations", "latency (cycles)", "interval (cycles)",
            "Amaranth sim (cycles/s)"]
    if has_verilator:
        head.append("Verilator + cocotb (cycles/s)")
    head.append("bit-exact model (results/s)")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [row["architecture"], row["width"], row["iterations"], row["latency"],
                 row["interval"], f"{row['amaranth_cycles_per_s']:,.0f}"]
        if has_verilator:
            cells.append(f"{row.get('verilator_cycles_per_s', float('nan')):,.0f}")
        cells.append(f"{row['model_results_per_s']:,.0f}")
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)
