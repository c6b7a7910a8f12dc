"""The reciprocal ``2**shift / a`` of a ``signed(width)`` code, rounded half to even and
saturated: its exact value (:func:`reciprocal_code`, Python integers or numpy arrays) and its
pipelined hardware (:func:`reciprocal`), bit for bit alike.

The hardware is a restoring division by ``|a|`` of the single-bit numerator ``2**(shift + 1)``,
one quotient bit a step, :data:`STEPS_PER_STAGE` steps a register stage, between two input
stages (``|a|`` and the flags; the first remainder and whether the quotient leaves the width)
and three output stages (the remainder's OR; the rounding; the saturation and the sign). No multiplier: a reciprocal exact to its rounding needs
its remainder, which a Newton-Raphson step on the DSP tiles would need a product of twice the
width to find.

The code: ``round(2**shift / |a|)``, half to even, at most ``2**(width - 1) - 1`` (larger
quotients saturate there), with ``a``'s sign; ``a == 0`` gives ``2**(width - 1) - 1``.
"""

import math

import numpy as np

from robohw.hw.checks import check_integer

__all__ = ["reciprocal_code", "reciprocal", "reciprocal_latency", "first_remainder",
           "saturated_rounding", "stage_registers", "unit_operands", "STEPS_PER_STAGE",
           "INPUT_STAGES", "OUTPUT_STAGES"]

# Division steps a register stage: one (width + 1)-bit subtraction and a multiplexer each
# (measured alone on the ECP5-85F at 40 bits, grade 6: two a stage reach 78 MHz).
STEPS_PER_STAGE = 1
# The input's stages: the operand's magnitude and flags, then the first remainder and whether
# the result leaves the width; the output's: the remainder's OR, the rounding, then the
# saturation and the sign.
INPUT_STAGES = 2
OUTPUT_STAGES = 3


def _largest(width):
    return (1 << (width - 1)) - 1


def reciprocal_code(a, shift, width):
    """The reciprocal's code of ``a`` (an integer or an integer array in ``signed(width)``)
    at ``shift`` (a non-negative integer): see the module docstring."""
    check_integer("width", width, minimum=2)
    check_integer("shift", shift, minimum=0)
    largest = _largest(width)
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


def reciprocal_latency(width, steps_per_stage=STEPS_PER_STAGE):
    """Register stages from ``a`` to its reciprocal: the input stages (:data:`INPUT_STAGES`),
    ``width`` division steps ``steps_per_stage`` a stage, the output stages
    (:data:`OUTPUT_STAGES`)."""
    check_integer("width", width, minimum=2)
    check_integer("steps_per_stage", steps_per_stage, minimum=1)
    return INPUT_STAGES + math.ceil(width / steps_per_stage) + OUTPUT_STAGES


def stage_registers(m, signals, enable, name):
    """Registers of ``signals`` (``{key: value}``), loaded where ``enable`` is high (each named
    ``{name}_{key}``)."""
    from amaranth.hdl import Signal
    out = {}
    for key, value in signals.items():
        out[key] = Signal(value.shape(), name=f"{name}_{key}", reset_less=True)
        with m.If(enable):
            m.d.sync += out[key].eq(value)
    return out


def first_remainder(exponent, low, divisor, width):
    """``(remainder, leaves)`` of a recurrence whose numerator is ``2**exponent`` (an unsigned
    value) and whose steps take its bits below ``2**low``: the part above, ``2**exponent //
    2**low`` (``width`` bits), and whether it reaches ``divisor`` (an unsigned ``width``-bit
    value at most ``2**(width - 1)``): then the result leaves its bits. Each bit of the power
    decodes ``exponent`` (no adder), and one comparison follows."""
    from amaranth.hdl import Cat
    # 2**(exponent - low) >= 2**(width - 1) is at least every divisor.
    reaches_top = exponent >= low + width - 1
    remainder = Cat(*(exponent == low + k for k in range(width - 1)), 0)
    return remainder, reaches_top | (remainder >= divisor)


def unit_operands(a, shift, steps_per_stage, name):
    """``(a, width, shift)`` of a reciprocal unit's arguments, checked: ``a`` a value of at
    least 2 bits, ``shift`` a non-negative integer (as a constant) or an unsigned value,
    ``steps_per_stage`` a positive integer."""
    from amaranth.hdl import Const, Value
    a = Value.cast(a)
    width = check_integer("width", len(a), minimum=2)
    check_integer("steps_per_stage", steps_per_stage, minimum=1)
    if isinstance(shift, int):
        shift = Const(check_integer("shift", shift, minimum=0))
    shift = Value.cast(shift)
    if shift.shape().signed:
        raise TypeError(f"{name}: shift must be unsigned, not {shift.shape()}")
    return a, width, shift


def saturated_rounding(m, doubled, sticky, negative, saturate, enable, width, name):
    """The output stages' register, :data:`OUTPUT_STAGES` enabled cycles later: ``doubled >>
    1`` rounded half to even (its low bit the half, ``sticky`` whether anything lies below
    it), at most ``2**(width - 1) - 1`` (and that where ``saturate``), negated where
    ``negative``. The sticky bit's OR over the remainder, the rounding's carry chain and the
    negation's are a stage each."""
    from amaranth.hdl import Mux, Signal, signed
    held = stage_registers(m, {"doubled": doubled, "sticky": sticky, "negative": negative,
                               "saturate": saturate}, enable, f"{name}_sticky")
    kept = held["doubled"][1:]
    up = held["doubled"][0] & (held["sticky"] | kept[0])
    rounded = stage_registers(m, {"rounded": kept + up,                  # to 2**(width - 1)
                                  "negative": held["negative"],
                                  "saturate": held["saturate"]}, enable, f"{name}_round")
    largest = _largest(width)
    magnitude = Mux(rounded["saturate"] | rounded["rounded"][width - 1], largest,
                    rounded["rounded"][:width - 1])
    out = Signal(signed(width), name=name, reset_less=True)
    with m.If(enable):
        m.d.sync += out.eq(Mux(rounded["negative"], -magnitude, magnitude))
    return out


def reciprocal(m, a, shift, enable, name, *, negate=0, steps_per_stage=STEPS_PER_STAGE):
    """The reciprocal's code of ``a`` (a ``signed(width)`` value), or of ``-a`` where
    ``negate`` (a bit) is high, at ``shift`` (a non-negative integer, or an unsigned value: per
    operand), :func:`reciprocal_latency` enabled cycles later (a register; the pipeline moves
    where ``enable`` is high). See the module docstring."""
    from amaranth.hdl import Mux, Value
    a, width, shift = unit_operands(a, shift, steps_per_stage, name)
    magnitude = Mux(a < 0, -a, a)[:width].as_unsigned()
    # The numerator 2**(shift + 1): its quotient's low bit is the rounding's half bit.
    exponent = (shift + 1)[:len(shift) + 1]
    state = stage_registers(m, {"divisor": magnitude, "exponent": exponent,
                                "negative": (a < 0) ^ Value.cast(negate), "zero": a == 0},
                            enable, f"{name}_in")
    remainder, leaves = first_remainder(state["exponent"], width, state["divisor"], width)
    state = stage_registers(m, {**state, "remainder": remainder, "leaves": leaves}, enable,
                            f"{name}_first")
    # Restoring division, the quotient's bits from the top: the remainder doubles, takes the
    # numerator's bit, and gives up the divisor where it can.
    remainder, quotient = state["remainder"], []
    for j in reversed(range(width)):
        taken = (remainder << 1)[:width] | (state["exponent"] == j)
        difference = taken - state["divisor"]
        fits = ~difference[width]
        remainder = Mux(fits, difference[:width], taken)
        quotient.insert(0, fits)
        if j % steps_per_stage == 0:
            carried = {k: state[k] for k in ("divisor", "exponent", "negative", "zero",
                                            "leaves")}
            state = stage_registers(m, {**carried, "remainder": remainder,
                                        "quotient": _cat(quotient, state.get("quotient"))},
                                    enable, f"{name}_s{j}")
            remainder, quotient = state["remainder"], []
    return saturated_rounding(m, state["quotient"], state["remainder"] != 0,
                              state["negative"] & ~state["zero"],
                              state["leaves"] | state["zero"], enable, width, name)


def _cat(low_bits, high):
    """The quotient so far: ``high`` (its earlier bits, or ``None``) above ``low_bits``."""
    from amaranth.hdl import Cat
    return Cat(*low_bits, *([] if high is None else [high]))
