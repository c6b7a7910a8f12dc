"""``robohw distributed``'s torque file (one row per sample of the trajectory) and its
hardware backends' runs, with progress."""

import numpy as np

from robohw.dynamics.inverse.codec import torque_codes
from robohw.robots.toml_file import description_identity
from robohw.sim.run import run_backend
from robohw.support.csv_table import write_rows
from robohw.support.progress import Progress

__all__ = ["write_run", "hardware_runner"]


def hardware_runner(backend, progress=None):
    """The ``hardware`` function :func:`robohw.distributed.study.run_study` calls for ``backend``
    (``rtl`` or ``compiled``): the states through the link computers from reset, with
    progress on ``progress`` (a stream: :class:`~robohw.support.progress.Progress`)."""
    def runner(dut, codes):
        count = len(codes["qd1"])
        payloads = [{field: int(value[k]) for field, value in codes.items()}
                    for k in range(count)]
        plan = dut.plan
        identity = (f"distributed {plan.scheme} width={plan.width} issue={plan.issue} "
                    f"latencies={plan.multiplier_latency},{plan.adder_latency} "
                    f"{description_identity(plan.robot)}")
        run = run_backend(dut, payloads, backend, f"states, {dut.interval} cycles each",
                          Progress(count, progress), identity)
        out = torque_codes(dut.plan, run.outputs)
        valid = np.array([o["valid"] for o in run.outputs], dtype=bool)
        cycles = int(np.diff(run.input_cycles).min()) if count > 1 else dut.interval
        return out, valid, cycles
    return runner


def write_run(path, run):
    """``t,tau1..tauN,exact1..exactN,valid`` of a :class:`robohw.distributed.study.Run`
    (seconds; N m, or N at a prismatic joint), atomically."""
    n = run.tau.shape[1]
    header = ["t", *(f"tau{k}" for k in range(1, n + 1)),
              *(f"exact{k}" for k in range(1, n + 1)), "valid"]
    write_rows(path, header, ([float(t), *map(float, tau), *map(float, exact), int(ok)]
                              for t, tau, exact, ok in zip(run.t, run.tau, run.exact,
                                                           run.valid)))
