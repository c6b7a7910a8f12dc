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


def test_a_measured_row_is_kept_and_found_by_what_determines_it(monkeypatch, tmp_path):
    from robohw.registry import DESIGNS
    from robohw.sim import measure

    monkeypatch.setenv("ROBOHW_CACHE", str(tmp_path))
    design = DESIGNS["cordic-word-serial"]
    row = measure.measured_design(design, count=2)
    assert row == measure.measure_design(design, count=2) | {
        "amaranth_cycles_per_s": row["amaranth_cycles_per_s"]}
    assert len(list((tmp_path / "measured").glob("*.json"))) == 1

    def simulated(*args, **kwargs):
        raise AssertionError("simulated again")

    monkeypatch.setattr(measure, "measure_design", simulated)
    assert measure.measured_design(design, count=2) == row       # found, not simulated
    with pytest.raises(AssertionError, match="simulated again"):
        measure.measured_design(design, count=3)                  # another count: another row
    monkeypatch.setattr(measure, "source_digest", lambda: "other code")
    with pytest.raises(AssertionError, match="simulated again"):
        measure.measured_design(design, count=2)                  # other code: measured again
