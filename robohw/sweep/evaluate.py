"""One measurement of one design, as a worker runs it: a plain function of a
:class:`~robohw.sweep.space.Task`, so a local process or a Dask worker can run it alike.
"""

import functools
import pathlib
import time
import warnings

from amaranth.hdl import UnusedElaboratable

from robohw.flows.synth import SynthTimeout, synthesize
from robohw.registry import DESIGNS
from robohw.registry import design as find_design
from robohw.sim.measure import measure_design
from robohw.sweep.space import point_seed

__all__ = ["FIGURES", "evaluate"]

# The figures each measurement gives, in results.csv's column order.
FIGURES = {
    "accuracy": ("vectors", "max_error", "error_unit"),
    "cycles": ("latency_cycles", "interval_cycles", "register_bits", "equals_model"),
    "synth": ("luts", "carry", "lut_ram", "flip_flops", "dsp", "bram", "fmax_mhz", "latency_us",
              "results_per_us"),
}


def _outcome(figures, valid, reason, seconds):
    return {"figures": figures, "valid": bool(valid), "reason": reason,
            "seconds": round(seconds, 2)}


def _accuracy(design, task, options):
    dut = design.build(task.width, _fold(design, task))
    workload = design.workload(dut, options["vectors"],
                               point_seed(task.design, task.width, task.fold))
    _, errors = design.check(dut, workload, design.model_outputs(dut, workload))
    unit = design.error_unit
    if unit == "LSB":
        # An LSB shrinks as the width grows: in units of the full scale (2**(width - 1)
        # codes), errors at different widths compare.
        errors, unit = errors / 2.0 ** (task.width - 1), "of full scale"
    figures = {"vectors": len(errors), "max_error": float(errors.max()), "error_unit": unit}
    if not len(errors) or not errors.max() < float("inf"):
        return figures, False, "the model's error is not finite"
    return figures, True, None


def _cycles(design, task, options):
    # A design that holds one input for thousands of cycles (Gosselin's machine) shows its
    # latency and interval in three results.
    count = min(options["results"], 3) if design.one_at_a_time else options["results"]
    row = measure_design(design, task.width, count=count,
                         seed=point_seed(task.design, task.width, task.fold),
                         fold=_fold(design, task))
    figures = {"latency_cycles": row["latency"], "interval_cycles": row["interval"],
               "register_bits": row["register_bits"], "equals_model": int(row["equals_model"])}
    if not row["equals_model"]:
        return figures, False, "the simulated outputs differ from the bit-exact model"
    return figures, True, None


def _synth(design, task, options):
    # A folder per device: the exports of one design for two devices may run at once, and
    # an ECP5's Verilog differs from the generic one (its DSP tiles).
    # A point whose place and route runs past the time limit is a point that does not route
    # in time: an invalid row with the reason, not the end of the sweep.
    try:
        row = synthesize(design, task.width, task.device,
                         pathlib.Path(options["work"]) / task.device,
                         fold=_fold(design, task), placer=options.get("placer", "heap"),
                         router=options["router"], target_mhz=options["target_mhz"])
    except SynthTimeout as error:
        return {}, False, f"synth: {str(error).split('; see ')[0]}"
    figures = {name: row.get(name) for name in FIGURES["synth"]}
    if not row["placed"]:
        return figures, False, row.get("note", "not placed")
    return figures, True, None


def _fold(design, task):
    """The fold to build at: ``None`` for a design without one."""
    return None if design.default_fold is None else task.fold


_MEASURE = {"accuracy": _accuracy, "cycles": _cycles, "synth": _synth}


@functools.lru_cache(maxsize=8)
def _design(name, robot, base, tip):
    """The design generated for a robot, once per worker process."""
    return find_design(name, robot, base=base, tip=tip)


def evaluate(task):
    """Run ``task``; return its outcome as plain data (it crosses process and network
    boundaries): ``{"figures": {...}, "valid": bool, "reason": str or None, "seconds": float}``,
    the figures those of :data:`FIGURES` for the task's measurement. A design that cannot be
    built or measured at the task's parameters (a ``ValueError`` from its checks, a robot
    file that no longer loads) is an invalid outcome with the error as its reason; any other
    exception propagates (a defect,
    or a missing tool, to be seen, not tabled)."""
    started = time.perf_counter()
    # An accuracy measurement builds a design only for its model and never elaborates it; the
    # worker (a spawned process, or a Dask worker) has not the command line's filter.
    warnings.filterwarnings("ignore", category=UnusedElaboratable)
    try:
        design = _design(task.design, *task.robot[:3]) if task.robot else DESIGNS[task.design]
        design.check_width(task.width)
        figures, valid, reason = _MEASURE[task.measurement](design, task, task.options)
    except ValueError as error:
        figures, valid, reason = {}, False, str(error).splitlines()[0]
    return _outcome(figures, valid, reason, time.perf_counter() - started)
