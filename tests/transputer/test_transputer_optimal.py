"""The optimal allocator against brute force on small instances, and its certificate."""

import itertools

import numpy as np
import pytest

from robohw.transputer.lagrange_euler_tasks import Subtask
from robohw.transputer.optimal import TICK_MS, lower_bound_ms, makespan_ms, optimal_allocation

TASKS = tuple(Subtask("D", 1, j) for j in range(1, 8))


def _brute_force(cost, comm):
    best = float("inf")
    for places in itertools.product(range(len(comm)), repeat=len(TASKS)):
        loads = [0.0] * len(comm)
        for task, p in zip(TASKS, places):
            loads[p] += cost[task]
        best = min(best, max(load + c for load, c in zip(loads, comm)))
    return best


@pytest.mark.parametrize("seed", range(4))
def test_the_optimum_is_brute_forces(seed):
    rng = np.random.default_rng(seed)
    # Costs and link times in whole ticks, so that the solver's rounding changes nothing.
    cost = {task: int(rng.integers(1, 60)) * TICK_MS for task in TASKS}
    comm = tuple(int(c) * TICK_MS for c in rng.integers(0, 20, 3))
    found = optimal_allocation(cost, comm, subtasks=TASKS)
    assert found.certified, found.reason
    assert found.makespan_ms == pytest.approx(_brute_force(cost, comm))
    assert found.makespan_ms == pytest.approx(makespan_ms(found.allocation, cost, comm))
    assert sorted(t.name for tasks in found.allocation for t in tasks) == sorted(
        t.name for t in TASKS)
    assert found.lower_bound_ms <= found.makespan_ms + 1e-12 <= found.lpt_ms + 2e-12


def test_the_lower_bound():
    cost = {task: TICK_MS * w for task, w in zip(TASKS, (50, 10, 10, 10, 10, 5, 5))}
    # The largest unit on the cheapest place: 0.5 + 0.01; the average: (1.0 + 0.03) / 3.
    assert lower_bound_ms(cost, (0.01, 0.01, 0.01), TASKS) == pytest.approx(0.51)
    assert lower_bound_ms(cost, (0.3, 0.3, 0.3), TASKS) == pytest.approx(0.8)


def test_a_search_cut_short_is_not_called_optimal():
    from robohw.robots import load_robot
    from robohw.transputer.costs import calibrate
    from robohw.transputer.machine import communication_ms
    from robohw.transputer.topology import tree
    cost = calibrate(load_robot("stanford")).cost_ms
    found = optimal_allocation(cost, communication_ms(tree(16)), time_limit_s=0.2)
    assert not found.certified
    # Cut short, with or without a solution by then (a loaded machine may find none).
    assert found.reason.startswith(("HiGHS left a gap", "HiGHS found no solution"))
    assert found.lower_bound_ms <= found.makespan_ms


def test_a_search_cut_short_never_returns_worse_than_lpt():
    from robohw.robots import load_robot
    from robohw.transputer.costs import calibrate
    from robohw.transputer.machine import communication_ms
    from robohw.transputer.topology import tree
    cost = calibrate(load_robot("stanford")).cost_ms
    comm = communication_ms(tree(11))
    found = optimal_allocation(cost, comm, time_limit_s=0.05)
    assert found.makespan_ms <= found.lpt_ms + 1e-12
    # Its makespan is the returned allocation's, on the solver's ticks.
    ticks = {t: round(c / TICK_MS) * TICK_MS for t, c in cost.items()}
    comm_ticks = [round(c / TICK_MS) * TICK_MS for c in comm]
    assert found.makespan_ms == pytest.approx(makespan_ms(found.allocation, ticks, comm_ticks),
                                              abs=1e-9)
