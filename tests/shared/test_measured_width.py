"""A robot-generated design's default width where no table holds it (robohw.sim.measured_width):
the narrowest within the accuracy goal and margin over the seeded sample, measured once and
cached, said once; refused in one line where no width keeps the goal."""

import warnings

import numpy as np
import pytest

from robohw.dynamics.inverse.model import model_torques
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.robots.sampling import random_robot, sample_states, within_a_turn
from robohw.sim.measured_width import (
    ACCURACY_GOAL,
    WIDTH_MARGIN,
    WIDTH_SAMPLE,
    WIDTH_SEED,
    MeasuredWidthWarning,
    measured_width,
)


class Counted:
    """A design whose model's error halves with every bit from 4e-4 at 18 bits."""
    name = "counted"
    width_range = (16, 24)

    def __init__(self, first=4e-4):
        self.first, self.calls = first, []

    def sample_error(self, robot, width, count, seed):
        self.calls.append((width, count, seed))
        return self.first / 2 ** (width - 18)


class Arm:
    name = "arm"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBOHW_CACHE", str(tmp_path))
    return tmp_path


def test_the_narrowest_width_within_the_margin_is_measured_once(cache):
    design = Counted()
    with pytest.warns(MeasuredWidthWarning, match=r"^counted for arm: default width 21 bits, "
                                                  r"measured \(the bit-exact model within "
                                                  r"5e-05 of the largest output over 20,000 "):
        found = measured_width(design, Arm(), "abc", 18)
    # 18: 4e-4, 19: 2e-4, 20: 1e-4 (above 0.9e-4), 21: 5e-5.
    assert (found.width, found.error, found.states) == (21, 5e-5, WIDTH_SAMPLE)
    assert design.calls == [(w, WIDTH_SAMPLE, WIDTH_SEED) for w in (18, 19, 20, 21)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # a cached width says nothing
        assert measured_width(design, Arm(), "abc", 18) == found
    assert len(design.calls) == 4
    # Another robot, or another start, is another measurement.
    assert measured_width(Counted(), Arm(), "abd", 18).width == 21
    assert measured_width(design, Arm(), "abc", 22).width == 22
    assert list((cache / "widths").glob("*.part")) == []


def test_no_width_that_keeps_the_goal_is_one_line(cache):
    with pytest.raises(ValueError, match=r"^arm: the counted design: no width from 18 to 24 "
                                         r"keeps its bit-exact model within 0.0001 of its "
                                         r"largest output over 20,000 inputs within its limits "
                                         r"\(24 bits: 0.00013\); what would serve: --width W"):
        measured_width(Counted(first=8.4e-3), Arm(), "abc", 18)


def test_a_robots_engine_width_is_the_narrowest_its_sample_keeps(cache):
    # Measured again here without the module: the engine's model over the same seeded sample.
    from robohw.dynamics.inverse.designs import DESIGNS, ENGINE_WIDTH
    from robohw.dynamics.inverse.engine import LinkFramePlan
    robot = random_robot(np.random.default_rng(4), 4, prismatic=0.3)
    engine = next(d for d in DESIGNS if d.name == "dynamics-engine")
    with pytest.warns(MeasuredWidthWarning):
        width = engine.for_robot(robot, "four", None).default_width

    def error(w):
        plan = LinkFramePlan(robot, width=w, bound_fraction=None)
        q, qd, qdd = sample_states(plan.robot, WIDTH_SAMPLE, np.random.default_rng(WIDTH_SEED))
        q = within_a_turn(plan.robot, q)
        tau, _ = model_torques(plan, q, qd, qdd)
        reference = inverse_dynamics(robot, q, qd, qdd)
        return np.abs(tau - reference).max() / np.abs(reference).max()
    assert error(width) <= WIDTH_MARGIN * ACCURACY_GOAL
    assert width == ENGINE_WIDTH or error(width - 1) > WIDTH_MARGIN * ACCURACY_GOAL
