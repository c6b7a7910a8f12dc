"""Zomaya & Morris's allocation tables: each gives the 64 subtasks to the slaves exactly once
(which checks our reading of the C_4 and C_5 bundles and of the OCR'd tables)."""

import numpy as np
import pytest

from robohw.transputer.allocation import (
    check_allocation,
    expand,
    loads,
    lpt_allocation,
    paper_allocation,
    units,
)
from robohw.transputer.lagrange_euler_tasks import PAPER_SUBTASKS

# Subtasks per processor (the C_4 and C_5 bundles counted as 7 and 3 subtasks).
COUNTS = {3: [24, 17, 23], 6: [8, 14, 11, 11, 10, 10], 7: [5, 9, 8, 6, 12, 16, 8],
          8: [11, 7, 13, 7, 5, 9, 6, 6]}


@pytest.mark.parametrize("processors", [3, 6, 7, 8])
def test_each_table_covers_the_64_subtasks_once(processors):
    allocation = check_allocation(paper_allocation(processors))
    assert [len(tasks) for tasks in allocation] == COUNTS[processors]
    assert sum(COUNTS[processors]) == len(PAPER_SUBTASKS) == 64


def test_groups_expand_to_their_terms():
    assert [task.name for task in expand("h")] == ["h2", "h3", "h4", "h5"]
    assert len(expand("D")) == 17 and len(expand("C1")) == 14 and len(expand("C4")) == 7
    assert [task.name for task in expand("C5 D14")] == ["C5_16", "C5_26", "C5_46", "D14"]


def test_bad_allocations_are_refused():
    table = paper_allocation(3)
    with pytest.raises(ValueError, match="h2 is on P1 and P2"):
        check_allocation((table[0], table[1] + expand("h2"), table[2]))
    with pytest.raises(ValueError, match="no processor has D11, D12"):
        check_allocation((table[0], table[1], tuple(t for t in table[2] if t.kind != "D")))
    with pytest.raises(ValueError, match="unknown subtask 'C7_12'"):
        expand("C7_12")
    with pytest.raises(ValueError, match="unknown subtask 'C6'"):
        expand("C6")
    with pytest.raises(ValueError, match="the paper allocates to 3, 6, 7, 8 slaves, not 5"):
        paper_allocation(5)


@pytest.mark.parametrize("processors", [1, 3, 8, 16, 64])
def test_lpt_covers_everything_keeps_bundles_and_meets_grahams_bound(processors):
    rng = np.random.default_rng(processors)
    cost = {task: float(rng.uniform(0.05, 1.3)) for task in PAPER_SUBTASKS}
    allocation = check_allocation(lpt_allocation(cost, processors))
    for bundle in ("C4", "C5"):
        holders = {p for p, tasks in enumerate(allocation) for t in tasks if t.bundle == bundle}
        assert len(holders) == 1
    biggest = max(sum(cost[task] for task in unit) for unit in units())
    assert max(loads(allocation, cost)) <= sum(cost.values()) / processors \
        + (1 - 1 / processors) * biggest + 1e-12
    assert len(units()) == 64 - 7 - 3 + 2


def test_lpt_refuses_a_bad_processor_count():
    with pytest.raises(ValueError, match="processors must be a positive integer, not 0"):
        lpt_allocation({}, 0)


def test_lpt_counts_each_processors_start_time():
    # Two equal units and a head start of one unit's cost on P1: both go to P2 only if P2
    # stays the least loaded, i.e. never here: the first goes to P2, the second to P1 (tie
    # at equal loads goes to the first).
    a, b = PAPER_SUBTASKS[0], PAPER_SUBTASKS[1]
    cost = {a: 1.0, b: 1.0}
    assert lpt_allocation(cost, 2, (a, b), start_ms=(1.0, 0.0)) == ((b,), (a,))
    assert lpt_allocation(cost, 2, (a, b), start_ms=(5.0, 0.0)) == ((), (a, b))
    with pytest.raises(ValueError, match="1 start times for 2 processors"):
        lpt_allocation(cost, 2, (a, b), start_ms=(0.0,))
