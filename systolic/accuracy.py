"""The accuracy an inertia array promises: each entry's proven bound beside the largest entry the
robot's joint limits allow.

A plan's **bounds** are, per entry ``H[j][i]``, the worst-case error of its output against
float64 for any configuration within the limits (the formats' error analysis:
:attr:`~robohw.systolic.array.InertiaPlan.output_bounds`). The **largest entry** is the largest
``|H|`` of the float64 reference over :data:`LIMIT_CONFIGURATIONS` seeded configurations
uniform in the joint limits (revolute angles within a turn): an estimate from below, so the
fraction errs toward looking worse.
"""

import functools
from dataclasses import dataclass

import numpy as np

from robohw.robots.sampling import sample_joints, within_a_turn
from robohw.support.figures import figure_list
from robohw.systolic.reference import jacobian_inertia

__all__ = ["InertiaPromise", "inertia_promise", "largest_entry", "LIMIT_CONFIGURATIONS"]

# Configurations the largest entry is taken over (seed 0).
LIMIT_CONFIGURATIONS = 4096


@dataclass(frozen=True)
class InertiaPromise:
    """``bounds``: ``{(j, i): bound}`` of each entry (from 1; SI units: kg m^2 between two
    revolute joints, kg m between a revolute and a prismatic one, kg between two prismatic
    ones); ``largest_entry``: the largest ``|H|`` the limits allow (see the module)."""
    bounds: dict
    largest_entry: float

    @property
    def bound(self):
        """The largest of :attr:`bounds`."""
        return max(self.bounds.values())

    @property
    def fraction(self):
        """:attr:`bound` over :attr:`largest_entry`."""
        return self.bound / self.largest_entry

    @property
    def row_bounds(self):
        """Per row ``j`` of H (from 1), the largest bound of its entries."""
        rows = sorted({j for j, _ in self.bounds})
        return tuple(max(b for (r, _), b in self.bounds.items() if r == j) for j in rows)

    def sentence(self):
        """The promise as the ``inertia`` command's closing line states it: each row's bound
        (:attr:`row_bounds`), and the largest as a share of :attr:`largest_entry`."""
        rows = self.row_bounds
        return (f"each entry proven within its row's bound, {figure_list(rows)} (rows 1 to "
                f"{len(rows)} of H, SI units; the largest {self.fraction:.2%} of the largest "
                f"entry, {self.largest_entry:.3g}, the joint limits allow)")

    def as_json(self):
        return {"bounds": {f"H{j}_{i}": b for (j, i), b in self.bounds.items()},
                "bound": self.bound, "largest_entry": self.largest_entry,
                "fraction": self.fraction}


@functools.lru_cache(maxsize=64)
def largest_entry(robot):
    """The largest ``|H|`` of ``robot`` over :data:`LIMIT_CONFIGURATIONS` seeded
    configurations within its joint limits."""
    q = within_a_turn(robot, sample_joints(robot, LIMIT_CONFIGURATIONS,
                                           np.random.default_rng(0)))
    return float(np.abs(jacobian_inertia(robot, q)).max())


def inertia_promise(plan, robot):
    """The :class:`InertiaPromise` of ``plan`` (an inertia array's plan) for ``robot`` (the
    chain the float64 reference runs on)."""
    return InertiaPromise(dict(plan.output_bounds), largest_entry(robot))
