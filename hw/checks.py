"""Eager argument checks shared by every layer, with the messages tests match.

The project's rule, as amaranth-soc's: a value of the wrong type raises ``TypeError`` and a
value of the right type out of its range raises ``ValueError`` (Amaranth itself raises
``TypeError`` for some values out of range); the command line turns both into its
one-line errors (:mod:`robohw.commands`).
"""

import math
import numbers

__all__ = ["check_integer", "check_positive_integer", "check_number", "check_choice",
           "check_bool"]


def check_integer(name, value, *, minimum=None, maximum=None):
    """Return ``value`` as a Python ``int`` if it is an integer within ``[minimum, maximum]``.

    Python and numpy integers are integers; ``bool`` is not (``True`` is no width).

    Parameters
    ----------
    name : str
        What the value is, as the message names it (an argument's name).
    value : object
        The value to check.
    minimum, maximum : int or None
        The bounds, inclusive; ``None`` for none.

    Raises
    ------
    TypeError
        ``"{name} must be an integer, not {value!r}"``.
    ValueError
        Out of range: ``"{name} must be a positive integer, not 0"`` (``minimum=1``),
        ``"... a non-negative integer ..."`` (``minimum=0``), ``"... an integer of at least
        {minimum} ..."``, ``"... an integer of at most {maximum} ..."`` or ``"... an integer in
        [{minimum}, {maximum}] ..."``.
    """
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, not {value!r}")
    value = int(value)
    low_ok = minimum is None or value >= minimum
    high_ok = maximum is None or value <= maximum
    if low_ok and high_ok:
        return value
    if maximum is not None and minimum is not None:
        wanted = f"an integer in [{minimum}, {maximum}]"
    elif maximum is not None:
        wanted = f"an integer of at most {maximum}"
    elif minimum == 1:
        wanted = "a positive integer"
    elif minimum == 0:
        wanted = "a non-negative integer"
    else:
        wanted = f"an integer of at least {minimum}"
    raise ValueError(f"{name} must be {wanted}, not {value!r}")


def check_number(name, value, *, minimum=None, above=None, below=None, unit=None):
    """Return ``value`` as a ``float`` if it is a finite real number within the bounds.

    Python and numpy reals and integers are numbers; ``bool`` is not.

    Parameters
    ----------
    name : str
        What the value is, as the message names it.
    value : object
        The value to check.
    minimum : float or None
        Inclusive lower bound.
    above, below : float or None
        Exclusive bounds.
    unit : str or None
        The unit the message names (``"a positive number of seconds"``).

    Raises
    ------
    TypeError
        ``"{name} must be a number, not {value!r}"``.
    ValueError
        Not finite or out of range: ``"{name} must be a positive number, not 0"``
        (``above=0``), ``"... a non-negative number ..."`` (``minimum=0``), ``"... a number in
        ({above}, {below}) ..."``, ``"... a number of at least {minimum} ..."``, and so on.
    """
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a number, not {value!r}")
    number = float(value)
    if math.isfinite(number) and (minimum is None or number >= minimum) and \
            (above is None or number > above) and (below is None or number < below):
        return number
    of = f" of {unit}" if unit else ""
    if above is not None and below is not None:
        wanted = f"a number{of} in ({above:g}, {below:g})"
    elif below is not None:
        wanted = f"a number{of} below {below:g}"
    elif above == 0:
        wanted = f"a positive number{of}"
    elif above is not None:
        wanted = f"a number{of} above {above:g}"
    elif minimum == 0:
        wanted = f"a non-negative number{of}"
    elif minimum is not None:
        wanted = f"a number{of} of at least {minimum:g}"
    else:
        wanted = f"a finite number{of}"
    raise ValueError(f"{name} must be {wanted}, not {value!r}")


def check_positive_integer(name, value):
    """Return ``value`` as an ``int`` if it is an integer of at least 1
    (:func:`check_integer` with ``minimum=1``)."""
    return check_integer(name, value, minimum=1)


def check_choice(name, value, choices):
    """Return ``value`` if it is one of ``choices``; raise ``ValueError``
    ``"{name} must be one of a, b, c, not {value!r}"`` otherwise."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(str, choices))}, "
                         f"not {value!r}")
    return value


def check_bool(name, value):
    """Return ``value`` if it is a ``bool``; raise ``TypeError``
    ``"{name} must be a bool, not {value!r}"`` otherwise."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, not {value!r}")
    return value
