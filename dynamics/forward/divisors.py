"""Proven lower bounds on each joint's articulated inertia about its motion, ``D_i = S^T K_i S +
armature``: what forward dynamics divides by (:mod:`robohw.dynamics.forward.articulated_frames`).

The outboard links add positive semidefinite terms to ``K_i``, so ``D_i`` is at least the
armature plus the link's own inertia about the joint's motion, ``S^T I_i S`` (the moment about
the joint's axis line, parallel-axis term included, for a revolute joint; the mass for a
prismatic one). The next link adds at least its own inertia as its joint leaves it free,
``I' = I - I S S^T I / (S^T I S + armature)`` (the articulated reduction is monotone in the
positive semidefinite order: ``K - K S S^T K / (S^T K S + a) = (K^-1 + S S^T / a)^-1``), turned
and moved by the next joint: ``S^T X(q)^T I' X(q) S`` is a trigonometric polynomial of degree
2 in the next joint's angle (a polynomial of degree 2 in a prismatic joint's position), whose
least value over the next joint's limits is found on a grid and lowered by the most the
polynomial can dip between grid points (its derivative's bound times half the spacing).
"""

import math

import numpy as np

from robohw.dynamics.forward.articulated_frames import joint_motion, link_geometry, link_inertia
from robohw.robots.algebra import snap
from robohw.robots.joint_type import JointType

__all__ = ["own_least", "outboard_least", "GRID"]

# Points of the next joint's range the least value is sought on.
GRID = 4096


def own_least(joint):
    """``S^T I S`` of ``joint``'s own link (kg m^2 or kg), without armature."""
    motion = np.array(joint_motion(joint, link_geometry(joint) if joint.type == JointType.REVOLUTE
                                   else (0.0, 0.0, 0.0)), dtype=np.float64)
    return float(motion @ np.array(link_inertia(joint)) @ motion)


def _reduced(joint):
    """``I'``: the link's spatial inertia with its joint free (see the module docstring)."""
    own = np.array(link_inertia(joint))
    motion = np.array(joint_motion(joint, link_geometry(joint) if joint.type == JointType.REVOLUTE
                                   else (0.0, 0.0, 0.0)), dtype=np.float64)
    pushed = own @ motion
    divisor = float(motion @ pushed) + float(joint.armature or 0.0)
    return own - np.outer(pushed, pushed) / divisor if divisor > 0 else own


def _transforms(child, values):
    """``X`` ``(G, 6, 6)``: motion vectors of the parent's frame into ``child``'s, at each of
    the child's joint values ``values`` ``(G,)`` (``q + offset`` for a revolute joint, ``d``
    for a prismatic one)."""
    values = np.asarray(values, dtype=np.float64)
    ca, sa = snap(math.cos(child.alpha)), snap(math.sin(child.alpha))
    theta = values if child.type == JointType.REVOLUTE else np.full_like(values, child.theta)
    d = np.full_like(values, child.d) if child.type == JointType.REVOLUTE else values
    c, s = np.cos(theta), np.sin(theta)
    zero, one = np.zeros_like(values), np.ones_like(values)
    # E = Rx(alpha)^T Rz(theta)^T; p = (a, d sin alpha, d cos alpha).
    rz = np.stack([np.stack([c, s, zero], -1), np.stack([-s, c, zero], -1),
                   np.stack([zero, zero, one], -1)], -2)
    rx = np.array([[1.0, 0.0, 0.0], [0.0, ca, sa], [0.0, -sa, ca]])
    e = rx @ rz
    p = np.stack([np.full_like(values, child.a), d * sa, d * ca], -1)
    skew = np.stack([np.stack([zero, -p[:, 2], p[:, 1]], -1),
                     np.stack([p[:, 2], zero, -p[:, 0]], -1),
                     np.stack([-p[:, 1], p[:, 0], zero], -1)], -2)
    out = np.zeros((len(values), 6, 6))
    out[:, :3, :3] = out[:, 3:, 3:] = e
    out[:, 3:, :3] = -skew @ e
    return out


def outboard_least(joint, child):
    """The least of ``S^T X^T I' X S`` (see the module docstring) over ``child``'s range:
    what the next link adds at least to ``joint``'s ``D`` (0 or more)."""
    motion = np.array(joint_motion(joint, link_geometry(joint) if joint.type == JointType.REVOLUTE
                                   else (0.0, 0.0, 0.0)), dtype=np.float64)
    reduced = _reduced(child)
    if child.type == JointType.REVOLUTE:
        low, high = (v + child.offset for v in child.limits) if child.limits and \
            child.limits[1] - child.limits[0] < 2 * math.pi else (-math.pi, math.pi)
    else:
        low, high = (v + child.offset for v in child.limits)
    grid = np.linspace(low, high, GRID)
    moved = _transforms(child, grid) @ motion                  # X S at each point
    values = np.einsum("gj,jk,gk->g", moved, reduced, moved)
    # The polynomial's coefficients from values, exact to rounding: its derivative's bound.
    if child.type == JointType.REVOLUTE:
        basis = np.stack([np.ones_like(grid), np.cos(grid), np.sin(grid), np.cos(2 * grid),
                          np.sin(2 * grid)], -1)
        weights = np.array([0.0, 1.0, 1.0, 2.0, 2.0])
    else:
        basis = np.stack([np.ones_like(grid), grid, grid ** 2], -1)
        weights = np.array([0.0, 1.0, 2.0 * max(abs(low), abs(high))])
    coefficients = np.linalg.lstsq(basis, values, rcond=None)[0]
    slope = float(np.abs(coefficients) @ weights)
    spacing = (high - low) / (GRID - 1)
    # The fit's residual covers rounding in the coefficients.
    residual = float(np.abs(basis @ coefficients - values).max())
    return max(float(values.min()) - slope * spacing / 2 - residual, 0.0)
