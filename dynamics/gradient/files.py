"""``robohw dynamics-gradient``: robot states from CSV to the gradient of their joint torques in
CSV.

``IN.csv`` is ``robohw dynamics``' (``q1..qN,qd1..qdN,qdd1..qddN``, any column order).
``OUT.csv`` has ``dtau{i}_dq{j}`` for ``i, j = 1..N`` (row-major: joint ``i``'s torque by joint
``j``'s position), then ``dtau{i}_dqd{j}`` likewise, then ``valid`` (``reason`` last when asked);
N m per rad and N m per rad/s for revolute joints (N per m, per m/s for prismatic ones). The
backend is ``float`` (:mod:`robohw.dynamics.gradient.reference`); the hardware's model is to
come. A state or a gradient that is not finite is ``not_finite``, with zeros.
"""

from dataclasses import dataclass

import numpy as np

from robohw.dynamics.inverse.files import state_rows
from robohw.hw.checks import check_choice
from robohw.support.csv_table import result_header, result_rows
from robohw.support.validity import NOT_FINITE, finite_rows, keep_valid, row_reasons

__all__ = ["GRADIENT_BACKENDS", "GRADIENT_REASONS", "Gradients", "solve_gradient",
           "gradient_header", "gradient_rows"]

GRADIENT_BACKENDS = ("float",)
# The reasons a row can have, in precedence order after "ok" (docs/conventions.md).
GRADIENT_REASONS = ("ok", "not_finite")


@dataclass
class Gradients:
    """What :func:`solve_gradient` gives: ``dq`` and ``dqd``, each ``(rows, N, N)`` (entry
    ``[k, i, j]``: d tau_i / d q_j, or / d qd_j, of state ``k``; zeros where not valid), and per
    row ``valid`` and ``reason``."""
    dq: np.ndarray
    dqd: np.ndarray
    valid: np.ndarray
    reason: np.ndarray


def solve_gradient(robot, q, qd, qdd, backend="float"):
    """The :class:`Gradients` of the states (each ``(rows, N)``) by ``backend``
    (:data:`GRADIENT_BACKENDS`); the reasons by precedence, :data:`GRADIENT_REASONS`."""
    from robohw.dynamics.gradient.reference import inverse_dynamics_gradient
    check_choice("backend", backend, GRADIENT_BACKENDS)
    finite, (q, qd, qdd) = state_rows(robot, q=q, qd=qd, qdd=qdd)
    with np.errstate(all="ignore"):         # a gradient beyond float64 is not_finite
        dq, dqd = inverse_dynamics_gradient(robot, q, qd, qdd)
    valid, reason = row_reasons(len(q), [(NOT_FINITE, ~(finite & finite_rows(dq, dqd)))])
    return Gradients(keep_valid(dq, valid), keep_valid(dqd, valid), valid, reason)


def gradient_header(dof, reasons=False):
    """``OUT.csv``'s header: ``dtau{i}_dq{j}``, then ``dtau{i}_dqd{j}`` (``i`` the torque, ``j``
    the joint, row-major), ``valid`` (and ``reason``)."""
    return result_header([f"dtau{i}_{kind}{j}" for kind in ("dq", "dqd")
                          for i in range(1, dof + 1) for j in range(1, dof + 1)], reasons)


def gradient_rows(dq, dqd, valid, reason=None):
    """``OUT.csv``'s rows, :func:`gradient_header`'s columns (``reason`` when given)."""
    rows = len(dq)
    return result_rows(np.concatenate([dq.reshape(rows, -1), dqd.reshape(rows, -1)], 1),
                       valid, reason)
