"""The predictive T800 costs: the work of a few subtasks counted by hand from the paper's
trace form, and its time under the stated timings."""

import pytest

from robohw.robots import load_robot
from robohw.transputer.lagrange_euler_tasks import PAPER_SUBTASKS
from robohw.transputer.predictive import (
    T800,
    Work,
    link_terms,
    predicted_costs,
    share_operations,
    slave_work,
    subtask_work,
)

BY_NAME = {task.name: task for task in PAPER_SUBTASKS}


@pytest.fixture(scope="module")
def stanford():
    return load_robot("stanford")


def test_the_time_of_work_is_its_cycles():
    timing = T800()
    assert timing.time_ms(Work(1, 0)) == pytest.approx(29 * 0.05e-3)
    assert timing.time_ms(Work(0, 1)) == pytest.approx(16 * 0.05e-3)
    assert timing.time_ms(Work(0, 0, 2, 3)) == pytest.approx((2 * 30 + 3 * 5) / 1e3)


def test_share_operations():
    assert share_operations(BY_NAME["h3"]) == (0, 1)
    assert share_operations(BY_NAME["D11"]) == (1, 1)
    assert share_operations(BY_NAME["D12"]) == (2, 2)
    # C1_22: C qd2^2 to joint 1 (2 mul, 1 add) and, j = 2 > i = 1, no reflexive partner.
    assert share_operations(BY_NAME["C1_22"]) == (2, 1)
    # C2_13: 2 C qd1 qd3 to joint 2 (3 mul, 1 add); j = 1 <= min(2, 3): -2 C qd1 qd2 to 3.
    assert share_operations(BY_NAME["C2_13"]) == (6, 2)
    # C3_44: j = 4 > i = 3: no partner; j == k: no doubling.
    assert share_operations(BY_NAME["C3_44"]) == (2, 1)


def test_the_links_a_term_sums_over():
    # The 64 sum over 49 D, 97 C and 14 h link terms on the 6-joint arm.
    totals = {"D": 0, "C": 0, "h": 0}
    for task in PAPER_SUBTASKS:
        totals[task.kind] += link_terms(task, 6)
    assert totals == {"D": 49, "C": 97, "h": 14}
    assert link_terms(BY_NAME["C1_56"], 6) == 1 and link_terms(BY_NAME["D11"], 6) == 6


def test_work_of_three_subtasks(stanford):
    # D12, links 2-6: per link Delta_2 J (64, 48) and the trace with Delta_1 (16, 15), the
    # d vectors of joints 1 and 2 (both revolute: 2 x (6, 3)); 4 additions across the links;
    # the share D12 qdd2 to joint 1 and D12 qdd1 to joint 2 (2, 2).
    assert subtask_work(stanford, BY_NAME["D12"]) == Work(5 * (80 + 12) + 2,
                                                         5 * (63 + 6) + 4 + 2, 0, 1)
    # C3_45, links 5-6: two products and the trace (144, 111); joint 3 is prismatic, so two
    # d vectors (joints 4 and 5); the share 2 C qd4 qd5 to joint 3 (3, 1), no partner.
    assert subtask_work(stanford, BY_NAME["C3_45"]) == Work(2 * (144 + 12) + 3,
                                                           2 * (111 + 6) + 1 + 1, 0, 1)
    # h5, links 5-6: (37, 27) a link and joint 5's d vector; the share adds it (0, 1).
    assert subtask_work(stanford, BY_NAME["h5"]) == Work(2 * (37 + 6), 2 * (27 + 3) + 1 + 1,
                                                        0, 1)


def test_every_slave_takes_sin_and_cos_of_the_revolute_joints(stanford):
    assert slave_work(stanford) == Work(0, 0, 10, 0)


def test_costs_cover_every_subtask(stanford):
    costs, slave_ms = predicted_costs(stanford)
    assert set(costs) == set(PAPER_SUBTASKS)
    assert slave_ms == pytest.approx(10 * 30e-3)
    assert costs[BY_NAME["D12"]] == pytest.approx(
        T800().time_ms(subtask_work(stanford, BY_NAME["D12"])))


def test_bad_timings_are_refused():
    with pytest.raises(ValueError, match="trig_us must be a non-negative number"):
        T800(trig_us=-1)
