"""Figures as closing lines and refusals give them (robohw.support.figures): a joint's figures
compact and in order; a share rounded up, so that the share a refusal names accepts it."""

import pytest

from robohw.support.figures import figure_list, rounded_up


def test_figures_are_compact_and_in_order():
    assert figure_list([0.4649, 0.33, 3.53e-06]) == "0.46, 0.33, 3.5e-06"
    assert figure_list([1.0], digits=3) == "1"


@pytest.mark.parametrize("share, text", [(0.0334, "0.034"), (0.15, "0.15"), (0.0646, "0.065"),
                                         (1.0, "1"), (12.01, "13")])
def test_a_share_is_rounded_up_to_two_digits(share, text):
    assert rounded_up(share) == text and float(text) >= share
