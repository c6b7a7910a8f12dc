"""The accuracy the gradient's plan (:class:`~robohw.dynamics.gradient.plan.GradientPlan`)
promises, and the narrowest width that keeps it.

A plan's **bound** on an entry is the worst-case error of ``d tau_i / d q_j`` (or ``/ d qd_j``)
against float64 for any state within the robot's limits
(:attr:`~robohw.dataflow.plan.TracedPlan.output_bounds`). Each matrix has a **scale**: its
largest ``|entry|`` in the float64 reference (:mod:`robohw.dynamics.gradient.reference`) over
:data:`~robohw.dynamics.inverse.accuracy.LIMIT_STATES` seeded states with positions uniform in
the joint limits and every rate and acceleration at plus or minus its limit (the corners, where
the largest entries lie: an estimate from below, so a fraction errs toward refusing). The scale
is per matrix, not per state: at ``qd = 0``, ``dtau/dqd`` is the damping alone.

The **promise**: every entry's bound within :data:`GRADIENT_FRACTION` of its matrix's scale.
The plan's width by default is the narrowest from
:data:`~robohw.dynamics.inverse.pipeline.MIN_WIDTH` that keeps it
(:func:`gradient_width`).
"""

import functools
import math
from dataclasses import dataclass

import numpy as np

from robohw.dynamics.gradient.fields import gradient_keys
from robohw.dynamics.gradient.plan import GradientPlan
from robohw.dynamics.gradient.reference import inverse_dynamics_gradient
from robohw.dynamics.inverse.accuracy import LIMIT_STATES
from robohw.dynamics.inverse.pipeline import MAX_WIDTH, MIN_WIDTH
from robohw.hw.checks import check_number
from robohw.robots.sampling import corner_states

__all__ = ["GradientPromise", "GRADIENT_FRACTION", "gradient_scales", "gradient_promise",
           "gradient_width", "gradient_plan"]

# The share of each matrix's scale an entry's proven bound may reach. The ceiling is
# 1 %; a fifth of it keeps the measured error of the shipped arms within 1e-4 of the scale
# (docs/notes/2026-12-gradient-plan.md), where at 1 % the UR5's reached 1.4e-4.
GRADIENT_FRACTION = 0.002


@dataclass(frozen=True)
class GradientPromise:
    """``bounds``: ``{field: bound}`` of every entry
    (:func:`~robohw.dynamics.gradient.fields.gradient_field`'s names; N m per rad or per
    rad/s), ``scale_dq`` and ``scale_dqd``: each matrix's scale (see the module
    docstring)."""
    bounds: dict
    scale_dq: float
    scale_dqd: float

    def _share(self, field, bound):
        scale = self.scale_dqd if "_dqd" in field else self.scale_dq
        return bound / scale if scale else (0.0 if bound == 0 else math.inf)

    @property
    def fraction(self):
        """The largest of every entry's bound over its matrix's scale."""
        return max(self._share(field, bound) for field, bound in self.bounds.items())

    def sentence(self):
        """The promise as a command's closing line states it."""
        dq = max(v for k, v in self.bounds.items() if "_dqd" not in k)
        dqd = max(v for k, v in self.bounds.items() if "_dqd" in k)
        return (f"each entry proven within its bound: dtau/dq's within {dq:.3g} (its scale "
                f"{self.scale_dq:.4g}), dtau/dqd's within {dqd:.3g} (its scale "
                f"{self.scale_dqd:.4g}); the largest {self.fraction:.3%} of its matrix's scale")

    def as_json(self):
        return {"bounds": dict(self.bounds), "scale_dq": self.scale_dq,
                "scale_dqd": self.scale_dqd, "fraction": self.fraction}


@functools.lru_cache(maxsize=64)
def gradient_scales(robot):
    """``(scale_dq, scale_dqd)`` of ``robot`` (its hardware form; see the module docstring)."""
    q, qd, qdd = corner_states(robot, LIMIT_STATES, np.random.default_rng(0))
    with np.errstate(over="ignore", invalid="ignore"):
        dq, dqd = inverse_dynamics_gradient(robot, q, qd, qdd)
    return tuple(float(np.abs(m).max()) if np.isfinite(m).all() else math.inf
                 for m in (dq, dqd))


def gradient_promise(plan):
    """The :class:`GradientPromise` of a :class:`~robohw.dynamics.gradient.plan.GradientPlan`."""
    bounds = plan.output_bounds
    return GradientPromise({field: bounds[field] for field in gradient_keys(plan.dof)},
                           *gradient_scales(plan.robot))


@functools.lru_cache(maxsize=64)
def gradient_width(robot, fraction=GRADIENT_FRACTION):
    """The narrowest width from ``MIN_WIDTH`` whose plan for ``robot`` (its hardware form)
    keeps every entry's bound within ``fraction`` of its matrix's scale; ``ValueError`` naming
    the fraction reached at ``MAX_WIDTH`` where none does."""
    check_number("fraction", fraction, above=0)
    for width in range(MIN_WIDTH, MAX_WIDTH + 1):
        promise = gradient_promise(GradientPlan(robot, width=width))
        if promise.fraction <= fraction:
            return width
    raise ValueError(f"{robot.source or robot.name}: the gradient's bound at {MAX_WIDTH} bits "
                     f"is {promise.fraction:.3%} of its matrix's scale, beyond the "
                     f"{fraction:.3%} promised: no width keeps it")


def gradient_plan(robot, width=None):
    """``robot``'s :class:`~robohw.dynamics.gradient.plan.GradientPlan` at ``width`` bits
    (``None``: :func:`gradient_width`'s)."""
    from robohw.robots import hardware_robot
    robot = hardware_robot(robot, terms=())
    return GradientPlan(robot, width=width or gradient_width(robot))
