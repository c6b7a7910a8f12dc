"""One run of the thesis's experiment: a trajectory at a duration, a scheme, the torques at
every sample beside the exact ones, the error per joint and the cycles per sample; and the
thesis's tables regenerated from such runs.

Schemes are those of :data:`~robohw.reference.prediction.SCHEMES` and ``bejczy``, the thesis's
baseline (:mod:`robohw.reference.simplified_dynamics`), which is not a link-computer scheme and
has no cycles per sample.
"""

from dataclasses import dataclass

import numpy as np

from robohw.distributed.thesis import (DURATIONS, PRINTED_TABLES, TABLE_SCHEMES, VIA_Q6,
                                       sample_trajectory)
from robohw.distributed.timing import schedule
from robohw.reference.prediction import SCHEMES, error_percent, scheme_torques
from robohw.reference.simplified_dynamics import bejczy_torques

__all__ = ["RUN_SCHEMES", "Run", "run", "table_rows"]

RUN_SCHEMES = (*SCHEMES, "bejczy")


@dataclass(frozen=True)
class Run:
    """``t`` (K,), the scheme's torques ``tau`` and the exact ``exact`` (K, N), ``valid``
    (K,) (a hardware backend's sample outside its proven ranges is not), the thesis's
    ``error_percent`` per joint over the valid samples, ``cycles_per_sample`` (``None`` for
    ``bejczy``)."""
    trajectory: int
    duration: float
    scheme: str
    backend: str
    t: np.ndarray
    tau: np.ndarray
    exact: np.ndarray
    valid: np.ndarray
    error_percent: tuple
    cycles_per_sample: "int | None"

    def as_json(self):
        return {"trajectory": self.trajectory, "duration": self.duration,
                "scheme": self.scheme, "backend": self.backend,
                "error_percent": [float(e) for e in self.error_percent],
                "cycles_per_sample": self.cycles_per_sample}


def run(robot, trajectory, duration, scheme, *, backend="float", via_q6=VIA_Q6):
    """The :class:`Run` of ``scheme`` on ``robot`` along the thesis's ``trajectory`` (1 or 2)
    at ``duration`` seconds."""
    if scheme not in RUN_SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(RUN_SCHEMES)}, not {scheme!r}")
    if backend != "float":
        raise ValueError(f"backend must be float, not {backend!r}")
    if robot.dof != 6:
        raise ValueError(f"{robot.source or robot.name}: the thesis's trajectories move six "
                         f"joints, not {robot.dof}")
    t, q, qd, qdd = sample_trajectory(trajectory, duration, via_q6=via_q6)
    exact = scheme_torques(robot, q, qd, qdd, "serial")
    if scheme == "bejczy":
        tau, cycles = bejczy_torques(robot, q, qd, qdd), None
    else:
        tau, cycles = scheme_torques(robot, q, qd, qdd, scheme), schedule(scheme, 6).cycles
    valid = np.ones(len(t), dtype=bool)
    return Run(trajectory, float(duration), scheme, backend, t, tau, exact, valid,
               tuple(error_percent(tau[valid], exact[valid])), cycles)


def table_rows(robot, table):
    """The thesis's table ``table`` (``"6.1"`` .. ``"6.6"``) regenerated: ``[((trajectory,
    duration), ours, printed)]``, ``ours`` the six errors (float64) and ``printed`` the
    thesis's six values."""
    scheme, number = TABLE_SCHEMES[table]
    printed = PRINTED_TABLES[table]
    if number is not None:
        keys = [(number, d) for d in DURATIONS]
        printed = dict(zip(keys, printed))
    else:
        printed = {key: tuple(value for value, _ in cells) for key, cells in printed.items()}
    return [((trajectory, duration), run(robot, trajectory, duration, scheme).error_percent,
             printed[trajectory, duration]) for trajectory, duration in printed]
