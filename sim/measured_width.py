"""A robot-generated design's default width where nobody has measured it: the narrowest whose
bit-exact model keeps the project's accuracy goal over a seeded sample of inputs within the
robot's limits, measured on first use and cached.

The goal is :data:`ACCURACY_GOAL` of the largest output (max |tau|, max |H|) against the float64
reference. The sample is :data:`WIDTH_SAMPLE` inputs drawn with seed :data:`WIDTH_SEED`; a
width passes when its largest error over them is within :data:`WIDTH_MARGIN` of the goal, so
that a larger sample (the tests' 100,000 states) keeps the goal too. The widths are tried from
the design's own upward; the result is cached (``$ROBOHW_CACHE/widths``, :mod:`robohw.sim.cache`)
under the design, the robot's digest and the code's (:mod:`robohw.sim.measured_default`): a
new robot or new code measures again. A measurement says so once, as a
:class:`MeasuredWidthWarning` (the command line prints it on one line).
"""

import warnings
from dataclasses import asdict, dataclass

from robohw.sim.measured_default import measured_default

__all__ = ["MeasuredWidth", "MeasuredWidthWarning", "measured_width", "ACCURACY_GOAL",
           "WIDTH_SAMPLE", "WIDTH_SEED", "WIDTH_MARGIN"]

# The project's accuracy goal: a design's error within 1e-4 of its largest output
# (README.md, docs/accuracy.md).
ACCURACY_GOAL = 1e-4
WIDTH_SAMPLE = 20_000
WIDTH_SEED = 0
# The engine's largest errors on the shipped arms over 100,000 states were 1.0 to 1.1 times
# those over 20,000 (docs/accuracy.md): a tenth of the goal kept in hand.
WIDTH_MARGIN = 0.9


class MeasuredWidthWarning(UserWarning):
    """A design's default width for a robot was measured (not read from a table or cache)."""


@dataclass(frozen=True)
class MeasuredWidth:
    """The narrowest ``width`` whose model's largest ``error`` (a share of the largest output)
    over ``states`` sampled inputs is within the goal and margin."""
    width: int
    error: float
    states: int


def measured_width(design, robot, digest, start):
    """The :class:`MeasuredWidth` of ``design`` (a :class:`~robohw.sim.design.Design` with
    ``sample_error(robot, width, count, seed)``) for ``robot`` (``digest``: what identifies it),
    trying widths from ``start`` to the top of the design's range; ``ValueError`` naming the
    best width and its error where none keeps the goal."""
    key = f"{design.name} {digest} {start} {WIDTH_SAMPLE} {WIDTH_SEED} {WIDTH_MARGIN}"
    return measured_default("widths", key, lambda: asdict(_measure(design, robot, start)),
                            lambda value: MeasuredWidth(**value))


def _largest(robot):
    """``; its largest value: ...`` for a robot (:func:`robohw.robots.magnitudes.largest_value`),
    else nothing."""
    from robohw.robots.magnitudes import largest_value
    return f"; its largest value: {largest_value(robot)}" if hasattr(robot, "joints") else ""


def _measure(design, robot, start):
    best = None
    for width in range(start, design.width_range[1] + 1):
        error = float(design.sample_error(robot, width, WIDTH_SAMPLE, WIDTH_SEED))
        best = MeasuredWidth(width, error, WIDTH_SAMPLE)
        if error <= WIDTH_MARGIN * ACCURACY_GOAL:
            break
    else:
        raise ValueError(
            f"{getattr(robot, 'source', None) or robot.name}: the {design.name} design: no width "
            f"from {start} to {design.width_range[1]} keeps its bit-exact model within "
            f"{ACCURACY_GOAL:g} of its largest output over {WIDTH_SAMPLE:,} inputs within its "
            f"limits ({best.width} bits: {best.error:.2g}{_largest(robot)}); what would serve: "
            f"--width W, which computes with the bound it proves, or a robot file whose "
            f"values are its arm's")
    warnings.warn(f"{design.name} for {robot.name}: default width {best.width} bits, measured "
                  f"(the bit-exact model within {best.error:.2g} of the largest output over "
                  f"{WIDTH_SAMPLE:,} inputs within its limits; cached)", MeasuredWidthWarning,
                  stacklevel=2)
    return best
