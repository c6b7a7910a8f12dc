"""The reciprocal ``2**shift / a`` of a ``signed(width)`` code, rounded half to even and
saturated: its exact value (:func:`reciprocal_code`, Python integers or numpy arrays) and its
hardware (:func:`reciprocal`), bit for bit alike.

The hardware is a restoring division by ``|a|`` of the single-bit numerator ``2**(shift + 1)``,
one quotient bit a step, in the frame of :mod:`robohw.hw.digit_recurrence` (a step a cycle,
``fold`` steps a stage; its input and output stages). No multiplier: a reciprocal exact to its
rounding needs its remainder, which a Newton-Raphson step on the DSP tiles would need a product
of twice the width to find.

The code: ``round(2**shift / |a|)``, half to even, at most ``2**(width - 1) - 1`` (larger
quotients saturate there), with ``a``'s sign; ``a == 0`` gives ``2**(width - 1) - 1``.
"""

import numpy as np

from robohw.hw.checks import check_integer
from robohw.hw.digit_recurrence import (
    delayed_start,
    first_remainder,
    recurrence_latency,
    recurrence_steps,
    saturated_rounding,
    stage_registers,
    unit_operands,
)

__all__ = ["reciprocal_code", "reciprocal", "reciprocal_latency"]


def reciprocal_code(a, shift, width):
    """The reciprocal's code of ``a`` (an integer or an integer array in ``signed(width)``)
    at ``shift`` (a non-negative integer): see the module docstring."""
    check_integer("width", width, minimum=2)
    check_integer("shift", shift, minimum=0)
    largest = (1 << (width - 1)) - 1
    if np.ndim(a) == 0:
        a = int(a)
        if a == 0:
            return largest
        quotient, remainder = divmod(1 << shift, abs(a))
        twice = 2 * remainder
        quotient += twice > abs(a) or (twice == abs(a) and quotient % 2 == 1)
        quotient = min(quotient, largest)
        return -quotient if a < 0 else quotient
    return np.vectorize(lambda v: reciprocal_code(v, shift, width), otypes=[object])(
        np.asarray(a)).astype(np.int64 if width <= 62 else object)


def reciprocal_latency(width):
    """Enabled cycles from ``a`` to its reciprocal
    (:func:`~robohw.hw.digit_recurrence.recurrence_latency`), whatever the fold."""
    return recurrence_latency(width)


def reciprocal(m, a, shift, enable, name, *, negate=0, fold=1, start=None):
    """The reciprocal's code of ``a`` (a ``signed(width)`` value), or of ``-a`` where
    ``negate`` (a bit) is high, at ``shift`` (a non-negative integer, or an unsigned value: per
    operand), :func:`reciprocal_latency` enabled cycles later (a register; the unit moves where
    ``enable`` is high). ``fold`` steps a stage, ``start`` high with each operand (needed above
    fold 1: an operand at most every ``fold`` enabled cycles):
    :func:`~robohw.hw.digit_recurrence.recurrence_steps`. See the module docstring."""
    from amaranth.hdl import Cat, Mux, Value
    a, width, shift = unit_operands(a, shift, fold, name)
    magnitude = Mux(a < 0, -a, a)[:width].as_unsigned()
    # The numerator 2**(shift + 1): its quotient's low bit is the rounding's half bit.
    exponent = (shift + 1)[:len(shift) + 1]
    state = stage_registers(m, {"divisor": magnitude, "exponent": exponent,
                                "negative": (a < 0) ^ Value.cast(negate), "zero": a == 0},
                            enable, f"{name}_in")
    remainder, leaves = first_remainder(state["exponent"], width, state["divisor"], width)
    state = stage_registers(m, {**state, "remainder": remainder, "leaves": leaves,
                                "inject": _numerator_bit(state["exponent"], width - 1)},
                            enable, f"{name}_first")

    # Restoring division, the quotient's bits from the top: the remainder doubles, takes the
    # numerator's bit, and gives up the divisor where it can.
    def step(state, j, more):
        taken = Cat(state["inject"], state["remainder"])[:width]
        difference = taken - state["divisor"]
        fits = ~difference[width]
        return {"remainder": Mux(fits, difference[:width], taken), "fits": fits}

    start = None if start is None else delayed_start(m, start, enable, name)
    state = recurrence_steps(m, state, step, _numerator_bit, width, enable, name, fold=fold,
                             start=start)
    return saturated_rounding(m, state["root"], state["remainder"] != 0,
                              state["negative"] & ~state["zero"],
                              state["leaves"] | state["zero"], enable, width, name)


def _numerator_bit(exponent, j):
    """The numerator ``2**exponent``'s bit ``j``."""
    return exponent == j
