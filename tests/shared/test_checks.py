"""The shared argument checks: TypeError for a wrong type, ValueError for a bad value, numpy
scalars accepted, and the messages every caller's tests match."""

import numpy as np
import pytest

from robohw.hw.checks import (
    check_bool,
    check_choice,
    check_integer,
    check_number,
    check_positive_integer,
)


@pytest.mark.parametrize("value", [3, np.int64(3), np.uint8(3), np.int32(3)])
def test_integers_of_any_kind_come_back_as_python_ints(value):
    checked = check_integer("n", value, minimum=0, maximum=3)
    assert checked == 3 and type(checked) is int


@pytest.mark.parametrize("value", [True, False, 3.0, np.float64(3), "3", None, [3]])
def test_what_is_not_an_integer_is_a_type_error(value):
    with pytest.raises(TypeError, match=r"^n must be an integer, not "):
        check_integer("n", value)


@pytest.mark.parametrize("bounds, value, wanted", [
    (dict(minimum=1), 0, "a positive integer"),
    (dict(minimum=0), -1, "a non-negative integer"),
    (dict(minimum=2), 1, "an integer of at least 2"),
    (dict(maximum=8), 9, "an integer of at most 8"),
    (dict(minimum=4, maximum=40), 41, r"an integer in \[4, 40\]"),
    (dict(minimum=4, maximum=40), 3, r"an integer in \[4, 40\]")])
def test_an_integer_out_of_range_is_a_value_error(bounds, value, wanted):
    with pytest.raises(ValueError, match=rf"^n must be {wanted}, not {value}$"):
        check_integer("n", value, **bounds)
    assert check_integer("n", bounds.get("minimum", bounds.get("maximum")), **bounds) == \
        bounds.get("minimum", bounds.get("maximum"))


def test_the_positive_integer_check_is_the_integer_check_from_one():
    assert check_positive_integer("fold", np.int16(6)) == 6
    with pytest.raises(ValueError, match="^fold must be a positive integer, not 0$"):
        check_positive_integer("fold", 0)
    with pytest.raises(TypeError, match="^fold must be an integer, not 1.5$"):
        check_positive_integer("fold", 1.5)


@pytest.mark.parametrize("value", [2, 2.5, np.float32(2.5), np.int8(2)])
def test_numbers_of_any_kind_come_back_as_floats(value):
    checked = check_number("x", value, above=0)
    assert checked == float(value) and type(checked) is float


@pytest.mark.parametrize("bounds, value, wanted", [
    (dict(above=0), 0, "a positive number"),
    (dict(above=0, unit="seconds"), -1.0, "a positive number of seconds"),
    (dict(minimum=0), -0.5, "a non-negative number"),
    (dict(above=0, below=100, unit="MHz"), 100, r"a number of MHz in \(0, 100\)"),
    (dict(above=0), float("inf"), "a positive number"),
    (dict(), float("nan"), "a finite number")])
def test_a_number_out_of_range_or_not_finite_is_a_value_error(bounds, value, wanted):
    with pytest.raises(ValueError, match=rf"^x must be {wanted}, not "):
        check_number("x", value, **bounds)


@pytest.mark.parametrize("value", [True, "1.0", None, 1j])
def test_what_is_not_a_number_is_a_type_error(value):
    with pytest.raises(TypeError, match="^x must be a number, not "):
        check_number("x", value)


def test_choices_and_bools():
    assert check_choice("backend", "model", ("float", "model")) == "model"
    with pytest.raises(ValueError, match="^backend must be one of float, model, not 'rtl'$"):
        check_choice("backend", "rtl", ("float", "model"))
    assert check_choice("speed", 6, (6, 7, 8)) == 6
    with pytest.raises(ValueError, match="^speed must be one of 6, 7, 8, not 9$"):
        check_choice("speed", 9, (6, 7, 8))
    assert check_bool("check_ranges", False) is False
    with pytest.raises(TypeError, match="^check_ranges must be a bool, not 1$"):
        check_bool("check_ranges", 1)
