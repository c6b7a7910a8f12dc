"""Operation counts of Gosselin's per-leg algorithms, counted by running the references
(:mod:`robohw.legs.platform_kinematics`, :mod:`robohw.legs.platform_dynamics`) over
counting scalars: a :class:`~robohw.dataflow.graph.Tracer` that folds no constant, so every
product with a geometric or inertial constant counts (only a planar platform's structural
zeros are free), side by side with the paper's counts (G:L204-L296).

The pose enters as ``r`` and the nine entries of ``Q`` (the paper's inputs), a planar one as
``x, y`` and ``cos phi, sin phi`` (each leg processor takes one sin and one cos, as the paper
counts); twist and acceleration as their components.
"""

from dataclasses import dataclass

from robohw.dataflow.graph import Tracer
from robohw.dataflow.operations import Count
from robohw.legs.platform_dynamics import (
    actuator_force,
    leg_equilibrium,
    leg_motion,
    platform_system,
)
from robohw.legs.platform_kinematics import jacobian_derivative_row, jacobian_row, leg_geometry

__all__ = ["CountRow", "platform_counts", "elimination", "PAPER", "OURS_ONLY"]

# The paper's counts: (mult, add, sqrt), line, what it covers.
PAPER = {
    "spatial": {
        "ik": ((12, 14, 1), "G:L250", "per leg, eqs. (1)-(8)"),
        "jacobian_row": ((18, 9, 0), "G:L250", "per leg, eq. (13)"),
        "jacobian_derivative_row": ((48, 24, 0), "G:L250", "per leg, eq. (19)"),
        "kinematics": ((78, 47, 1), "G:L250", "per processor: the three above"),
        "leg_phase": ((100, 63, 0), "G:L286", "per processor, eqs. (33)-(37): 4 frame "
                      "transformations and the local solve; leg kinematics given"),
        "platform_phase": ((120, 110, 0), "G:L288", "one processor, approximate: right-hand "
                           "side and the 6 x 6 solve"),
        "actuator_phase": ((19, 13, 0), "G:L294", "per processor, eq. (38)"),
        "dynamics_parallel": ((240, 190, 0), "G:L296", "rounded from 239, 186"),
        "dynamics_serial": ((834, 566, 0), "G:L296", "6 legs on one processor"),
    },
    "planar": {
        "ik": ((6, 7, 1), "G:L204", "per leg, eqs. (24)-(26), and 1 sin, 1 cos"),
        "jacobian_row": ((6, 3, 0), "G:L221", "per leg, eq. (28)"),
        "leg_phase": ((7, 4, 0), "G:L236", "per leg, eqs. (30)-(31); accelerations given"),
        "platform_phase": ((11, 6, 0), "G:L238", "one processor, the 3 x 3 solve"),
        "actuator_phase": ((1, 1, 0), "G:L244", "per leg, eq. (32)"),
        "dynamics_parallel": ((19, 11, 0), "G:L246", ""),
        "dynamics_serial": ((35, 21, 0), "G:L246", "3 legs on one processor"),
    },
}


# What the items the paper does not count cover.
OURS_ONLY = {
    "jacobian_derivative_row": "per leg, eq. (19) in the plane (the paper's planar example "
    "stops at velocities)",
    "kinematics": "per processor: the three rows above",
    "leg_motion": "per leg: its motion from the platform's (the paper assumes it known)",
}


@dataclass(frozen=True)
class CountRow:
    """One count: ``ours`` and ``paper`` as (mult, add, div, sqrt); ``paper`` is ``None``
    where the paper gives none."""
    item: str
    ours: tuple
    paper: "tuple | None"
    line: str
    covers: str


def _ops(tracer, since):
    counts = tracer.counts(range(since, len(tracer.nodes)))
    return (counts[Count.MUL], counts[Count.ADD], counts[Count.DIV], counts.get(Count.SQRT, 0))


def _plus(*counts):
    return tuple(sum(c) for c in zip(*counts))


def _times(k, count):
    return tuple(k * c for c in count)


def elimination(matrix, rhs, arith):
    """``matrix^-1 rhs`` by Gaussian elimination without pivoting, over scalars: the plain
    solve the paper's platform count implies (one reciprocal per pivot)."""
    n = len(rhs)
    a = [list(row) + [rhs[k]] for k, row in enumerate(matrix)]
    for k in range(n):
        inv = arith.reciprocal(a[k][k])
        for i in range(k + 1, n):
            factor = a[i][k] * inv
            for j in range(k + 1, n + 1):
                a[i][j] = a[i][j] - factor * a[k][j]
        a[k] = [None] * (k + 1) + [value * inv for value in a[k][k + 1:]]
    x = [None] * n
    for k in reversed(range(n)):
        value = a[k][n]
        for j in range(k + 1, n):
            value = value - a[k][j] * x[j]
        x[k] = value
    return x


def _inputs(tracer, platform):
    """Pose, twist and acceleration as counting inputs (planar: with structural zeros)."""
    def inputs(prefix, count):
        return tuple(tracer.input(f"{prefix}{k}", -1, 1) for k in range(count))
    if platform.spatial:
        r = inputs("r", 3)
        Q = tuple(inputs(f"q{row}", 3) for row in range(3))
        motion = tuple(inputs(name, 3) for name in ("w", "v", "dw", "dv"))
        return r, Q, motion
    x, y, c, s = inputs("pose", 4)
    w, vx, vy, dw, dvx, dvy = inputs("m", 6)
    return (x, y, 0), ((c, -s, 0), (s, c, 0), (0, 0, 1)), \
        ((0, 0, w), (vx, vy, 0), (0, 0, dw), (dvx, dvy, 0))


def platform_counts(platform):
    """:class:`CountRow` per item of :data:`PAPER` (and ours alone: the legs' motion), for
    ``platform``'s kind; the legs' counts are leg 1's (every leg's code is the same)."""
    kind = platform.kind
    tracer = Tracer(fold=False)
    r, Q, motion = _inputs(tracer, platform)
    leg = platform.legs[0]
    ours = {}
    since = len(tracer.nodes)
    geometry = leg_geometry(platform, leg, r, Q, tracer)
    ours["ik"] = _ops(tracer, since)
    since = len(tracer.nodes)
    jacobian_row(geometry)
    ours["jacobian_row"] = _ops(tracer, since)
    since = len(tracer.nodes)
    jacobian_derivative_row(geometry, motion[0], motion[1])
    ours["jacobian_derivative_row"] = _ops(tracer, since)
    ours["kinematics"] = _plus(ours["ik"], ours["jacobian_row"],
                               ours["jacobian_derivative_row"])
    # Dynamics: the legs' motion (the IK inside it excluded: the kinematics phase has it),
    # then each phase.
    legs, motion_ops, equilibrium_ops = [], None, None
    for k, each in enumerate(platform.legs):
        since = len(tracer.nodes)
        moving = leg_motion(platform, each, r, Q, motion, tracer)
        spent = _ops(tracer, since)
        since = len(tracer.nodes)
        legs.append(leg_equilibrium(platform, each, moving, tracer))
        if k == 0:
            motion_ops = tuple(a - b for a, b in zip(spent, ours["ik"]))
            equilibrium_ops = _ops(tracer, since)
    ours["leg_motion"] = motion_ops
    ours["leg_phase"] = equilibrium_ops
    since = len(tracer.nodes)
    matrix, rhs = platform_system(platform, Q, motion, legs, tracer)
    forces = elimination(matrix, rhs, tracer)
    ours["platform_phase"] = _ops(tracer, since)
    since = len(tracer.nodes)
    actuator_force(legs[0], forces[0])
    ours["actuator_phase"] = _ops(tracer, since)
    n = len(platform.legs)
    per_leg = _plus(ours["leg_phase"], ours["actuator_phase"])
    ours["dynamics_parallel"] = _plus(per_leg, ours["platform_phase"])
    ours["dynamics_serial"] = _plus(_times(n, per_leg), ours["platform_phase"])
    rows = []
    for item, count in ours.items():
        paper, line, covers = PAPER[kind][item] if item in PAPER[kind] else \
            (None, "", OURS_ONLY[item])
        rows.append(CountRow(item, count, None if paper is None else
                             (paper[0], paper[1], 0, paper[2]), line, covers))
    return rows
