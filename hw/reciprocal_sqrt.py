"""The reciprocal square root ``sqrt(2**shift / a)`` of a ``signed(width)`` code, rounded half
to even and saturated: its exact value (:func:`reciprocal_sqrt_code`) and its hardware
(:func:`reciprocal_sqrt`), bit for bit alike.

The hardware finds ``y = floor(sqrt(2**(shift + 2) / a))`` (one bit below the code's: the
rounding's half) a bit a step from the top, without a multiplier: with ``Y`` the bits decided
and ``R = 2**(shift + 2) - (Y 2**(j + 1))**2 a`` what is left, bit ``j`` is set where ``R >=
4**j (4 Y + 1) a``. It keeps ``rho = R // 4**j``, which each step shifts left by two and fills
with the numerator's two bits at ``2 j + 1`` and ``2 j``, and ``P = (4 Y + 1) a``, which each
step doubles and adds ``3 a`` to or takes ``a`` from; a step is a subtraction and a
multiplexer, about twice the width, with both of ``P``'s candidates summed beside them. The
steps, one a cycle and ``fold`` a stage, its input stages (``a`` and the flags; ``3 a``, the
first remainder and whether the root leaves the width) and its output stages (the remainder's
OR; the rounding; the saturation) are the frame of :mod:`robohw.hw.digit_recurrence`.

The code: ``round(sqrt(2**shift / a))``, half to even, at most ``2**(width - 1) - 1`` (larger
roots saturate there); ``a <= 0`` gives ``2**(width - 1) - 1``.
"""

import math

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

__all__ = ["reciprocal_sqrt_code", "reciprocal_sqrt", "reciprocal_sqrt_latency"]


def reciprocal_sqrt_code(a, shift, width):
    """The reciprocal square root's code of ``a`` (an integer or an integer array in
    ``signed(width)``) at ``shift`` (a non-negative integer): see the module docstring."""
    check_integer("width", width, minimum=2)
    check_integer("shift", shift, minimum=0)
    largest = (1 << (width - 1)) - 1
    if np.ndim(a) == 0:
        a = int(a)
        if a <= 0:
            return largest
        numerator = 1 << shift
        root = math.isqrt(numerator // a)      # floor(sqrt(x)) == isqrt(floor(x))
        # Up where sqrt(n / a) > root + 1/2, i.e. 4 n > (2 root + 1)**2 a; even on a tie.
        above = 4 * numerator - (2 * root + 1) ** 2 * a
        return min(root + (above > 0 or (above == 0 and root % 2 == 1)), largest)
    return np.vectorize(lambda v: reciprocal_sqrt_code(v, shift, width), otypes=[object])(
        np.asarray(a)).astype(np.int64 if width <= 62 else object)


def reciprocal_sqrt_latency(width):
    """Enabled cycles from ``a`` to its reciprocal square root
    (:func:`~robohw.hw.digit_recurrence.recurrence_latency`), whatever the fold."""
    return recurrence_latency(width)


def _numerator_bits(exponent, j):
    """The numerator ``2**exponent``'s bits at ``2 j`` and ``2 j + 1``, low first."""
    from amaranth.hdl import Cat
    return Cat(exponent == 2 * j, exponent == 2 * j + 1)


def reciprocal_sqrt(m, a, shift, enable, name, *, negate=0, fold=1, start=None):
    """The reciprocal square root's code of ``a`` (a ``signed(width)`` value), or of ``-a``
    where ``negate`` (a bit) is high, at ``shift`` (a non-negative integer, or an unsigned
    value: per operand), :func:`reciprocal_sqrt_latency` enabled cycles later (a register; the
    unit moves where ``enable`` is high). ``fold`` steps a stage, ``start`` high with each
    operand (needed above fold 1: an operand at most every ``fold`` enabled cycles):
    :func:`~robohw.hw.digit_recurrence.recurrence_steps`. See the module docstring."""
    from amaranth.hdl import Cat, Const, Mux, Value
    a, width, shift = unit_operands(a, shift, fold, name)
    negate = Value.cast(negate)
    positive = Mux(negate, a < 0, a > 0)
    divisor = Mux(positive, Mux(negate, -a, a), 1)[:width].as_unsigned()
    # The numerator 2**(shift + 2): the root's low bit is the rounding's half bit.
    exponent = (shift + 2)[:len(shift) + 2]
    state = {"divisor": divisor, "exponent": exponent, "positive": positive}
    state = stage_registers(m, state, enable, f"{name}_in")
    rho, leaves = first_remainder(state["exponent"], 2 * width, state["divisor"], width)
    state |= {"triple": (state["divisor"] << 1) + state["divisor"], "leaves": leaves,
              "rho": rho, "p": state["divisor"],
              "inject": _numerator_bits(state["exponent"], width - 1)}
    state = stage_registers(m, state, enable, f"{name}_first")

    def step(state, j, more):
        # rho < 4 (2 Y + 1) a + 4 and P = (4 Y + 1) a with Y < 2**(width - 1 - j): their bits.
        rho_bits, p_bits = 2 * width - j + 2, 2 * width - j + 1
        taken = Cat(state["inject"], state["rho"], Const(0, rho_bits))[:rho_bits]
        difference = taken - state["p"]
        fits = ~difference[rho_bits]
        out = {"rho": Mux(fits, difference[:rho_bits], taken), "fits": fits}
        if more:
            # P = (4 Y + 1) a for the next bit: 2 P + 3 a where this one is set, else 2 P - a,
            # both summed beside the comparison (one carry chain a step on the path).
            doubled = state["p"] << 1
            out["p"] = Cat(Mux(fits, doubled + state["triple"], doubled - state["divisor"]),
                           Const(0, p_bits + 1))[:p_bits + 1]
        return out

    start = None if start is None else delayed_start(m, start, enable, name)
    state = recurrence_steps(m, state, step, _numerator_bits, width, enable, name, fold=fold,
                             start=start)
    return saturated_rounding(m, state["root"], state["rho"] != 0, Const(0),
                              state["leaves"] | ~state["positive"], enable, width, name)
