import numpy as np
import pytest
from amaranth.hdl import Module, Signal, signed, unsigned
from amaranth.sim import Simulator

from robohw.hw.fixed import (
    FixedFormat,
    Rounding,
    angle_fits,
    angle_to_code,
    code_to_angle,
    hdl_add_sub,
    hdl_add_sub_add,
    hdl_round_shift,
    hdl_saturate,
    round_shift,
    rounding_increment,
    rounding_mask,
    rounding_shift,
    saturate,
    wrap,
)


def python_round_half_even(value, shift):
    quotient, remainder = divmod(value, 1 << shift)
    half = 1 << (shift - 1)
    if remainder > half or (remainder == half and quotient & 1):
        quotient += 1
    return quotient


def test_round_shift_matches_python_integers():
    values = np.arange(-300, 300)
    for shift in (1, 2, 3, 5):
        want = [python_round_half_even(int(v), shift) for v in values]
        assert round_shift(values, shift, Rounding.HALF_EVEN).tolist() == want
        assert round_shift(values, shift, Rounding.TRUNCATE).tolist() == \
            [int(v) >> shift for v in values]
    assert round_shift(values, 0, Rounding.HALF_EVEN).tolist() == values.tolist()


def test_wrap_and_saturate():
    assert wrap([127, 128, -129, 255, 256], 8).tolist() == [127, -128, 127, -1, 0]
    clamped, over = saturate([-200, -128, 127, 300], 8)
    assert clamped.tolist() == [-128, -128, 127, 127]
    assert over.tolist() == [True, False, False, True]


def test_format_conversions_and_checks():
    fmt = FixedFormat(8, 4)
    assert fmt.from_float([1.0, -8.0, 0.03]).tolist() == [16, -128, 0]
    assert fmt.to_float([16]).tolist() == [1.0]
    with pytest.raises(OverflowError, match="out of range"):
        fmt.from_float([8.0])
    with pytest.raises(ValueError, match=r"frac_bits must be an integer in \[0, 8\], not 9"):
        FixedFormat(8, 9)


@pytest.mark.parametrize("rounding", list(Rounding))
def test_hdl_twins_equal_numpy(rounding):
    value = Signal(signed(10))
    shift, width = 3, 6
    rounded = hdl_round_shift(value, shift, rounding)
    clamped, over = hdl_saturate(rounded, width)
    inputs = np.arange(-512, 512)
    want_rounded = round_shift(inputs, shift, rounding)
    want_clamped, want_over = saturate(want_rounded, width)
    seen = []

    async def bench(ctx):
        for v in inputs:
            ctx.set(value, int(v))
            seen.append((ctx.get(rounded), ctx.get(clamped), ctx.get(over)))

    sim = Simulator(Module())
    sim.add_testbench(bench)
    sim.run()
    got = np.array(seen)
    assert got[:, 0].tolist() == want_rounded.tolist()
    assert got[:, 1].tolist() == want_clamped.tolist()
    assert got[:, 2].tolist() == want_over.astype(int).tolist()


def test_binary_angles_wrap():
    assert angle_to_code([0, np.pi / 2, np.pi, -np.pi, 3 * np.pi / 2], 8).tolist() == \
        [0, 64, -128, -128, -64]
    assert code_to_angle([64], 8).tolist() == [np.pi / 2]


def test_angles_without_an_exact_code_are_refused():
    # 2**(47 - width) turns is where float64's rounding of the unwrapped code could reach 1/16
    # of a code; 1e20 rad once wrapped to a garbage angle through a failed int64 cast.
    turn = 2 * np.pi
    inside, outside = (2.0 ** 23 - 1) * turn, 2.0 ** 23 * turn
    assert angle_fits([0.0, inside, -inside, outside, 1e20, np.inf, np.nan], 24).tolist() == \
        [True, True, True, False, False, False, False]
    assert angle_to_code([inside], 24).tolist() == [0]
    with pytest.raises(OverflowError, match="angle out of range of a 24-bit binary angle"):
        angle_to_code([0.0, 1e20], 24)


@pytest.mark.parametrize("shape", [signed(10), unsigned(9), signed(6), unsigned(6), signed(4),
                                   unsigned(5)])
def test_hdl_saturate_reads_bits_for_every_shape(shape):
    # Exhaustive: wider, equal and narrower than the 6-bit result, signed and unsigned.
    value = Signal(shape)
    clamped, over = hdl_saturate(value, 6)
    low = -(1 << (shape.width - 1)) if shape.signed else 0
    inputs = np.arange(low, low + (1 << shape.width))
    want_clamped, want_over = saturate(inputs, 6)
    seen = []

    async def bench(ctx):
        for v in inputs:
            ctx.set(value, int(v))
            seen.append((ctx.get(clamped), ctx.get(over)))

    sim = Simulator(Module())
    sim.add_testbench(bench)
    sim.run()
    got = np.array(seen)
    assert got[:, 0].tolist() == want_clamped.tolist()
    assert got[:, 1].tolist() == want_over.astype(int).tolist()


@pytest.mark.parametrize("shapes", [(signed(5), signed(5)), (signed(6), unsigned(4)),
                                    (unsigned(4), signed(5)), (unsigned(3), unsigned(4))])
def test_hdl_add_sub_equals_both_operations(shapes):
    a, b, subtract = Signal(shapes[0]), Signal(shapes[1]), Signal()
    result = hdl_add_sub(a, b, subtract)

    def codes(shape):
        low = -(1 << (shape.width - 1)) if shape.signed else 0
        return range(low, low + (1 << shape.width))
    cases = [(x, y, s) for x in codes(shapes[0]) for y in codes(shapes[1]) for s in (0, 1)]
    seen = []

    async def bench(ctx):
        for x, y, s in cases:
            ctx.set(a, x)
            ctx.set(b, y)
            ctx.set(subtract, s)
            seen.append(ctx.get(result))

    sim = Simulator(Module())
    sim.add_testbench(bench)
    sim.run()
    assert seen == [x - y if s else x + y for x, y, s in cases]


@pytest.mark.heavy
@pytest.mark.parametrize("shapes", [(signed(4), signed(4), signed(4)),
                                    (signed(5), unsigned(3), signed(4)),
                                    (unsigned(3), signed(4), unsigned(4))])
@pytest.mark.parametrize("c_negative", [False, True])
def test_hdl_add_sub_add_equals_the_sum_of_every_code(shapes, c_negative):
    a, b, c, subtract = Signal(shapes[0]), Signal(shapes[1]), Signal(shapes[2]), Signal()
    result = hdl_add_sub_add(a, b, subtract, c, c_negative)

    def codes(shape):
        low = -(1 << (shape.width - 1)) if shape.signed else 0
        return range(low, low + (1 << shape.width))
    cases = [(x, y, z, s) for x in codes(shapes[0]) for y in codes(shapes[1])
             for z in codes(shapes[2]) for s in (0, 1)]
    seen = []

    async def bench(ctx):
        for x, y, z, s in cases:
            for signal, value in zip((a, b, c, subtract), (x, y, z, s)):
                ctx.set(signal, value)
            seen.append(ctx.get(result))

    sim = Simulator(Module())
    sim.add_testbench(bench)
    sim.run()
    assert seen == [x + (-y if s else y) + (-z if c_negative else z) for x, y, z, s in cases]


@pytest.mark.parametrize("least", [0, 1, 5, 16])
def test_two_step_rounding_is_half_to_even(least):
    # Shift and sticky bit, then the increment (the processor array's units and the folded
    # pipelines' shared multipliers), against the model's round_shift on random values, every
    # exact half and its neighbours, both signs; with a wired part of the shift (``least``) and
    # the rest multiplexed, as a unit of narrow shifts builds it.
    value, shift = Signal(signed(24)), Signal(range(20))
    mask, out = Signal(unsigned(19)), Signal(signed(25))
    m = Module()
    halved, sticky = rounding_shift(value, shift, mask, least)
    m.d.comb += out.eq(rounding_increment(halved, sticky))
    rng = np.random.default_rng(15)
    cases = [(int(v), int(s)) for v, s in zip(rng.integers(-2**23, 2**23, 300),
                                             rng.integers(least, 20, 300))]
    cases += [(sign * ((k << s) + (1 << (s - 1)) + d), s) for s in range(max(least, 1), 20)
              for k in (0, 1, 2, 3, 100) for d in (-1, 0, 1) for sign in (1, -1)
              if abs((k << s) + (1 << (s - 1)) + d) < 2**23]
    checked = []

    async def bench(ctx):
        for v, s in cases:
            ctx.set(value, v)
            ctx.set(shift, s - least)
            ctx.set(mask, rounding_mask(s, least))
            checked.append((ctx.get(out), int(round_shift(np.array([v]), s,
                                                          Rounding.HALF_EVEN)[0])))

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    assert len(checked) == len(cases) and all(a == b for a, b in checked)
