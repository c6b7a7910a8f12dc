"""Latency and interval measured from a simulation, and the measured row of one design.

Every figure here comes from the cycles at which transfers happened, never from the design's
own properties: the report and ``robohw sim`` print both, and a difference shows.
"""

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from amaranth.hdl import Fragment

from robohw.sim.cache import cache_dir
from robohw.sim.compiled import source_digest
from robohw.sim.harness import run_stream
from robohw.sim.resources import register_bits

__all__ = ["Timing", "measure_timing", "measure_design", "measured_design", "stated_design"]


@dataclass(frozen=True)
class Timing:
    """``latency``: cycles from the first input transfer to the first output transfer;
    ``interval``: cycles per result, the longest time any three consecutive output transfers
    spanned over two (a design that sends its results in pairs, such as the word-serial IK,
    sends one per half period; with two results, their gap; ``None`` with one), an ``int``
    (a ``float`` when the span is odd); ``throughput``: ``1 / interval``."""
    latency: int
    interval: "int | float | None"

    @property
    def throughput(self):
        return 1 / Fraction(self.interval).limit_denominator(2) if self.interval else None


def measure_timing(input_cycles, output_cycles):
    """The :class:`Timing` of one run from the cycles of its input and output transfers."""
    if not input_cycles or not output_cycles:
        raise ValueError("a timing needs at least one input and one output transfer")
    interval = None
    if len(output_cycles) > 1:
        window = min(2, len(output_cycles) - 1)
        span = np.subtract(output_cycles[window:], output_cycles[:-window]).max()
        interval = int(span) // window if span % window == 0 else float(span) / window
    return Timing(output_cycles[0] - input_cycles[0], interval)


def measure_design(design, width=None, count=32, seed=0, vcd=None, fold=None):
    """Simulate ``design`` (a :class:`robohw.sim.design.Design`, folded by ``fold``: default the
    design's) in Amaranth on a seeded workload of ``count`` results; return its row: stated
    and measured latency and interval, equality with the bit-exact model, max error against
    float64 beside the design's proven bound in the same unit (``None`` where it states none;
    :meth:`~robohw.sim.design.Design.error_bound`), structure, register bits and the
    simulator's speed."""
    dut = design.build(width, fold)
    workload = design.workload(dut, count, seed)
    fragment = Fragment.get(dut, None)     # elaborated once: counted, then simulated
    bits = register_bits(fragment)
    run = run_stream(dut, workload.payloads, vcd=vcd, fragment=fragment)
    equal, errors = design.check(dut, workload, run.outputs)
    label, value = design.structure(dut)
    timing = measure_timing(run.input_cycles, run.output_cycles)
    return {
        "design": design.name, "family": design.family,
        "configuration": design.configuration(dut), "width": width or design.default_width,
        "fold": design.fold_of(dut), "results": len(run.outputs), "stated_latency": dut.latency,
        "latency": timing.latency,
        "stated_interval": dut.interval, "interval": timing.interval,
        "throughput": str(timing.throughput) if timing.interval else None,
        "equals_model": equal, "max_error": float(errors.max()), "error_unit": design.error_unit,
        "error_bound": design.error_bound(dut, workload),
        "structure": label, "structure_count": value, "register_bits": bits,
        "amaranth_cycles_per_s": run.cycles / run.wall_seconds, "simulated": True,
    }


def measured_design(design, width=None, count=32, seed=0, fold=None):
    """:func:`measure_design`'s row for a design of the registry (:mod:`robohw.registry`, whose
    names name designs), kept in ``measured`` in the user's cache folder
    (:mod:`robohw.sim.cache`) and keyed by the design's name and summary, ``width``, ``fold``,
    ``count``, ``seed`` and the source of robohw's code and robots
    (:func:`robohw.sim.compiled.source_digest`): any change to them simulates again; the same
    code finds the row it measured, the simulator's speed included."""
    key = hashlib.sha256(json.dumps([design.name, design.summary, width, fold, count, seed,
                                     source_digest()]).encode()).hexdigest()[:24]
    path = cache_dir("measured") / f"{key}.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        pass
    row = measure_design(design, width, count, seed, fold=fold)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False) as f:
        json.dump(row, f)
    os.replace(f.name, path)        # atomic: two processes measuring one row agree
    return row


def stated_design(design, width=None):
    """The row of :func:`measure_design` for ``design`` not simulated: what it states (latency,
    interval, configuration, structure, register bits), every measured figure ``None`` and
    ``simulated`` false."""
    dut = design.build(width)
    label, value = design.structure(dut)
    return {
        "design": design.name, "family": design.family,
        "configuration": design.configuration(dut), "width": width or design.default_width,
        "fold": design.fold_of(dut), "results": 0, "stated_latency": dut.latency,
        "latency": None, "stated_interval": dut.interval, "interval": None, "throughput": None,
        "equals_model": None, "max_error": None, "error_unit": design.error_unit,
        "error_bound": None,
        "structure": label, "structure_count": value,
        "register_bits": register_bits(Fragment.get(dut, None)), "simulated": False,
    }
