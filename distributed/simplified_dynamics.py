"""The thesis's baseline: Bejczy's simplified dynamics (T4483-T4576, T7695-T7726), float64.

Bejczy keeps, of ``tau = D(q) qdd + H(q, qd) + G(q)``, the diagonal of the inertia matrix, the
gravity and a few couplings among the first three joints (Paul's ``d12 = d1 q3 cos q2`` and
``d13 = d2 sin q2`` for the Stanford arm) and drops every velocity term. His constants are
illegible in the OCR, so this is our proxy: the exact ``D_ii``, ``G_i``
and coupling entries ``D_ij`` for the pairs of :data:`COUPLINGS` (joints 1-3, both ways), at
each sample. It reproduces the trends and most cells of the thesis's Tables 6.1 and 6.3 to
about 10 % (the report lists every cell).
"""

import numpy as np

from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.systolic.reference import jacobian_inertia

__all__ = ["COUPLINGS", "bejczy_torques"]

# 0-based joint pairs whose inertia coupling the simplified model keeps: joint 1 with 2 and 3,
# joints 2 and 3 with 1 (D12 = D21, D13 = D31 by symmetry).
COUPLINGS = ((0, 1), (0, 2), (1, 0), (2, 0))


def bejczy_torques(robot, q, qd, qdd):
    """``(K, N)`` torques of the simplified model at the samples (``qd`` is not used: the
    model has no velocity terms; it is taken so that every scheme reads one state)."""
    q, qdd = (np.atleast_2d(np.asarray(v, dtype=np.float64)) for v in (q, qdd))
    if robot.dof < 3:
        raise ValueError(f"the simplified model couples joints 1 to 3; {robot.name} has "
                         f"{robot.dof}")
    inertia = jacobian_inertia(robot, q)
    rest = np.zeros_like(q)
    tau = inverse_dynamics(robot, q, rest, rest)                     # G(q)
    tau = tau + np.einsum("bii,bi->bi", inertia, qdd)
    for i, j in COUPLINGS:
        tau[:, i] += inertia[:, i, j] * qdd[:, j]
    return tau
