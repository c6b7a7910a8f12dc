"""The predictive T800 costs: the work each subtask does, counted by hand for a few, and its
time under the stated timings."""

import pytest

from robohw.reference.lagrange_euler_tasks import PAPER_SUBTASKS
from robohw.robots import load_robot
from robohw.robots.description import Joint
from robohw.transputer.allocation import units
from robohw.transputer.counts import subtask_counts
from robohw.transputer.predictive import (T800, Work, predicted_costs, share_operations,
                                          transform_entries, unit_work)

BY_NAME = {task.name: task for task in PAPER_SUBTASKS}


@pytest.fixture(scope="module")
def stanford():
    return load_robot("stanford")


@pytest.fixture(scope="module")
def counts(stanford):
    return subtask_counts(stanford)


def test_the_time_of_work_is_its_cycles():
    timing = T800()
    assert timing.time_ms(Work(1, 0, 0, 0, 0)) == pytest.approx(29 * 0.05e-3)
    assert timing.time_ms(Work(0, 1, 0, 0, 0)) == pytest.approx(16 * 0.05e-3)
    # A homogeneous 4x4 product: 3x3 rotation times rotation (27 mul, 18 add) and the
    # rotation times a translation plus a translation (9 mul, 9 add).
    assert timing.time_ms(Work(0, 0, 1, 0, 0)) == pytest.approx((36 * 29 + 27 * 16) * 0.05e-3)
    assert T800(matrix="general").time_ms(Work(0, 0, 1, 0, 0)) == pytest.approx(
        (64 * 29 + 48 * 16) * 0.05e-3)
    assert timing.time_ms(Work(0, 0, 0, 2, 3)) == pytest.approx((2 * 30 + 3 * 5) / 1e3)


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


def test_transform_entries():
    # The Stanford arm's twists are 0 and +-90 degrees and its a are 0: nothing to multiply.
    assert [transform_entries(j) for j in load_robot("stanford").joints] == [0] * 6
    puma = load_robot("puma560").joints
    # PUMA joint 3: a = 0.4318, twist 0: cos and sin of theta times a.
    assert transform_entries(puma[2]) == 2
    slanted = Joint(type="revolute", a=0.1, alpha=0.5, d=0.0, offset=0.0)
    assert transform_entries(slanted) == 6


def test_d11_rebuilds_the_chain_from_joint_1(stanford, counts):
    work = unit_work(stanford, (BY_NAME["D11"],), counts)
    formula_mul, formula_add = counts[BY_NAME["D11"]]
    # Chain A1..A6: 5 products; sin and cos of the 5 revolute joints; joint 1's d vector in
    # each of links 1-6 (6 mul, 3 add each) twice (i and j are both 1, counted once); the
    # share: one product and one sum.
    assert work.matrix_products == 5
    assert work.trig_calls == 10
    assert work.multiplications == formula_mul + 6 * 6 + 1
    assert work.additions == formula_add + 3 * 6 + 1
    assert work.calls == 1


def test_a_bundle_builds_its_chains_once(stanford, counts):
    c5 = next(unit for unit in units() if unit[0].bundle == "C5")
    work = unit_work(stanford, c5, counts)
    # Members C5_16, C5_26, C5_46: chains from joints 1, 2, 4, 5, 6: 5 + 4 + 2 + 1 + 0.
    assert work.matrix_products == 12
    assert work.calls == 3


def test_without_recomputing_only_the_formulas_remain(stanford, counts):
    task = BY_NAME["C1_12"]
    work = unit_work(stanford, (task,), counts, recompute=False)
    share = share_operations(task)
    assert (work.multiplications, work.additions) == (counts[task][0] + share[0],
                                                       counts[task][1] + share[1])
    assert work.matrix_products == work.trig_calls == 0


def test_costs_cover_every_subtask_and_a_bundle_sums_to_its_program(stanford, counts):
    costs = predicted_costs(stanford)
    assert set(costs) == set(PAPER_SUBTASKS)
    c4 = next(unit for unit in units() if unit[0].bundle == "C4")
    assert sum(costs[t] for t in c4) == pytest.approx(
        T800().time_ms(unit_work(stanford, c4, counts)))
    assert all(cost > 0 for cost in costs.values())


def test_bad_timings_are_refused():
    with pytest.raises(ValueError, match="matrix must be 'general' or 'homogeneous'"):
        T800(matrix="sparse")
    with pytest.raises(ValueError, match="trig_us must be a non-negative number"):
        T800(trig_us=-1)
