"""The bit-exact model against float64: stated error bounds, domain flags, no internal
overflow on corner inputs."""

import numpy as np
import pytest

from robohw.cordic.accuracy import MEANINGFUL_OUTPUTS, corner_inputs, error_bound_lsb, measure_error
from robohw.cordic.config import CordicConfig, Direction, Normalization, System
from robohw.cordic.model import cordic_model

MODES = [(s, d) for s in System for d in Direction]


# The linear system has gain 1: its normalization settings all give the same steps.
CONFIGS = [(s, d, n) for s, d in MODES for n in Normalization
           if s is not System.LINEAR or n is Normalization.INTERLEAVED]


@pytest.mark.parametrize("system, direction, normalization", CONFIGS)
@pytest.mark.parametrize("width", [8, 16, 24, 32])
def test_error_within_stated_bound(system, direction, normalization, width):
    config = CordicConfig(system, direction, width=width, normalization=normalization)
    result = measure_error(config, count=100_000, seed=width)
    assert result["domain_errors"] == 0
    assert result["overflows"] == 0
    for name in MEANINGFUL_OUTPUTS[(system, direction)]:
        assert result[name]["max"] <= error_bound_lsb(config, name), (name, result[name])
        assert result[name]["rms"] <= 0.35, (name, result[name])


@pytest.mark.parametrize("direction", list(Direction))
@pytest.mark.parametrize("normalization", list(Normalization))
@pytest.mark.parametrize("expansion", [1, 2, 4])
@pytest.mark.parametrize("width", [8, 16, 32])
def test_expanded_hyperbolic_within_stated_bound(direction, normalization, expansion, width):
    config = CordicConfig("hyperbolic", direction, width=width, normalization=normalization,
                          expansion=expansion)
    result = measure_error(config, count=50_000, seed=width + expansion)
    assert result["domain_errors"] == 0 and result["overflows"] == 0
    for name in MEANINGFUL_OUTPUTS[(System.HYPERBOLIC, direction)]:
        assert result[name]["max"] <= error_bound_lsb(config, name), (name, result[name])


def test_expansion_widens_the_domain():
    limits = [CordicConfig("hyperbolic", "vectoring", width=24, expansion=m).convergence_limit
              for m in range(5)]
    assert np.round(np.tanh(limits), 5).tolist() == [0.80693, 0.96993, 0.99797, 0.99993, 1.0]
    # An input the plain processor must flag, the expanded one computes.
    fmt = CordicConfig("hyperbolic", "vectoring", width=24).io_format
    x, y = fmt.from_float(1.0), fmt.from_float(0.95)
    assert cordic_model(CordicConfig("hyperbolic", "vectoring", width=24), x, y,
                        0).domain_error.all()
    out = cordic_model(CordicConfig("hyperbolic", "vectoring", width=24, expansion=1), x, y, 0)
    assert not out.domain_error.any()
    assert fmt.to_float(out.x)[0] == pytest.approx(np.sqrt(1 - 0.95 ** 2), abs=2 * fmt.lsb)
    assert fmt.to_float(out.z)[0] == pytest.approx(np.arctanh(0.95), abs=4 * fmt.lsb)


def test_circular_goal_two_lsb_at_24_bits():
    for direction in Direction:
        result = measure_error(CordicConfig("circular", direction, width=24), count=100_000)
        assert max(result[n]["max"] for n in MEANINGFUL_OUTPUTS[(System.CIRCULAR, direction)]) <= 2


@pytest.mark.parametrize("system, direction", MODES)
@pytest.mark.parametrize("normalization", ["interleaved", "after", "multiply", "none"])
def test_corner_inputs_never_overflow_inside(system, direction, normalization):
    # The model raises OverflowError when an internal value leaves its register after any
    # step (see the next test); corners are the worst case of the growth.
    config = CordicConfig(system, direction, width=12, normalization=normalization)
    cordic_model(config, *corner_inputs(config))


def test_internal_overflow_is_an_exception_not_an_assert():
    class NoGrowthBits(CordicConfig):  # registers as narrow as the scaled ports
        @property
        def xy_width(self):
            return self.width + self.guard_bits

    config = NoGrowthBits("circular", "vectoring", width=12)
    with pytest.raises(OverflowError,
                       match=r"internal x leaves signed\(17\) after the pre-rotation"):
        cordic_model(config, *corner_inputs(config))


@pytest.mark.parametrize("system", [System.LINEAR, System.HYPERBOLIC])
def test_out_of_domain_inputs_are_flagged(system):
    rng = np.random.default_rng(5)
    fmt = CordicConfig(system, "rotation").io_format
    rot = CordicConfig(system, "rotation")
    z = fmt.from_float(rng.uniform(1.2, 1.5, 500) * rot.convergence_limit * rng.choice([-1, 1],
                                                                                       500))
    assert cordic_model(rot, 100, 0, z).domain_error.all()
    vec = CordicConfig(system, "vectoring")
    x = fmt.from_float(rng.uniform(0.2, 0.5, 500))
    limit = 1.98 if system is System.LINEAR else 1.0  # |y/x| past the domain
    y = fmt.from_float(fmt.to_float(x) * rng.uniform(1.05, 1.2, 500) * limit)
    assert cordic_model(vec, x, y, 0).domain_error.all()
    assert cordic_model(vec, 0, 100, 0).domain_error.all()  # division by zero


def test_circular_never_flags_domain():
    config = CordicConfig("circular", "vectoring", width=12)
    assert not cordic_model(config, *corner_inputs(config)).domain_error.any()


def test_overflow_is_flagged_not_wrapped():
    config = CordicConfig("circular", "vectoring", width=12)
    fmt = config.io_format
    out = cordic_model(config, fmt.max_int, fmt.max_int, 0)  # length sqrt(2) * full scale
    assert out.overflow.all() and out.x.tolist() == [fmt.max_int]


def test_rejects_codes_outside_the_port_width():
    config = CordicConfig("circular", "rotation", width=8)
    with pytest.raises(ValueError, match=r"x codes must fit signed\(8\)"):
        cordic_model(config, 128, 0, 0)
    with pytest.raises(TypeError, match="z must hold integer codes"):
        cordic_model(config, 1, 0, 0.5)

