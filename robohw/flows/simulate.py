"""``robohw sim``: one design, one backend, a seeded workload, an optional waveform.

Backends: ``amaranth`` (the Python simulator, cycle by cycle), ``compiled`` (the design compiled
by Verilator, :mod:`robohw.sim.compiled`), ``verilator`` (the exported Verilog under cocotb +
Verilator) and ``model`` (the bit-exact model alone: no cycles). Each
simulated run is checked against the bit-exact model and measured against float64.
"""

import contextlib
import pathlib
import shutil
import tempfile

from robohw.hw.checks import check_choice, check_positive_integer
from robohw.registry import design as find_design
from robohw.sim.compiled import run_stream_compiled
from robohw.sim.harness import run_stream
from robohw.sim.measure import measure_timing
from robohw.sim.verilator import run_stream_verilator
from robohw.support.atomic import atomic_open
from robohw.support.progress import Progress

__all__ = ["BACKENDS", "simulate"]

BACKENDS = ("amaranth", "compiled", "verilator", "model")


@contextlib.contextmanager
def _waveform(vcd):
    """A path for a tool that writes the waveform itself (Verilator), copied to ``vcd`` as
    every output is written (robohw.support.atomic) when the run succeeds; ``None`` for none."""
    if vcd is None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="robohw-vcd-") as folder:
        written = pathlib.Path(folder) / "waveform.vcd"
        yield str(written)
        with open(written, "rb") as source, atomic_open(vcd, binary=True) as target:
            shutil.copyfileobj(source, target)


def simulate(name, backend="amaranth", width=None, count=32, seed=0, vcd=None, stream=None,
             fold=None, robot=None, base=None, tip=None):
    """Run design ``name`` (folded by ``fold``, default the design's; a design without a
    fold ignores it; generated for ``robot``, a robot file or shipped name with a URDF's
    ``base`` and ``tip``, when given: :func:`robohw.registry.design`); return a dict of what
    was measured. Progress goes to ``stream`` (default stderr, when it is a terminal)."""
    check_choice("backend", backend, BACKENDS)
    if vcd is not None and backend == "model":
        raise ValueError("--vcd needs a simulated backend (amaranth, compiled or verilator), "
                         "not model")
    check_positive_integer("count", count)
    design = find_design(name, robot, base=base, tip=tip)
    width = design.check_width(design.default_width if width is None else width)
    dut = design.build(width, fold)
    workload = design.workload(dut, count, seed)
    result = {"design": name, "backend": backend, "width": width, "fold": design.fold_of(dut),
              **({} if design.robot_record is None else {"robot": design.robot_record}),
              "configuration": design.configuration(dut), "results": len(workload.payloads),
              "stated_latency": dut.latency, "stated_interval": dut.interval}
    if backend == "model":
        outputs = None
    elif backend == "amaranth":
        progress = Progress(len(workload.payloads), stream)
        # The waveform is written as every output is (robohw.support.atomic).
        with atomic_open(vcd) if vcd is not None else contextlib.nullcontext() as file:
            run = run_stream(dut, workload.payloads, vcd=file,
                             on_result=lambda done: progress.update(done, f"{name} results"))
        outputs, inputs_at, outputs_at = run.outputs, run.input_cycles, run.output_cycles
    elif backend == "compiled":
        bar = Progress(1, stream)
        with _waveform(vcd) as written:
            run = run_stream_compiled(dut, workload.payloads, vcd=written,
                                      identity=design.identity(dut),
                                      say=lambda step: bar.update(
                                          0, f"{name}: compiled model: {step}", force=True))
        outputs, inputs_at, outputs_at = run.outputs, run.input_cycles, run.output_cycles
        result["cycles_per_second"] = round(run.cycles / max(run.wall_seconds, 1e-9))
    else:
        Progress(1, stream).update(0, f"{name}: Verilator builds the model (a large design "
                                      f"takes minutes; kept in the cache)", force=True)
        with _waveform(vcd) as written:
            outputs, stats = run_stream_verilator(dut, workload.payloads,
                                                  name=design.module_name, vcd=written)
        inputs_at, outputs_at = stats["input_cycles"], stats["output_cycles"]
    if outputs is None:
        outputs = design.model_outputs(dut, workload)
    else:
        timing = measure_timing(inputs_at, outputs_at)
        result["latency"], result["interval"] = timing.latency, timing.interval
    equal, errors = design.check(dut, workload, outputs)
    result.update({"equals_model": equal, "max_error": float(errors.max()),
                   "error_unit": design.error_unit})
    if vcd is not None:
        result["vcd"] = str(vcd)
    return result
