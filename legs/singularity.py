"""The one singularity rule of the platform commands (``ik``, ``jacobian``, ``dynamics``,
``fk``), scaled to each backend's precision.

Near a singularity the platform's matrix ``K / rho`` loses rank: a small error in a leg's
length or row moves the pose, or the actuators' forces, by the condition number ``cond`` times
as much, relative to their scale. A row is ``near_singular`` when

    ``cond * unit_error > SINGULARITY_ACCURACY``  (1e-3),

so every row marked valid keeps the backend's own error, amplified by the conditioning, within
a thousandth of its scale. ``unit_error`` is the backend's relative precision:

- ``float``: float64's ``2**-52``; for forward kinematics the larger of that and the
  tolerance its Newton iteration stops at, relative to the shortest leg (a residual of
  ``tolerance`` m moves the pose by ``cond`` times as much);
- the hardware backends (``model``, ``rtl``, ``compiled``) at ``width`` bits: one LSB of a
  full-scale value, ``2**(1 - width)``.

So the float backend flags rows beyond a condition number of 4.5e12 (forward kinematics at its
default tolerance, 1e-12 m over the hexapod's shortest legs, 0.45 m: 4.5e8); 24-bit hardware
beyond 8,389; 16-bit beyond 33. Toward a singularity the true forces grow without bound: a
valid row's huge forces are the right ones, to the rule's promise. ``--max-cond``
(``max_cond``) replaces the rule's limit on every platform command. The condition number is
the float64 one of the row's pose (for ``fk``, the pose found), whichever backend computes
the row.
"""

import numpy as np

__all__ = ["SINGULARITY_ACCURACY", "FLOAT_UNIT_ERROR", "unit_error", "condition_limit",
           "condition_numbers"]

# What cond * unit_error may reach: results within about a thousandth of their scale.
SINGULARITY_ACCURACY = 1e-3
# float64's relative precision (its machine epsilon).
FLOAT_UNIT_ERROR = 2.0 ** -52


def unit_error(backend, width=None, *, tolerance=None, shortest=None):
    """The relative precision of ``backend`` (see the module docstring): ``width`` bits for a
    hardware backend; ``tolerance`` (m) over the ``shortest`` leg (m) for float forward
    kinematics."""
    if backend != "float":
        return 2.0 ** (1 - width)
    if tolerance is None:
        return FLOAT_UNIT_ERROR
    return max(FLOAT_UNIT_ERROR, tolerance / shortest)


def condition_limit(backend, width=None, *, tolerance=None, shortest=None, max_cond=None):
    """The largest condition number a valid row may have: ``max_cond`` if given, else
    :data:`SINGULARITY_ACCURACY` over :func:`unit_error`."""
    if max_cond is not None:
        return max_cond
    return SINGULARITY_ACCURACY / unit_error(backend, width, tolerance=tolerance,
                                             shortest=shortest)


def condition_numbers(rows):
    """The 2-norm condition numbers of ``(N, legs, columns)`` matrices (``inf`` where one is
    singular or not finite)."""
    rows = np.asarray(rows, dtype=float)
    if not len(rows):
        return np.zeros(0)
    finite = np.isfinite(rows).all((1, 2))
    out = np.full(len(rows), np.inf)
    with np.errstate(all="ignore"):
        out[finite] = np.linalg.cond(rows[finite])
    return np.where(np.isfinite(out), out, np.inf)
