"""One entry for the file commands' hardware backends: a workload through a design in the
Amaranth simulator (``rtl``) or in its compiled model (``compiled``), with progress."""

from robohw.hw.checks import check_choice
from robohw.sim.compiled import run_stream_compiled
from robohw.sim.harness import run_stream

__all__ = ["HARDWARE_BACKENDS", "run_backend"]

# Command-line backend -> simulator of the design's RTL.
HARDWARE_BACKENDS = ("rtl", "compiled")


def run_backend(dut, payloads, backend, label, progress, identity):
    """Run ``payloads`` through ``dut`` by ``backend`` (:data:`HARDWARE_BACKENDS`); returns the
    :class:`~robohw.sim.harness.StreamRun`. ``progress`` has the method
    ``update(done, label, force=False)`` of :class:`robohw.support.progress.Progress` over
    ``len(payloads)``: a line per batch of results (``rtl``), per build step and at the end
    (``compiled``). ``identity``: what determines ``dut`` besides the code (the compiled
    model's cache key, :func:`robohw.sim.compiled.build_compiled`)."""
    check_choice("backend", backend, HARDWARE_BACKENDS)
    if backend == "rtl":
        return run_stream(dut, payloads, on_result=lambda done: progress.update(done, label))
    run = run_stream_compiled(dut, payloads, identity=identity, say=lambda step: progress.update(
        0, f"compiled model: {step}", force=True))
    progress.update(len(payloads), f"{label} in {run.cycles:,} cycles", force=True)
    return run
