"""``robohw dynamics``: robot states from CSV to joint torques in CSV.

``IN.csv`` has the header ``q1..qN,qd1..qdN,qdd1..qddN`` (rad, rad/s, rad/s^2 for revolute
joints; m, m/s, m/s^2 for prismatic ones; any column order). ``OUT.csv`` has
``tau1..tauN,valid`` (N m or N: what each joint must exert, gravity included). Backend:
``float`` (:mod:`robohw.reference.dynamics`, by the ``link``, ``scan`` or ``lagrange``
formulation); the hardware backends come with the dynamics hardware.
"""

import numpy as np

from robohw.io.csv_table import read_columns, write_rows
from robohw.reference.dynamics import FORMULATIONS, inverse_dynamics

__all__ = ["read_states", "write_torques", "solve_dynamics", "BACKENDS"]

BACKENDS = ("float",)


def read_states(path, dof):
    """``(q, qd, qdd)``, each ``(rows, dof)``, from a CSV file (see the module docstring)."""
    names = [f"{kind}{k}" for kind in ("q", "qd", "qdd") for k in range(1, dof + 1)]
    values = read_columns(path, names)
    return values[:, :dof], values[:, dof:2 * dof], values[:, 2 * dof:]


def write_torques(path, tau, valid):
    """Write ``OUT.csv`` atomically: a failure leaves no file behind."""
    header = [f"tau{k}" for k in range(1, tau.shape[1] + 1)] + ["valid"]
    write_rows(path, header, ([*map(float, row), int(ok)] for row, ok in zip(tau, valid)))


def solve_dynamics(robot, q, qd, qdd, backend="float", formulation="link", wrench=None):
    """``(tau, valid)`` of the states by ``backend`` and ``formulation``."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if formulation not in FORMULATIONS:
        raise ValueError(f"formulation must be one of {', '.join(FORMULATIONS)}, not "
                         f"{formulation!r}")
    tau = inverse_dynamics(robot, q, qd, qdd, formulation, wrench)
    return tau, np.isfinite(tau).all(-1)
