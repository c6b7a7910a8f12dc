"""Which rows of a computation are valid, and why the others are not, by the one rule every
command, backend and API call follows (docs/conventions.md): a value that is not finite is
never marked valid, and ``not_finite`` comes before every other reason.

A solver names its failures in its own precedence order (``out_of_format`` before
``outside_limits``, say); :func:`row_reasons` puts ``not_finite`` (any input or output value
of the row not finite) first, and gives ``valid`` and ``reason`` per row. :func:`finite_rows`
tells the rows a solver may compute: the others are computed as zeros (a hardware backend's
format cannot hold a NaN) and then marked ``not_finite``.
"""

import numpy as np

__all__ = ["NOT_FINITE", "OK", "finite_rows", "row_reasons", "keep_valid", "real_values"]

OK = "ok"
NOT_FINITE = "not_finite"


def real_values(name, values):
    """``values`` as a float64 array: ``TypeError`` naming ``name`` for complex values, or
    values of no number type (an object array, strings), which no cast makes real."""
    array = np.asarray(values)
    if array.dtype.kind not in "biuf":
        kind = "complex numbers" if array.dtype.kind == "c" else f"{array.dtype} values"
        raise TypeError(f"{name} must hold real numbers, not {kind}")
    return array.astype(np.float64)


def finite_rows(*arrays):
    """``(rows,)`` bool: the rows whose every value, in every one of ``arrays`` (each rows
    first, any shape after), is finite."""
    arrays = [np.asarray(a) for a in arrays]
    finite = np.ones(len(arrays[0]), dtype=bool)
    for values in arrays:
        finite &= np.isfinite(values).all(axis=tuple(range(1, values.ndim)))
    return finite


def row_reasons(count, failures):
    """``(valid, reason)`` of ``count`` rows: ``failures`` is a list of ``(reason, rows)``,
    ``rows`` a ``(count,)`` bool mask of the rows that fail for ``reason``, in precedence order
    (the first that applies is the row's reason); a row no failure names is ``valid`` and
    ``ok``. ``reason`` is an object array (the strings the CSV files' ``reason`` column
    holds)."""
    reason = np.full(count, OK, dtype=object)
    valid = np.ones(count, dtype=bool)
    for name, rows in reversed(failures):
        rows = np.asarray(rows, dtype=bool)
        reason[rows] = name
        valid &= ~rows
    return valid, reason


def keep_valid(values, valid):
    """``values`` (rows first) with every row that is not ``valid`` zeros, as the files and
    the API write such rows."""
    values = np.asarray(values, dtype=np.float64)
    return np.where(valid.reshape((-1,) + (1,) * (values.ndim - 1)), values, 0.0)
