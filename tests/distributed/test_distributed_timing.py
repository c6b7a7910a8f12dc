"""The link computers' schedules: the thesis's cycles per sample for every scheme and number
of links, derived here from its formulas, and the schedules' own consistency."""

import random

import pytest

from robohw.distributed.prediction import SCHEMES
from robohw.distributed.timing import schedule

# Table 2.1's operations per term: t1..t8.
T = (18, 30, 48, 36, 42, 18, 45, 20)


def _formula(scheme, n):
    """The thesis's makespans (sections 3.3 and 5.2, in operations), v1 with its formula (the
    printed gain "n/(0.6n+0.14)" is a misprint of this one)."""
    t1, t2, t3, t4, t5, t6, t7, t8 = T
    return {"serial": n * sum(T),
            "v1": n * (t1 + t2 + t3) + t4 + t5 + n * (t6 + t7) + t8,
            "v2": t1 + t2 + n * t3 + t4 + t5 + n * (t6 + t7) + t8,
            "zero": sum(T),
            "first": sum(T) + 77,
            "hybrid": t1 + n * t2 + t3 + t4 + t5 + n * t6 + t7 + t8}[scheme]


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("n", [1, 2, 3, 6, 8])
def test_cycles_per_sample_are_the_thesis_formulas(scheme, n):
    assert schedule(scheme, n).cycles == _formula(scheme, n)


def test_the_six_link_figures_and_gains():
    cycles = {s: schedule(s, 6).cycles for s in SCHEMES}
    assert cycles == {"serial": 1542, "v1": 1052, "v2": 812, "zero": 257, "first": 334,
                      "hybrid": 497}
    # The printed gains for n = 6: 1, 1.5, 1.9, 6, 4.6, 3.1.
    for scheme, printed in (("serial", 1), ("v1", 1.5), ("v2", 1.9), ("zero", 6),
                            ("first", 4.6), ("hybrid", 3.1)):
        assert abs(schedule(scheme, 6).gain - printed) < 0.05


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_schedule_keeps_order_and_waits(scheme):
    plan = schedule(scheme, 6)
    by = {(s.link, s.term): s for s in plan.slots}
    assert len(by) == 6 * 8
    for link in range(6):
        own = sorted((s for s in plan.slots if s.link == link), key=lambda s: s.start)
        # One term at a time, in the thesis's order, back to back or waiting.
        assert [s.term for s in own] == ["AW", "AWd", "Aa", "AF", "AN", "Af", "An", "u"]
        assert all(a.end <= b.start for a, b in zip(own, own[1:]))
        assert plan.busy(link) == sum(T) + (77 if scheme == "first" else 0)
    for s in plan.slots:
        if s.waited is not None:
            assert by[s.waited].end <= s.start
    # Serial: each computer busy in two separate intervals of its sample (T5701).
    if scheme == "serial":
        for link in range(6):
            own = sorted((s for s in plan.slots if s.link == link), key=lambda s: s.start)
            gaps = [b.start - a.end for a, b in zip(own, own[1:])]
            assert sum(g > 0 for g in gaps) == (0 if link == 5 else 1)


def test_terms_of_other_lengths():
    # Two operations a cycle would halve every term: the formulas in the new lengths.
    halved = {term: (c + 1) // 2 for term, c in zip(("AW", "AWd", "Aa", "AF", "AN", "Af", "An",
                                                     "u"), T)}
    t = list(halved.values())
    assert schedule("hybrid", 6, term_cycles=halved).cycles == \
        t[0] + 6 * t[1] + t[2] + t[3] + t[4] + 6 * t[5] + t[6] + t[7]


def test_any_term_lengths_follow_the_general_formulas():
    # v2 and the hybrid take the longer of two chains (the thesis's lengths make one of them
    # the longer); the others' formulas hold as printed.
    rng = random.Random(5)
    names = ("AW", "AWd", "Aa", "AF", "AN", "Af", "An", "u")
    for _ in range(200):
        t = [rng.randint(1, 60) for _ in names]
        n = rng.randint(1, 8)
        t1, t2, t3, t4, t5, t6, t7, t8 = t
        lengths = dict(zip(names, t))
        expected = {"serial": n * sum(t), "zero": sum(t), "first": sum(t),
                    "v1": n * (t1 + t2 + t3) + t4 + t5 + n * (t6 + t7) + t8,
                    "v2": max(t1 + t2 + n * t3, n * (t1 + t2) + t3) + t4 + t5 +
                    n * (t6 + t7) + t8,
                    "hybrid": max(t1 + n * (t2 + t6), n * (t1 + t6) + t2) + t3 + t4 + t5 +
                    t7 + t8}
        for scheme in SCHEMES:
            assert schedule(scheme, n, term_cycles=lengths).cycles == expected[scheme], \
                (scheme, n, t)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="scheme must be one of serial, v1, v2, zero, first, "
                                         "hybrid, not 'bejczy'"):
        schedule("bejczy", 6)
    with pytest.raises(ValueError, match="links must be a positive integer, not 0"):
        schedule("zero", 0)
    with pytest.raises(ValueError, match="term_cycles must give a positive integer for each"):
        schedule("zero", 6, term_cycles={"AW": 1})
