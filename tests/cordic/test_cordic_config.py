import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robohw.cordic.config import CordicConfig, Direction, Normalization, System, hyperbolic_shifts


def test_hyperbolic_shifts_repeat_4_13_40():
    shifts = hyperbolic_shifts(45)
    assert shifts[:6] == (1, 2, 3, 4, 4, 5)
    for k in (4, 13, 40):
        assert shifts.count(k) == 2
    assert all(shifts.count(k) == 1 for k in set(shifts) - {4, 13, 40})


def test_gains_match_the_paper():
    # Lee & Chang: k_m ~ 0.6072 (m = 1), 1.00 (m = 0), 1.205 (m = -1); our gain is 1/k_m.
    assert 1 / CordicConfig("circular", "rotation", width=24).gain == pytest.approx(0.6073,
                                                                                    abs=1e-4)
    assert CordicConfig("linear", "rotation", width=24).gain == 1.0
    assert 1 / CordicConfig("hyperbolic", "rotation", width=24).gain == pytest.approx(1.2075,
                                                                                      abs=1e-4)


@pytest.mark.parametrize("system", ["circular", "hyperbolic"])
@pytest.mark.parametrize("normalization", ["interleaved", "after", "multiply"])
def test_normalization_leaves_small_scale_error(system, normalization):
    config = CordicConfig(system, "rotation", width=24, normalization=normalization)
    # The shift-and-add factors reach 2^-(n-1); the multiplier has width + guard + 1 bits.
    assert abs(config.scale_error) < 2.0 ** -(config.iterations - 2)
    assert CordicConfig(system, "rotation", width=24, normalization="none").output_gain == \
        config.gain


def test_normalization_placement():
    interleaved = CordicConfig("circular", "rotation", width=16)
    after = CordicConfig("circular", "rotation", width=16, normalization="after")
    assert len(interleaved.steps) == interleaved.iterations == 17  # width + 1, documented
    assert interleaved.gammas == after.gammas
    # Eq. 10: only the non-zero factors become extra steps.
    assert len(after.steps) == after.iterations + len(after.gammas)
    assert all(step.shift is None for step in after.steps[after.iterations:])
    assert {i: s.gamma for i, s in enumerate(interleaved.steps) if s.gamma} == interleaved.gammas


def test_defaults():
    config = CordicConfig("circular", "vectoring")
    assert (config.width, config.frac_bits, config.iterations) == (16, 13, 17)
    assert config.shifts == tuple(range(17))
    assert config.guard_bits == math.ceil(math.log2(17)) + 1
    assert config.system is System.CIRCULAR and config.direction is Direction.VECTORING
    assert config.normalization is Normalization.INTERLEAVED
    assert CordicConfig(-1, "rotation").system is System.HYPERBOLIC


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(system="elliptic"), ValueError,
     "system must be one of 'circular', 'linear', 'hyperbolic'"),
    (dict(system=2), ValueError, r"system must be one of 1, 0, -1"),
    (dict(direction="sideways"), ValueError, "direction must be one of 'rotation', 'vectoring'"),
    (dict(width=3), ValueError, r"width must be an integer in \[4, 40\], not 3"),
    (dict(width=16.0), TypeError, "width must be an integer, not 16.0"),
    (dict(frac_bits=16), ValueError, r"frac_bits must be an integer in \[0, 15\], not 16"),
    (dict(iterations=0), ValueError, r"iterations must be an integer in \[1, 80\], not 0"),
    (dict(iterations=40), ValueError, "iterations: shift 39 exceeds the 23 internal bits"),
    (dict(guard_bits=-1), ValueError, r"guard_bits must be an integer in \[0, 16\], not -1"),
    (dict(system="hyperbolic", width=40, expansion=4, guard_bits=16), ValueError,
     "need 63 internal bits; the bit-exact model holds at most 60"),
    (dict(expansion=1), ValueError, "expansion applies to the hyperbolic system only"),
    (dict(system="hyperbolic", expansion=5), ValueError,
     r"expansion must be an integer in \[0, 4\]"),
    (dict(system="hyperbolic", expansion=4, guard_bits=3), ValueError,
     r"guard_bits must be an integer in \[5, 16\]"),
    (dict(normalization="magic"), ValueError, "normalization must be one of"),
    (dict(rounding="up"), ValueError, "rounding must be one of 'truncate', 'half_even'"),
    (dict(shifts=[2, 1]), ValueError, "shifts must be non-decreasing"),
    (dict(shifts=[0, 1, 2], iterations=4), ValueError, "iterations \\(4\\) disagrees"),
    (dict(shifts=[0, 3, 4]), ValueError, "shifts do not converge: step 0"),
    (dict(system="hyperbolic", shifts=[0, 1, 2]), ValueError, "must start at 1"),
    (dict(system="hyperbolic", shifts=list(range(1, 17))), ValueError, "must repeat shifts 4, 13"),
])
def test_bad_parameters_are_named(kwargs, error, message):
    args = dict(system="circular", direction="rotation")
    args.update(kwargs)
    with pytest.raises(error, match=message):
        CordicConfig(args.pop("system"), args.pop("direction"), **args)


@settings(max_examples=60, deadline=None)
@given(system=st.sampled_from(list(System)), direction=st.sampled_from(list(Direction)),
       normalization=st.sampled_from(list(Normalization)), width=st.integers(4, 40),
       data=st.data())
def test_any_valid_parameters_give_consistent_widths(system, direction, normalization, width,
                                                     data):
    frac_bits = data.draw(st.integers(0, width - 1))
    config = CordicConfig(system, direction, width=width, frac_bits=frac_bits,
                          normalization=normalization)
    assert config.xy_width >= width + config.guard_bits + 1
    assert config.z_width >= width + config.guard_bits
    assert all(step.angle > 0 for step in config.steps if step.shift is not None)
    assert config.residual_angle <= 2 * config.micro_angle(config.shifts[-1])
