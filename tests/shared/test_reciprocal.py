"""The reciprocal units (robohw.hw.reciprocal, robohw.hw.reciprocal_sqrt): their codes against
Python's exact rationals, and the pipelined hardware equal to the codes bit for bit under
random stalls, every code of a small width and every shift the codes can take, a constant
shift and one given per operand."""

import math
from fractions import Fraction

import numpy as np
import pytest
from amaranth.hdl import Module, Signal, signed, unsigned
from amaranth.sim import Simulator

from robohw.hw.reciprocal import reciprocal, reciprocal_code, reciprocal_latency
from robohw.hw.reciprocal_sqrt import reciprocal_sqrt, reciprocal_sqrt_code, reciprocal_sqrt_latency


def _nearest_even(x):
    """``x`` (a Fraction) rounded half to even."""
    low = math.floor(x)
    if x - low != Fraction(1, 2):
        return math.floor(x + Fraction(1, 2))
    return low + (low % 2)


def _saturated(value, negative, width):
    value = min(value, (1 << (width - 1)) - 1)
    return -value if negative else value


def _exact_reciprocal(a, shift, width):
    if a == 0:
        return (1 << (width - 1)) - 1
    return _saturated(_nearest_even(Fraction(1 << shift, abs(a))), a < 0, width)


def _exact_reciprocal_sqrt(a, shift, width):
    if a <= 0:
        return (1 << (width - 1)) - 1
    x = Fraction(1 << shift, a)            # round(sqrt(x)): the integer whose square brackets it
    root = math.isqrt(math.floor(x))
    up = Fraction((2 * root + 1) ** 2, 4)
    return _saturated(root + (x > up or (x == up and root % 2 == 1)), False, width)


def _codes(width, rng, count):
    low = -(1 << (width - 1))
    corners = [0, 1, -1, 2, -2, 3, low, low + 1, -low - 1, -low // 2, low // 2 + 1]
    corners += [1 << k for k in range(width - 1)] + [-(1 << k) for k in range(width - 1)]
    return corners + [int(v) for v in rng.integers(low, -low, count)]


@pytest.mark.parametrize("width", [2, 3, 5, 9, 40, 63])
def test_the_codes_are_the_exact_values_rounded_half_to_even_and_saturated(width):
    rng = np.random.default_rng(width)
    for a in _codes(width, rng, 60):
        for shift in range(0, 3 * width + 3, max(1, width // 5)):
            assert reciprocal_code(a, shift, width) == _exact_reciprocal(a, shift, width)
            assert reciprocal_sqrt_code(a, shift, width) == \
                _exact_reciprocal_sqrt(a, shift, width)


def test_the_codes_take_arrays_and_refuse_bad_arguments():
    a = np.array([[3, -5], [0, 7]])
    assert reciprocal_code(a, 10, 12).tolist() == [[341, -205], [2047, 146]]
    assert reciprocal_sqrt_code(a, 10, 12).tolist() == [[18, 2047], [2047, 12]]
    with pytest.raises(ValueError, match="shift must be a non-negative integer"):
        reciprocal_code(3, -1, 12)
    with pytest.raises(TypeError, match="width must be an integer"):
        reciprocal_sqrt_code(3, 4, 12.0)


def _simulate(build, width, shift_bits, cases, seed, latency, fold=1):
    """``build(m, a, shift, enable, negate, start)``'s output for ``cases`` (``(a, shift)`` or
    ``(a, shift, negate)``), under random stalls, a case every ``fold`` to ``fold + 2`` enabled
    cycles above fold 1 (garbage operands between): after each tick, the code of the case
    ``latency`` enabled cycles before."""
    m = Module()
    a, enable, negate, start = Signal(signed(width)), Signal(), Signal(), Signal()
    shift = Signal(unsigned(shift_bits)) if shift_bits else None
    out = build(m, a, shift, enable, negate, start)
    assert out.shape() == signed(width)
    rng = np.random.default_rng(seed)
    got, taken = [], []                     # taken: the case each enabled cycle took, or None
    wait = [0]                              # enabled cycles until the next case may start

    async def bench(ctx):
        while len(got) < len(cases):
            index = sum(1 for t in taken if t is not None)
            starts = index < len(cases) and wait[0] == 0
            case = cases[index] if starts else (int(rng.integers(-4, 4)), 0, 0)
            ctx.set(a, case[0])
            if shift is not None:
                ctx.set(shift, case[1] % (1 << shift_bits))
            ctx.set(negate, case[2] if len(case) > 2 else 0)
            ctx.set(start, int(starts))
            moves = bool(rng.random() >= 0.25)
            ctx.set(enable, int(moves))
            await ctx.tick()
            if moves:
                taken.append(index if starts else None)
                wait[0] = int(rng.integers(fold - 1, fold + 2)) if starts and fold > 1 else \
                    max(wait[0] - 1, 0)
                if len(taken) >= latency and taken[-latency] is not None:
                    got.append((taken[-latency], ctx.get(out)))

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return dict(got)


UNITS = {
    "reciprocal": (reciprocal, reciprocal_code, reciprocal_latency),
    "reciprocal_sqrt": (reciprocal_sqrt, reciprocal_sqrt_code, reciprocal_sqrt_latency),
}


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("fold", [1, 2, 3, 5])
def test_rtl_equals_the_codes_for_every_code_and_shift_of_a_small_width(unit, fold):
    hardware, code, latency = UNITS[unit]
    width, shift_bits = 5, 4
    cases = [(a, s, n) for a in range(-16, 16) for s in range(1 << shift_bits) for n in (0, 1)]
    got = _simulate(lambda m, a, shift, enable, negate, start: hardware(
        m, a, shift, enable, "u", negate=negate, fold=fold, start=start),
        width, shift_bits, cases, seed=fold, latency=latency(width), fold=fold)
    assert len(got) == len(cases)
    for k, (a, s, n) in enumerate(cases):
        # Negated: the code of -a (for -2**(width - 1), a code a bit beyond the width).
        assert got[k] == code(-a if n else a, s, width), (a, s, n)


# Shifts whose codes are partly within the width and partly saturated, one at 0.
CONSTANT_SHIFTS = {"reciprocal": [(18, 25), (40, 58), (40, 30), (24, 0)],
                   "reciprocal_sqrt": [(18, 44), (40, 100), (40, 60), (24, 0)]}


@pytest.mark.parametrize("unit, width, shift", [(unit, *case) for unit in UNITS
                                                for case in CONSTANT_SHIFTS[unit]])
def test_rtl_equals_the_codes_at_a_constant_shift(unit, width, shift):
    hardware, code, latency = UNITS[unit]
    rng = np.random.default_rng(width + shift)
    cases = [(a, shift) for a in _codes(width, rng, 40)]
    got = _simulate(lambda m, a, _, enable, negate, start: hardware(m, a, shift, enable, "u"),
                    width, 0, cases, seed=width, latency=latency(width))
    for k, (a, s) in enumerate(cases):
        assert got[k] == code(a, s, width), (a, s)
    largest = (1 << (width - 1)) - 1
    if shift:
        assert {abs(v) == largest for v in got.values()} == {True, False}


@pytest.mark.parametrize("unit", UNITS)
def test_rtl_equals_the_codes_at_shifts_given_per_operand(unit):
    hardware, code, latency = UNITS[unit]
    width, shift_bits = 30, 7
    rng = np.random.default_rng(11)
    cases = [(a, int(s), int(n)) for a in _codes(width, rng, 30)
             for s, n in zip(rng.integers(0, 128, 2), rng.integers(0, 2, 2))]
    got = _simulate(lambda m, a, shift, enable, negate, start: hardware(
        m, a, shift, enable, "u", negate=negate, fold=8, start=start),
        width, shift_bits, cases, seed=4, latency=latency(width), fold=8)
    for k, (a, s, n) in enumerate(cases):
        assert got[k] == code(-a if n else a, s, width), (a, s, n)


@pytest.mark.parametrize("unit", UNITS)
def test_the_units_refuse_a_signed_or_negative_shift(unit):
    hardware = UNITS[unit][0]
    m = Module()
    with pytest.raises(TypeError, match="shift must be unsigned"):
        hardware(m, Signal(signed(8)), Signal(signed(4)), 1, "u")
    with pytest.raises(ValueError, match="shift must be a non-negative integer"):
        hardware(m, Signal(signed(8)), -1, 1, "u")
    with pytest.raises(ValueError, match="a fold of 4 needs the operations' start bit"):
        hardware(m, Signal(signed(8)), 3, 1, "u", fold=4)
    with pytest.raises(ValueError, match="fold must be a positive integer, not 0"):
        hardware(m, Signal(signed(8)), 3, 1, "u", fold=0)
