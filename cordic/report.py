"""The CORDIC part of ``robohw report``: accuracy of every mode against float64, the residual
scale error of every normalization, and the benchmark, as Markdown and JSON."""

import json
import pathlib

import numpy as np

from robohw.cordic.accuracy import (
    MEANINGFUL_OUTPUTS,
    error_bound_lsb,
    measure_error,
    output_errors,
    sample_inputs,
)
from robohw.cordic.bench import bench_cordic, format_bench
from robohw.cordic.config import CordicConfig, Direction, Normalization, System
from robohw.cordic.model import cordic_model
from robohw.support.formats import versioned
from robohw.support.progress import Progress

__all__ = ["accuracy_table", "format_accuracy_summary", "format_accuracy", "write_cordic_report",
           "cordic_error_panel"]


def _configs():
    for system in System:
        for direction in Direction:
            for normalization in Normalization:
                if system is System.LINEAR and normalization is not Normalization.INTERLEAVED:
                    continue  # gain 1: every normalization is the same program
                yield system, direction, normalization


def accuracy_table(widths=(16, 24, 32), count=100_000, stream=None):
    """Rows of measured error (output LSBs) per mode, normalization and width."""
    configs = list(_configs())
    progress = Progress(len(widths), stream)
    rows = []
    for width in widths:
        for system, direction, normalization in configs:
            config = CordicConfig(system, direction, width=width, normalization=normalization)
            result = measure_error(config, count=count, seed=width)
            for name in MEANINGFUL_OUTPUTS[(system, direction)]:
                rows.append({
                    "mode": f"{system.name.lower()} {direction.value}",
                    "normalization": normalization.value, "width": width, "output": name,
                    "iterations": config.iterations, "guard_bits": config.guard_bits,
                    "steps": len(config.steps), "scale_error": config.scale_error,
                    "max_lsb": result[name]["max"], "rms_lsb": result[name]["rms"],
                    "bound_lsb": error_bound_lsb(config, name), "vectors": count,
                    "domain_errors": result["domain_errors"], "overflows": result["overflows"],
                })
        progress.step(f"accuracy at width {width}")
    return rows


def format_accuracy_summary(rows):
    """One line per mode: the worst max and RMS error over widths and normalizations."""
    head = ["mode", "outputs", "widths", "max error (LSB)", "RMS error (LSB)",
            "stated bound (LSB)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for mode in dict.fromkeys(r["mode"] for r in rows):
        mine = [r for r in rows if r["mode"] == mode]
        outputs = ", ".join(dict.fromkeys(r["output"] for r in mine))
        widths = ", ".join(str(w) for w in dict.fromkeys(r["width"] for r in mine))
        lines.append(f"| {mode} | {outputs} | {widths} | {max(r['max_lsb'] for r in mine):.3f} | "
                     f"{max(r['rms_lsb'] for r in mine):.3f} | {mine[0]['bound_lsb']} |")
    return "\n".join(lines)


def format_accuracy(rows):
    head = ["mode", "normalization", "width", "output", "steps", "max error (LSB)",
            "RMS error (LSB)", "stated bound (LSB)", "scale error"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        scale = "gain kept" if r["normalization"] == "none" else f"{r['scale_error']:.1e}"
        lines.append(f"| {r['mode']} | {r['normalization']} | {r['width']} | {r['output']} | "
                     f"{r['steps']} | {r['max_lsb']:.3f} | {r['rms_lsb']:.3f} | "
                     f"{r['bound_lsb']} | {scale} |")
    return "\n".join(lines)


def write_cordic_report(out_dir, *, quick=False, verilator=True, stream=None):
    """Measure, write ``cordic.md`` and ``cordic.json`` into ``out_dir``, return the Markdown."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    widths = (16, 24) if quick else (16, 24, 32)
    accuracy = accuracy_table(widths, count=20_000 if quick else 100_000, stream=stream)
    bench = bench_cordic(widths, verilator=verilator, stream=stream,
                         verilator_results=2_000 if quick else 20_000)
    worst = max(r["max_lsb"] for r in accuracy if r["mode"].startswith("circular"))
    text = "\n\n".join([
        "# CORDIC processors",
        f"Error of the bit-exact model against float64 over {accuracy[0]['vectors']:,} random "
        "vectors per row, in output LSBs (binary-angle LSBs for circular angles), default "
        "iterations and guard bits, round half to even. Input domains: `sim/cordic_accuracy.py`. "
        f"Worst circular error: {worst:.3f} LSB.",
        format_accuracy_summary(accuracy),
        "Every mode, normalization and width:",
        format_accuracy(accuracy),
        "## Latency, throughput and simulation speed",
        "Circular rotation, default parameters. Latency and interval are measured in the "
        "Amaranth simulation (equal to the `latency`/`interval` properties); simulator speeds "
        "are wall-clock on this machine.",
        format_bench(bench),
    ]) + "\n"
    (out_dir / "cordic.md").write_text(text)
    data = versioned({"accuracy": accuracy, "bench": bench})
    (out_dir / "cordic.json").write_text(json.dumps(data, indent=1))
    return text


def cordic_error_panel(quick=False):
    """The CORDIC panel of the report's error histograms: circular rotation's x and y errors
    (LSB) in the bit-exact model at 16 and 24 bits over 20,000 (``quick``) or 100,000 vectors."""
    count = 20_000 if quick else 100_000
    series = {}
    for width in (16, 24):
        config = CordicConfig("circular", "rotation", width=width)
        x, y, z = sample_inputs(config, count, np.random.default_rng(width))
        errors = output_errors(config, x, y, z, cordic_model(config, x, y, z))
        series[f"{width} bits, x and y"] = np.concatenate(list(errors.values()))
    return "CORDIC circular rotation (bit-exact model)", "LSB", series


def write_section(out_dir, rows, *, quick=False, verilator=False, stream=None):
    """The report's CORDIC section (:class:`robohw.sim.family.Family`): ``cordic.md`` and
    its JSON; ``rows`` are not needed (the section measures its own)."""
    write_cordic_report(out_dir, quick=quick, verilator=verilator, stream=stream)
    return ("cordic.md",)
