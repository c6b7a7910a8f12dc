"""Latency and interval measured from transfer cycles (robohw.sim.measure), as the report and
`robohw sim` compute them."""

from fractions import Fraction

import pytest

from robohw.sim.measure import measure_timing


def test_uniform_results():
    timing = measure_timing([3, 8], [20, 25, 30, 35])
    assert (timing.latency, timing.interval, timing.throughput) == (17, 5, Fraction(1, 5))


def test_results_in_pairs_count_per_result():
    # The word-serial IK sends two results in consecutive cycles of every 96-cycle stage.
    timing = measure_timing([0, 1, 96, 97], [1058, 1059, 1154, 1155, 1250])
    assert (timing.interval, timing.throughput) == (48, Fraction(1, 48))


def test_the_longest_span_counts_and_an_odd_one_is_halved():
    assert measure_timing([0], [10, 11, 20, 21, 40]).interval == 10
    assert measure_timing([0], [10, 11, 14]).interval == 2
    assert measure_timing([0], [10, 15, 16]).interval == 3
    assert measure_timing([0], [10, 17, 18]).interval == 4
    timing = measure_timing([0], [10, 11, 13])
    assert (timing.interval, timing.throughput) == (1.5, Fraction(2, 3))


def test_two_results_give_their_gap_and_one_none():
    assert measure_timing([0], [4, 9]).interval == 5
    assert measure_timing([0], [4]).interval is None


def test_a_run_without_transfers_is_refused():
    with pytest.raises(ValueError, match="a timing needs at least one input and one output"):
        measure_timing([], [1])
