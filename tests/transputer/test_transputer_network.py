"""The transputer network's event simulation: times derived by hand from the links' rates and
the tree, resources never double-booked, every activity after what it waits for."""

import itertools

import numpy as np
import pytest

from robohw.transputer.network import Links, simulate
from robohw.transputer.topology import tree

# 18 REAL64 numbers = 144 bytes of 11.5 bit times at 20 Mbit/s; 6 numbers = 48 bytes.
STATE_MS = 144 * 11.5 / 20e6 * 1e3
PARTIAL_MS = 48 * 11.5 / 20e6 * 1e3


def test_a_message_takes_its_bytes_at_the_links_byte_rate():
    assert Links().transfer_ms(18) == pytest.approx(STATE_MS)
    assert STATE_MS == pytest.approx(0.0828)                # 82.8 us
    assert Links(mbit_per_s=10.0, word_bytes=4).transfer_ms(18) == pytest.approx(STATE_MS)


def test_one_slave_adds_the_state_its_work_the_partial_sum_and_the_addition():
    sample = simulate(tree(1), [2.0], reduce_ms=0.005)
    assert sample.time_ms == pytest.approx(STATE_MS + 2.0 + PARTIAL_MS + 0.005)
    assert sample.busy_ms[0] == pytest.approx(STATE_MS + 2.0 + PARTIAL_MS)


def test_a_second_level_slave_waits_for_the_forwarded_state_and_forwards_its_sum():
    # 6 slaves: P4-P6 one hop further than P1-P3; all compute 1 ms.
    sample = simulate(tree(6), [1.0] * 6)
    starts = {a.slave: a.start_ms for a in sample.activities if a.kind == "compute"}
    assert [starts[s] for s in range(1, 7)] == pytest.approx([STATE_MS] * 3
                                                             + [2 * STATE_MS] * 3)
    assert sample.time_ms == pytest.approx(2 * STATE_MS + 1.0 + 2 * PARTIAL_MS)
    # Busy: its own state and partial sum around its work, the same on both levels.
    assert sample.busy_ms == pytest.approx((STATE_MS + 1.0 + PARTIAL_MS,) * 6)


def test_partial_sums_queue_on_a_shared_uplink():
    # 7 slaves: P1 has P4 and P7 below it. P1 computes nothing, P4 and P7 1 ms: their sums
    # reach P1 together and leave on P1>P0 one after the other.
    work = [0.0, 5.0, 5.0, 1.0, 5.0, 5.0, 1.0]
    sample = simulate(tree(7), work)
    up = sorted((a for a in sample.activities if a.resource == "P1>P0"),
                key=lambda a: a.start_ms)
    assert [a.slave for a in up] == [1, 4, 7]
    arrive = 2 * STATE_MS + 1.0 + PARTIAL_MS
    assert up[1].start_ms == pytest.approx(arrive)
    assert up[2].start_ms == pytest.approx(arrive + PARTIAL_MS)
    assert up[2].end_ms == pytest.approx(arrive + 2 * PARTIAL_MS)


@pytest.mark.parametrize("processors", [3, 8, 16, 64])
def test_no_resource_is_double_booked_and_nothing_starts_early(processors):
    rng = np.random.default_rng(processors)
    work = rng.uniform(0, 2, processors)
    sample = simulate(tree(processors), work, reduce_ms=0.004)
    by_resource = {}
    for a in sample.activities:
        by_resource.setdefault(a.resource, []).append(a)
    for activities in by_resource.values():
        activities.sort(key=lambda a: a.start_ms)
        for first, second in itertools.pairwise(activities):
            assert second.start_ms >= first.end_ms - 1e-12
    topology = tree(processors)
    state_end = {a.slave: a.end_ms for a in sample.activities if a.kind == "state"}
    for a in sample.activities:
        if a.kind == "compute":
            assert a.start_ms == pytest.approx(state_end[a.slave])
            assert a.end_ms - a.start_ms == pytest.approx(work[a.slave - 1])
        if a.kind == "state" and topology.parents[a.slave - 1]:
            assert a.start_ms >= state_end[topology.parents[a.slave - 1]] - 1e-12
    assert sum(a.kind == "reduce" for a in sample.activities) == processors
    assert sample.time_ms == max(a.end_ms for a in sample.activities)
    assert np.allclose(sample.utilisation, np.array(sample.busy_ms) / sample.time_ms)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="2 compute times for 3 slaves"):
        simulate(tree(3), [1.0, 1.0])
    with pytest.raises(ValueError, match="non-negative"):
        simulate(tree(1), [-1.0])
    with pytest.raises(TypeError, match="tree must be a Tree"):
        simulate(3, [1.0] * 3)
    with pytest.raises(ValueError, match="word_bytes must be 4"):
        Links(word_bytes=2)
    with pytest.raises(ValueError, match="mbit_per_s must be a positive number"):
        Links(mbit_per_s=0)
    with pytest.raises(ValueError, match="state_words must be a positive integer"):
        Links(state_words=0)


def test_a_round_trip_is_the_state_down_and_a_partial_sum_up():
    assert Links().round_trip_ms == pytest.approx(STATE_MS + PARTIAL_MS)
