"""``robohw distributed``'s torque file: one row per sample of the trajectory."""

from robohw.io.csv_table import write_rows

__all__ = ["write_run"]


def write_run(path, run):
    """``t,tau1..tauN,exact1..exactN,valid`` of a :class:`robohw.distributed.study.Run`
    (seconds; N m, or N at a prismatic joint), atomically."""
    n = run.tau.shape[1]
    header = ["t", *(f"tau{k}" for k in range(1, n + 1)),
              *(f"exact{k}" for k in range(1, n + 1)), "valid"]
    write_rows(path, header, ([float(t), *map(float, tau), *map(float, exact), int(ok)]
                              for t, tau, exact, ok in zip(run.t, run.tau, run.exact,
                                                           run.valid)))
