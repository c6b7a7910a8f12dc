"""One interval search for every engine (robohw.engine.interval): the smallest interval from the
start, in its steps, whose estimated engine fits the budget's LUTs and the device's DSP tiles,
searched once and cached; a bad budget or search refused."""

import pytest

import robohw.sim.measured_default as measured
from robohw.dynamics.inverse.engine import LinkFramePlan
from robohw.engine.estimate import engine_resources
from robohw.engine.interval import Budget, fitting_interval
from robohw.engine.plan import compile_plan
from robohw.hw.devices import DEVICES


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBOHW_CACHE", str(tmp_path))
    monkeypatch.setattr(measured, "_HELD", {})
    return tmp_path


def test_the_interval_is_the_first_whose_estimate_fits(cache):
    plan = LinkFramePlan("puma560", width=18, bound_fraction=None)
    luts = {ii: engine_resources(plan, compile_plan(plan, ii))["luts"] for ii in range(4, 9)}
    # A budget between two intervals' estimates: the first within it, by the steps asked.
    budget = Budget(luts[6])
    assert fitting_interval(plan, budget, "puma 18", start=4) == \
        next(ii for ii in range(4, 9) if luts[ii] <= luts[6])
    assert fitting_interval(plan, budget, "puma 18", start=4, step=3) == \
        next(ii for ii in range(4, 9, 3) if luts[ii] <= luts[6])
    assert budget.dsp_tiles == DEVICES["ecp5-85k"].dsp
    assert not budget.fits({"luts": 1, "dsp_tiles": budget.dsp_tiles + 1})
    # Searched once: the next run reads the cache.
    assert len(list((cache / "intervals").glob("*.json"))) == 2


def test_no_fitting_interval_is_the_largest(cache):
    plan = LinkFramePlan("puma560", width=18, bound_fraction=None)
    assert fitting_interval(plan, Budget(1), "puma tiny", start=1000, step=24) == 1024


@pytest.mark.parametrize("make, error, message", [
    (lambda: Budget(0), ValueError, r"^luts must be a positive integer, not 0$"),
    (lambda: Budget(100, "ice40"), ValueError, r"^device must be one of "),
    (lambda: fitting_interval(None, Budget(1), "k", start=1), ValueError, r"^start must be "),
    (lambda: fitting_interval(None, Budget(1), "k", start=4, step=0), ValueError,
     r"^step must be "),
])
def test_a_bad_budget_or_search_is_refused(make, error, message):
    with pytest.raises(error, match=message):
        make()
