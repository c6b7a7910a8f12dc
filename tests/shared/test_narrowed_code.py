"""A code narrowed to a DSP tile's operand (robohw.hw.narrowing): every code of 20 bits within
the stated error and within the tile's 18 bits, the Amaranth twin equal to the integers on the
corners and at random, the argument checks."""

import numpy as np
import pytest
from amaranth.hdl import Module, Signal, signed
from amaranth.sim import Simulator

from robohw.hw.multiplier import ECP5_TILE_BITS
from robohw.hw.narrowing import hdl_narrowed, narrowed_code, narrowing_drop, narrowing_error


def test_the_drop_is_what_passes_a_tile():
    assert ECP5_TILE_BITS == 18
    assert [narrowing_drop(w) for w in (12, 18, 19, 21, 22, 40)] == [0, 0, 1, 3, 4, 22]
    with pytest.raises(TypeError, match="width must be an integer"):
        narrowing_drop(20.0)


@pytest.mark.parametrize("width", [19, 20, 22])
def test_every_code_narrows_within_its_error_and_fits_a_tile(width):
    drop = width - 18
    codes = np.arange(-2 ** (width - 1), 2 ** (width - 1), dtype=np.int64)
    narrowed = narrowed_code(codes, drop)
    assert narrowed.min() == -2 ** 17 and narrowed.max() == 2 ** 17 - 1
    error = np.abs(codes - narrowed * 2 ** drop)
    # Half a step below the saturated codes (frac 0: codes are the units), under a step above.
    top = 2 ** (width - 1) - 2 ** (drop - 1)
    below = np.abs(codes) < top
    assert error[below].max() == 2 ** (drop - 1) == narrowing_error(0, drop, top - 1)
    assert error[~below].max() < 2 ** drop == narrowing_error(0, drop, top)
    # Half up: the codes halfway between two steps go up.
    assert narrowed_code(np.array([2 ** (drop - 1), -2 ** (drop - 1)]), drop).tolist() == [1, 0]
    # Python integers (the engine's widths above 31 bits) narrow alike.
    assert narrowed_code(codes[::997].astype(object), drop).tolist() == narrowed[::997].tolist()


def test_no_drop_leaves_the_codes():
    codes = np.array([-5, 0, 7])
    assert narrowed_code(codes, 0) is codes and narrowing_error(3, 0, 100.0) == 0.0


@pytest.mark.parametrize("width", [19, 21, 22])
def test_the_amaranth_twin_equals_the_integers(width):
    drop = width - 18
    rng = np.random.default_rng(width)
    top = 2 ** (width - 1)
    codes = [-top, -top + 2 ** (drop - 1), top - 1, top - 2 ** (drop - 1),
             top - 2 ** (drop - 1) - 1, 0, -1, 2 ** (drop - 1)] + \
        [int(c) for c in rng.integers(-top, top, 200)]
    m = Module()
    value = Signal(signed(width))
    out = Signal(signed(18))
    m.d.comb += out.eq(hdl_narrowed(value, drop))
    assert hdl_narrowed(value, drop).shape() == signed(18)
    seen = []

    async def bench(ctx):
        for code in codes:
            ctx.set(value, code)
            seen.append(ctx.get(out))

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    assert seen == narrowed_code(np.array(codes), drop).tolist()


def test_the_twin_needs_a_drop():
    with pytest.raises(ValueError, match="drop must be a positive integer, not 0"):
        hdl_narrowed(Signal(signed(18)), 0)
