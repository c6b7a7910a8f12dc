"""The named functions of Figure 1, evaluated bit-exactly, against numpy."""

import numpy as np
import pytest

from robohw.cordic.functions import FUNCTIONS
from robohw.cordic.model import evaluate_function

RNG = np.random.default_rng(11)
N = 20_000
LENGTH, ANGLE = RNG.uniform(0.25, 1, N), RNG.uniform(-np.pi, np.pi, N)
# Arguments inside each function's domain (see the summaries in robohw.cordic.functions).
ARGUMENTS = {
    "rotate": (RNG.uniform(-1, 1, N), RNG.uniform(-1, 1, N), RNG.uniform(-np.pi, np.pi, N)),
    # The angle of a short vector is only as good as its length in LSBs: |(x, y)| >= 1/4.
    "translate": (LENGTH * np.cos(ANGLE), LENGTH * np.sin(ANGLE)),
    "sin_cos": (RNG.uniform(-np.pi, np.pi, N),),
    "atan2": (RNG.uniform(0.25, 1, N) * RNG.choice([-1, 1], N), RNG.uniform(-1, 1, N)),
    "hypot": (RNG.uniform(-1.2, 1.2, N), RNG.uniform(-1.2, 1.2, N)),
    "hypot_diff": (RNG.uniform(0.5, 2, N), RNG.uniform(-0.39, 0.39, N)),
    "sqrt": (RNG.uniform(0.03, 2, N),),
    "multiply_add": (RNG.uniform(-1, 1, N), RNG.uniform(-1.9, 1.9, N), RNG.uniform(-1, 1, N)),
    "divide": (RNG.uniform(-0.9, 0.9, N), RNG.uniform(0.5, 1, N) * RNG.choice([-1, 1], N)),
    "sinh_cosh": (RNG.uniform(-1.1, 1.1, N),),
    "atanh": (RNG.uniform(-0.8, 0.8, N),),
}


def test_every_function_has_arguments():
    assert set(ARGUMENTS) == set(FUNCTIONS)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("normalization", ["interleaved", "none"])
def test_function_matches_numpy(name, normalization):
    function = FUNCTIONS[name]
    args = ARGUMENTS[name]
    results, out = evaluate_function(name, *args, width=24, normalization=normalization)
    assert not out.domain_error.any() and not out.overflow.any()
    lsb = 2.0 ** -21
    for result, got, want in zip(function.results, results, function.reference(*args)):
        error = got - want
        if result == "angle":
            error = np.angle(np.exp(1j * error))  # -pi and pi are the same angle
        # The inputs are quantized to the port format first: allow for their propagation
        # (a few LSBs: divide and atan2 scale input errors by up to 1/|x| <= 4).
        assert np.max(np.abs(error)) < 16 * lsb, (name, result)


def test_textbook_values():
    (cos, sin), _ = evaluate_function("sin_cos", np.pi / 6, width=24)
    assert (cos[()], sin[()]) == pytest.approx((np.sqrt(3) / 2, 0.5), abs=2 ** -20)
    (quotient,), _ = evaluate_function("divide", 1.0, 3.0, width=24)
    assert quotient[()] == pytest.approx(1 / 3, abs=2 ** -21)
    (result,), _ = evaluate_function("multiply_add", 3.0, 0.5, 1.0, width=24)
    assert result[()] == 2.5


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="Unknown CORDIC function 'tan'; known: atan2"):
        evaluate_function("tan", 1.0)
    with pytest.raises(TypeError,
                       match=r"divide takes 2 arguments \(numerator, denominator\), not 1"):
        evaluate_function("divide", 1.0)
    with pytest.raises(OverflowError, match="out of range"):
        evaluate_function("hypot", 5.0, 0.0, width=16)


def test_out_of_domain_is_flagged():
    _, out = evaluate_function("divide", 1.0, 0.25, width=16)  # quotient 4 > 2
    assert out.domain_error.all()
    _, out = evaluate_function("atanh", 0.95, width=16)
    assert out.domain_error.all()
