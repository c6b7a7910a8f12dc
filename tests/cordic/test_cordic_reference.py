import numpy as np
import pytest

from robohw.cordic.config import Direction, System
from robohw.cordic.reference import cordic_float_iteration, cordic_ideal

MODES = [(s, d) for s in System for d in Direction]


def in_domain(system, direction, rng, count=2000):
    if system is System.CIRCULAR:
        return rng.uniform(-1, 1, count), rng.uniform(-1, 1, count), rng.uniform(-np.pi, np.pi,
                                                                                 count)
    x = rng.uniform(0.2, 1, count) * rng.choice([-1, 1], count)
    if direction is Direction.ROTATION:
        limit = 1.9 if system is System.LINEAR else 1.1
        return x, rng.uniform(-1, 1, count), rng.uniform(-limit, limit, count)
    ratio = 1.9 if system is System.LINEAR else 0.8
    return x, x * rng.uniform(-ratio, ratio, count), rng.uniform(-0.5, 0.5, count)


@pytest.mark.parametrize("system, direction", MODES)
def test_closed_forms_equal_the_float_recurrence(system, direction):
    x, y, z = in_domain(system, direction, np.random.default_rng(3))
    ideal = cordic_ideal(system, direction, x, y, z)
    iterated = cordic_float_iteration(system, direction, x, y, z, iterations=60)
    for name, a, b in zip("xyz", ideal, iterated):
        if name == "z" and system is System.CIRCULAR and direction is Direction.VECTORING:
            a, b = np.exp(1j * a), np.exp(1j * b)
        assert np.max(np.abs(a - b)) < 1e-12, name


def test_textbook_values():
    x, y, z = cordic_ideal(System.CIRCULAR, Direction.ROTATION, 1.0, 0.0, np.pi / 6)
    assert (x, y) == pytest.approx((np.sqrt(3) / 2, 0.5))
    x, _, z = cordic_ideal(System.CIRCULAR, Direction.VECTORING, -1.0, -1.0, 0.0)
    assert (x, z) == pytest.approx((np.sqrt(2), -3 * np.pi / 4))
    x, y, _ = cordic_ideal(System.HYPERBOLIC, Direction.ROTATION, 1.0, 0.0, 0.5)
    assert (x, y) == pytest.approx((np.cosh(0.5), np.sinh(0.5)))
    x, _, z = cordic_ideal(System.HYPERBOLIC, Direction.VECTORING, 1.25, 0.75, 0.0)
    assert (x, z) == pytest.approx((1.0, np.arctanh(0.6)))
    assert cordic_ideal(System.LINEAR, Direction.ROTATION, 3.0, 1.0, 0.5)[1] == 2.5
    assert cordic_ideal(System.LINEAR, Direction.VECTORING, 4.0, 1.0, 0.25)[2] == 0.5

