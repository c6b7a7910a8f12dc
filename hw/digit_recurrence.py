"""The frame the reciprocal units (:mod:`robohw.hw.reciprocal`, :mod:`robohw.hw.reciprocal_sqrt`)
share: a result found a bit a step from the top by a digit recurrence without a multiplier,
between :data:`INPUT_STAGES` input stages and :data:`OUTPUT_STAGES` output stages.

The steps (:func:`recurrence_steps`), one a cycle, are grouped into stages of ``fold`` steps:
a stage holds an operation for ``fold`` cycles, stepping it on its own registers, so a unit
has ``ceil(width / fold)`` copies of a step's logic instead of ``width`` and takes an operation
at most every ``fold`` cycles (its issue interval). At ``fold`` 1 it is a pipeline that takes
one every cycle. Either way an operation's result is ready :func:`recurrence_latency` cycles
after its operand. A folded stage knows which step it takes from a line of tokens, one a step,
that each operation's start bit moves along; every other value is datapath.
"""

import functools
import operator

from robohw.hw.checks import check_integer

__all__ = ["INPUT_STAGES", "OUTPUT_STAGES", "recurrence_latency", "recurrence_steps",
           "stage_registers", "first_remainder", "unit_operands", "saturated_rounding",
           "delayed_start"]

# The input's stages: the operand's magnitude and flags, then the first remainder, whether the
# result leaves the width and the first step's numerator bits; the output's: the remainder's
# OR, the rounding, then the saturation and the sign.
INPUT_STAGES = 2
OUTPUT_STAGES = 3


def recurrence_latency(width):
    """Enabled cycles from an operand to its result at ``width`` bits: the input stages, a step
    a bit, the output stages, whatever the fold."""
    check_integer("width", width, minimum=2)
    return INPUT_STAGES + width + OUTPUT_STAGES


def stage_registers(m, signals, enable, name):
    """Reset-less registers of ``signals`` (``{key: value}``), loaded where ``enable`` is high
    (each named ``{name}_{key}``)."""
    from amaranth.hdl import Signal
    out = {}
    for key, value in signals.items():
        out[key] = Signal(value.shape(), name=f"{name}_{key}", reset_less=True)
        with m.If(enable):
            m.d.sync += out[key].eq(value)
    return out


def delayed_start(m, start, enable, name):
    """``start`` (a bit high in an operand's cycle) through registers that reset, loaded where
    ``enable`` is high, :data:`INPUT_STAGES` enabled cycles later: high in its first step."""
    from amaranth.hdl import Signal
    for k in range(INPUT_STAGES):
        held = Signal(name=f"{name}_start{k}")
        with m.If(enable):
            m.d.sync += held.eq(start)
        start = held
    return start


def recurrence_steps(m, state, step, next_inject, width, enable, name, *, fold=1, start=None):
    """The registers after ``width`` steps from ``state``, ``fold`` steps a stage, with the
    result's bits, the first found highest, as ``"root"``.

    Parameters
    ----------
    state : dict
        The first step's inputs, registers: its ``"inject"`` (the numerator's bits the step
        takes), ``"exponent"`` (the numerator's) and whatever ``step`` reads.
    step : callable
        ``step(state, j, more)``: ``{key: value}`` after step ``j`` (the result's bit ``j``,
        ``width - 1`` first) from the state before it, with ``"fits"`` the bit; keys it does
        not give are carried. ``j`` is the stage's widest step: the values' widths are ``j``'s
        alone, whatever their inputs' (a stage's registers take them); ``more`` is false only
        for a stage of the last step alone (what only a later step reads is then left out).
    next_inject : callable
        ``next_inject(exponent, j)``: the numerator's bits step ``j`` takes (an integer ``j``),
        found in the step before and registered.
    width : int
        Steps.
    enable : Value
        The steps move where it is high.
    fold : int
        Steps a stage, one a cycle (see the module docstring).
    start : Value or None
        A bit high in the cycle of an operation's first step, at most every ``fold`` enabled
        cycles; ``None`` (at ``fold`` 1 only): every cycle.
    """
    from amaranth.hdl import Cat, Const, Mux, Signal
    check_integer("fold", fold, minimum=1)
    if fold > 1 and start is None:
        raise ValueError(f"{name}: a fold of {fold} needs the operations' start bit")
    tokens = [start]                   # tokens[c]: an operation takes its step c this cycle
    for c in range(1, width if fold > 1 else 0):
        token = Signal(name=f"{name}_token{c}")
        with m.If(enable):
            m.d.sync += token.eq(tokens[-1])
        tokens.append(token)
    for low in range(0, width, fold):
        cycles = range(low, min(low + fold, width))          # the stage's steps, from the first
        widest = width - cycles[-1] - 1
        more = len(cycles) > 1 or widest > 0
        if len(cycles) == 1:
            inputs, own = state, None
        else:
            shapes = {**state, **step(state, widest, more)}
            own = {key: Signal(value.shape(), name=f"{name}_f{low}_{key}", reset_less=True)
                   for key, value in shapes.items() if key != "fits"}
            own["root"] = Signal(cycles.stop, name=f"{name}_f{low}_root", reset_less=True)
            first = tokens[low]
            inputs = {key: Mux(first, state.get(key, Const(0)), own[key]) for key in own}
        out = {**inputs, **step(inputs, widest, more)}
        fits = out.pop("fits")
        out["root"] = Cat(fits, inputs["root"])[:cycles.stop] if "root" in inputs else fits
        # The numerator's bits of each step's next, found beside the step.
        following = [(c, width - c - 2) for c in cycles if width - c - 2 >= 0]
        if own is None:
            out["inject"] = next_inject(inputs["exponent"], following[0][1]) if following \
                else Const(0, inputs["inject"].shape())
            state = stage_registers(m, out, enable, f"{name}_s{widest}")
            continue
        out["inject"] = functools.reduce(operator.or_, (
            Mux(tokens[c], next_inject(inputs["exponent"], j), 0) for c, j in following),
            Const(0, inputs["inject"].shape()))
        with m.If(enable):
            m.d.sync += [own[key].eq(out[key]) for key in own]
        state = own
    return state


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


def unit_operands(a, shift, fold, name):
    """``(a, width, shift)`` of a reciprocal unit's arguments, checked: ``a`` a value of at
    least 2 bits, ``shift`` a non-negative integer (as a constant) or an unsigned value,
    ``fold`` a positive integer."""
    from amaranth.hdl import Const, Value
    a = Value.cast(a)
    width = check_integer("width", len(a), minimum=2)
    check_integer("fold", fold, minimum=1)
    if isinstance(shift, int):
        shift = Const(check_integer("shift", shift, minimum=0))
    shift = Value.cast(shift)
    if shift.shape().signed:
        raise TypeError(f"{name}: shift must be unsigned, not {shift.shape()}")
    return a, width, shift


def _largest(width):
    return (1 << (width - 1)) - 1


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
