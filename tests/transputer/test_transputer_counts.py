"""Operation counts of the Lagrange-Euler subtasks over counting scalars."""

import numpy as np

from robohw.robots import load_robot
from robohw.robots.sampling import random_robot
from robohw.transputer.counts import structural_pattern, subtask_counts
from robohw.transputer.lagrange_euler_tasks import PAPER_SUBTASKS

BY_NAME = {task.name: task for task in PAPER_SUBTASKS}


def test_the_stanford_arms_structure():
    delta, d, gravity = structural_pattern(load_robot("stanford"))
    # Spec B.4's table: joint 1 in frame 1 turns about y only; the prismatic joint 3 turns
    # nothing and moves along z in frame 3; joint 6 turns about z in frame 6 and moves nothing.
    assert delta[0, 0].tolist() == [False, True, False] and not d[0, 0].any()
    assert not delta[2].any() and d[2, 2].tolist() == [False, False, True]
    assert delta[5, 5].tolist() == [False, False, True] and not d[5, 5].any()
    assert not delta[3, :3].any()            # no joint acts on the links before it
    assert gravity[0].tolist() == [False, True, False]     # link 1 points along the vertical


def test_counts_of_terms_worked_by_hand():
    counts = subtask_counts(load_robot("stanford"), [BY_NAME["D16"], BY_NAME["C5_16"]])
    # D16: link 6 only, delta_6 = (0, 0, z) and d_6 = 0, first moments (0, 0, f) on the axis:
    # tr(S) (delta_1z delta_6z) and delta_6z (S_33 delta_1z): 4 products, 1 difference; the
    # first-moment and d_6 terms vanish.
    assert counts[BY_NAME["D16"]] == (4, 1)
    # C5_16: link 6: delta_1 . S (delta_6 x delta_5) with delta_5 = (x, y, 0), delta_6 = (0, 0,
    # z): the cross product (z y5, -z x5)... 2 products, S (diagonal) 2, the dot product 2 and
    # 1 sum; the terms in f and d vanish (d_6 = 0, f on delta_6's axis).
    assert counts[BY_NAME["C5_16"]] == (6, 1)


def test_every_subtask_costs_something_and_structure_saves():
    stanford = subtask_counts(load_robot("stanford"))
    assert all(mul >= 1 for mul, _ in stanford.values())
    # The same 64 terms of a robot with general twists and full inertia tensors: only the
    # zeros every robot has remain (a joint's own axis in its frame), so each term costs more.
    general = subtask_counts(random_robot(np.random.default_rng(4), 6, prismatic=0.0))
    assert all(general[task][0] > stanford[task][0] for task in PAPER_SUBTASKS
               if task.kind != "h")
    assert sum(m for m, _ in general.values()) > 2 * sum(m for m, _ in stanford.values())
