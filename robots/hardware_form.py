"""The standard-DH robot the hardware of a general chain is generated from
(:func:`hardware_form`): the chain's DH form (:func:`robohw.robots.dh_form.dh_form`, every joint
sign +1, so the hardware's joint values, torques and inertia matrix are the chain's), with the
conversion's rounding snapped.

Composing a URDF's placements leaves rounding where the geometry has structure: a length of
9.3e-19 m where axes meet, a centre of mass 4e-18 m off an axis, an inertia product of 3e-18
kg m^2, a twist 1e-16 off 90 degrees. Each would cost the hardware an operation on a constant
that is zero to its precision. Snapped to exact 0 (and twists to multiples of 90 degrees):
lengths and centres of mass within :data:`SNAP_TOLERANCE` of the arm's size, inertia entries
within it of the link's largest, twists within it (radians). Joint offsets are left as they
are (an offset costs nothing: it is added to the joint's angle), so the UR5's pitch of pi/2 -
4.9e-12 stays exact in its fourth joint's offset. What snapping moves is counted in the
hardware's accuracy bound as :data:`SNAP_ERROR` (tests/shared/test_hardware_form.py measures
it on the shipped arms and on chains snapped at the tolerance's edge).
"""

import dataclasses
import math

import numpy as np

from robohw.robots.chain import Chain
from robohw.robots.dh_form import dh_form
from robohw.robots.joint_type import JointType
from robohw.robots.magnitudes import largest_value

__all__ = ["hardware_form", "SNAP_TOLERANCE", "SNAP_ERROR"]

# Relative: float64 rounding of a few composed placements is some 1e-16 of the arm's size.
SNAP_TOLERANCE = 1e-12
# The share of max |H| and of max |tau| that snapping at SNAP_TOLERANCE can move an output by,
# stated with a margin: measured at most 1e-15 on the shipped arms and 5e-12 on a UR5 with
# every placement, centre of mass and inertia product 0.9e-12 off its structure
# (tests/shared/test_hardware_form.py).
SNAP_ERROR = 1e-10


def _snap_zero(value, scale):
    return 0.0 if abs(value) < SNAP_TOLERANCE * scale else value


def _snap_angle(angle):
    quarter = round(angle / (math.pi / 2))
    return quarter * (math.pi / 2) if abs(angle - quarter * (math.pi / 2)) < SNAP_TOLERANCE \
        else angle


def hardware_form(chain):
    """The snapped standard-DH :class:`robohw.robots.Robot` of ``chain`` (see the module
    docstring); its ``source`` is the chain's file."""
    if not isinstance(chain, Chain):
        raise TypeError(f"hardware_form takes a Chain, not {type(chain).__name__}")
    with np.errstate(all="ignore"):     # a chain beyond float64's squares: refused below
        robot = dh_form(chain, signs=False).robot
    numbers = [v for j in robot.joints for v in (j.a, j.d, j.alpha, j.offset, j.theta)]
    if not all(map(math.isfinite, numbers)):
        raise ValueError(f"{chain.source or chain.name}: its DH form is beyond float64 (its "
                         f"largest value: {largest_value(chain)}): no hardware is generated "
                         f"for it")
    lengths = [abs(v) for j in robot.joints for v in (j.a, j.d, *(j.com or ()))]
    scale = max([1.0] + lengths)
    joints = []
    for joint in robot.joints:
        changes = {"a": _snap_zero(joint.a, scale), "d": _snap_zero(joint.d, scale),
                   "alpha": _snap_angle(joint.alpha)}
        if joint.type == JointType.PRISMATIC:
            changes["theta"] = _snap_angle(joint.theta)
        if joint.com is not None:
            changes["com"] = tuple(_snap_zero(v, scale) for v in joint.com)
            largest = max(abs(v) for v in joint.inertia)
            changes["inertia"] = tuple(_snap_zero(v, largest) for v in joint.inertia)
        joints.append(dataclasses.replace(joint, **changes))
    gravity = max(abs(g) for g in robot.gravity)
    return dataclasses.replace(robot, joints=tuple(joints),
                               gravity=tuple(_snap_zero(g, gravity) for g in robot.gravity))
