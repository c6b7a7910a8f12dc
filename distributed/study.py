"""One run of the thesis's experiment: a trajectory at a duration, a scheme, the torques at
every sample beside the exact ones, the error per joint and the cycles per sample; and the
thesis's tables regenerated from such runs.

Schemes are those of :data:`~robohw.distributed.prediction.SCHEMES` and ``bejczy``, the thesis's
baseline (:mod:`robohw.distributed.simplified_dynamics`), which is not a link-computer scheme and
has no cycles per sample.

Backends (:data:`BACKENDS`): ``float`` (the float64 link computers,
:mod:`robohw.distributed.prediction`; cycles per sample from the schedule), ``model`` (the
bit-exact model, :mod:`robohw.distributed.model`; the plan's cycles), ``rtl`` and
``compiled`` (:class:`~robohw.distributed.machine.LinkComputers` in the Amaranth simulator or
compiled by Verilator, run by the caller; the cycles measured between consecutive states). The
hardware backends start from reset with the first state repeated until the predictions are exact
(:func:`~robohw.distributed.model.warm_up`), so every backend's first sample is the thesis's
exact one; ``model``, ``rtl`` and ``compiled`` give the same bits.
"""

from dataclasses import dataclass

import numpy as np

from robohw.distributed.machine import LinkComputers
from robohw.distributed.model import model_torques, prediction_depth, warm_up
from robohw.distributed.plan import shared_plan
from robohw.distributed.prediction import SCHEMES, error_percent, scheme_torques
from robohw.distributed.simplified_dynamics import bejczy_torques
from robohw.distributed.thesis import (
    DURATIONS,
    PRINTED_TABLES,
    TABLE_SCHEMES,
    VIA_Q6,
    check_trajectory_fits,
    sample_trajectory,
)
from robohw.distributed.timing import schedule
from robohw.dynamics.inverse.codec import decode_torques, encode_states
from robohw.hw.checks import check_choice
from robohw.support.validity import finite_rows, keep_valid

__all__ = ["RUN_SCHEMES", "BACKENDS", "Run", "run_study", "table_rows"]

RUN_SCHEMES = (*SCHEMES, "bejczy")
BACKENDS = ("float", "model", "rtl", "compiled")


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


def run_study(robot, trajectory, duration, scheme, *, backend="float", via_q6=VIA_Q6,
              width=48, hardware=None):
    """The :class:`Run` of ``scheme`` on ``robot`` along the thesis's ``trajectory`` (1 or 2)
    at ``duration`` seconds by ``backend`` (:data:`BACKENDS`; ``width`` bits for all but
    ``float``). ``rtl`` and ``compiled`` need ``hardware``: a function of ``(dut, codes)``
    running the payload codes through the design by that backend and returning ``(torque
    codes by joint, valid flags, measured cycles per sample)`` (the command line's, with its
    progress: :mod:`robohw.distributed.files`)."""
    check_choice("scheme", scheme, RUN_SCHEMES)
    check_choice("backend", backend, BACKENDS)
    if scheme == "bejczy" and backend != "float":
        raise ValueError("scheme 'bejczy' (Bejczy's simplified model, the thesis's baseline) "
                         "runs on the float backend only: it is not a link-computer scheme")
    t, q, qd, qdd = sample_trajectory(trajectory, duration, via_q6=via_q6)
    check_trajectory_fits(robot, q)
    with np.errstate(all="ignore"):     # a torque beyond float64 is never valid (below)
        tau, exact, valid, cycles = _torques(robot, scheme, backend, width, hardware, q, qd,
                                             qdd)
    # Not finite, the scheme's or the exact torque: never valid, zeros (docs/conventions.md).
    valid = valid & finite_rows(tau, exact)
    tau, exact = keep_valid(tau, valid), np.where(finite_rows(exact)[:, None], exact, 0.0)
    return Run(trajectory, float(duration), scheme, backend, t, tau, exact, valid,
               tuple(error_percent(tau[valid], exact[valid])), cycles)


def _torques(robot, scheme, backend, width, hardware, q, qd, qdd):
    """``(tau, exact, valid, cycles)`` of :func:`run_study`."""
    exact = scheme_torques(robot, q, qd, qdd, "serial")
    valid = np.ones(len(q), dtype=bool)
    if scheme == "bejczy":
        tau, cycles = bejczy_torques(robot, q, qd, qdd), None
    elif backend == "float":
        tau, cycles = scheme_torques(robot, q, qd, qdd, scheme), schedule(scheme, 6).cycles
    elif backend == "model":
        plan = shared_plan(robot, scheme, width)
        tau, valid = model_torques(plan, q, qd, qdd)
        cycles = schedule(scheme, 6, term_cycles=plan.term_cycles).cycles
    else:
        dut = LinkComputers(robot, scheme=scheme, width=width)
        depth = prediction_depth(dut.plan)
        out, valid, cycles = hardware(dut, warm_up(encode_states(dut.plan, q, qd, qdd),
                                                   depth))
        valid = valid[depth:]
        tau = decode_torques(dut.plan, {k: v[depth:] for k, v in out.items()})
    return tau, exact, valid, cycles


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
    return [((trajectory, duration),
             run_study(robot, trajectory, duration, scheme).error_percent,
             printed[trajectory, duration]) for trajectory, duration in printed]
