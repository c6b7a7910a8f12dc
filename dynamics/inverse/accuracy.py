"""The accuracy a Newton-Euler design promises, and the refusal of a design whose promise is
too weak for the robot's limits.

A design's **bound** is, per joint, the worst-case error of its torque against float64 for any
state within the robot's limits (:attr:`robohw.dataflow.plan.TracedPlan.output_bounds`: the
formats' error analysis, from the joint angles' rounding through every register). Its
**fraction** is the largest bound over the **largest torque the limits allow**: the largest
``|tau|`` of the float64 reference over :data:`LIMIT_STATES` seeded states with positions
uniform in the joint limits and every rate and acceleration at plus or minus its limit (the
corners of the box, where the largest torques lie). That is an estimate from below, so the
fraction errs toward refusing.

A plan whose fraction exceeds the allowed one (default :data:`BOUND_FRACTION`, 1 %) is refused
when it is planned (:func:`check_accuracy`), in one line naming the limit whose halving lowers
the fraction most and the narrowest width that meets it. The number formats never overflow
at wide limits; there the torques' bits are spent on the largest values the limits allow, and
an answer's error, although within its bound, can be as large as a small torque.

Placeholder limits (a file's ``velocity_limit = 1e6``) make the largest torque huge, and so the
fraction small, while every ordinary torque is lost below the bound. So a plan is also refused
where its bound exceeds :data:`SCALE_FRACTION` of the arm's **torque scale**: the largest, over
:data:`LIMIT_STATES` seeded positions within the joint limits, of any joint's gravity torque
``|g(q)|`` or of what its acceleration limits alone ask of it, ``sum_i |H(q)_ji| qdd_max_i``
(:func:`torque_scale`): neither depends on the velocity limits, and a zero-gravity arm still has
the second. Where the file gives every joint a ``torque_limit`` (a URDF's ``<limit effort>``),
the scale is at most the largest of them: no drive gives more, so a torque beyond it is never
asked for. The line names the velocity limit whose halving lowers the bound most.
"""

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np

from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.hw.checks import check_number
from robohw.robots import Robot
from robohw.robots.joint_type import JointType
from robohw.robots.sampling import corner_states, sample_joints, within_a_turn
from robohw.support.figures import figure_list, rounded_up

__all__ = ["AccuracyPromise", "BOUND_FRACTION", "LIMIT_STATES", "SCALE_FRACTION",
           "largest_torque", "torque_scale", "accuracy_promise", "check_accuracy",
           "check_bound_fraction", "narrowing_room", "NARROWING_GROWTH", "NARROWED_SHARE"]

# The fraction of the largest torque a design's bound may reach before it is refused.
BOUND_FRACTION = 0.01
# States at the corners of the rate and acceleration limits the largest torque is taken over.
LIMIT_STATES = 4096
# A limit "weighs" when halving it takes the fraction below this share of what it was.
WEIGHS = 0.95
# The largest share of the arm's torque scale a bound may reach: the shipped arms' defaults
# reach 0.2 to 1.5 % (docs/accuracy.md); a bound beyond a tenth of what gravity and the
# acceleration limits ask of a joint is sized for rates no ordinary state has.
SCALE_FRACTION = 0.1
# Where a design's products take operands narrowed to a DSP tile's 18 bits
# (robohw.dataflow.narrowing), each joint's bound may grow by this share of its bound at the
# full width, and never past NARROWED_SHARE of what the two rules above allow: the Panda's
# engine at 21 bits narrows 320 of its 461 products so, its bound from 0.84 % to 0.95 % and
# its measured error from 5.5e-5 to 5.9e-5 of the largest torque (20,000 states; a growth of
# 0.25 or 0.5 narrows 324 or 330 and measures 8.9e-5 or 7.4e-5: docs/notes/2026-12-engine-
# locality.md).
NARROWING_GROWTH = 0.15
NARROWED_SHARE = 0.95


@dataclass(frozen=True)
class AccuracyPromise:
    """``bounds``: per joint (from 1), the proven worst-case error of its torque (N m, N);
    ``largest_torque``: the largest ``|tau|`` the limits allow (see the module docstring);
    ``unit``: ``"N m"``, or ``"N m or N"`` for a robot with prismatic joints; ``friction``:
    per joint, the Coulomb friction a machine that computes it adds to that joint's bound where
    its velocity code is 0 (``|qd|`` within half an LSB of 0: the sign is the code's), or
    ``()`` (none computed)."""
    bounds: tuple
    largest_torque: float
    unit: str = "N m"
    friction: tuple = ()

    @property
    def bound(self):
        """The largest of :attr:`bounds`."""
        return max(self.bounds)

    @property
    def fraction(self):
        """:attr:`bound` over :attr:`largest_torque` (``inf`` for a robot that exerts none)."""
        return self.bound / self.largest_torque if self.largest_torque else math.inf

    def sentence(self):
        """The promise as the ``dynamics`` command's closing line states it: each joint's
        bound, and the largest as a share of :attr:`largest_torque`."""
        text = (f"each torque proven within its joint's bound, {figure_list(self.bounds)} "
                f"{self.unit} (joints 1 to {len(self.bounds)}; the largest {self.fraction:.2%} "
                f"of the {self.largest_torque:.3g} {self.unit} the limits allow)")
        if any(self.friction):
            text += (f"; a joint whose velocity rounds to code 0 adds its Coulomb friction "
                     f"(at most {max(self.friction):.3g} {self.unit})")
        return text

    def as_json(self):
        return {"bounds": list(self.bounds), "bound": self.bound,
                "largest_torque": self.largest_torque, "fraction": self.fraction,
                "unit": self.unit, "friction_at_code_zero": list(self.friction)}


@functools.lru_cache(maxsize=64)
def largest_torque(robot):
    """The largest ``|tau|`` of ``robot`` over :data:`LIMIT_STATES` seeded states at the
    corners of its rate and acceleration limits (see the module docstring)."""
    q, qd, qdd = corner_states(robot, LIMIT_STATES, np.random.default_rng(0))
    with np.errstate(over="ignore", invalid="ignore"):
        tau = np.abs(inverse_dynamics(robot, q, qd, qdd))
    return float(tau.max()) if np.isfinite(tau).all() else math.inf


@functools.lru_cache(maxsize=64)
def torque_scale(robot):
    """The arm's torque scale (see the module docstring): the largest over joints and
    :data:`LIMIT_STATES` seeded positions within the joint limits (revolute angles within a
    turn) of ``|g(q)|`` and of ``sum_i |H(q)_ji| qdd_max_i``, capped by the largest
    ``torque_limit`` where every joint has one."""
    scale = _demanded_torque(robot)
    limits = [joint.torque_limit for joint in robot.joints]
    return scale if None in limits else min(scale, max(limits))


@functools.lru_cache(maxsize=64)
def _demanded_torque(robot):
    """:func:`torque_scale` before the torque limits cap it."""
    q = within_a_turn(robot, sample_joints(robot, LIMIT_STATES, np.random.default_rng(0)))
    still = np.zeros_like(q)
    with np.errstate(over="ignore", invalid="ignore"):
        gravity = inverse_dynamics(robot, q, still, still)
        inertial = np.zeros_like(q)
        for i, joint in enumerate(robot.joints):
            unit = np.zeros_like(q)
            unit[:, i] = 1.0
            column = inverse_dynamics(robot, q, still, unit) - gravity    # H(q)[:, i]
            inertial += np.abs(column) * joint.acceleration_limit
        scale = np.maximum(np.abs(gravity), inertial).max()
    return float(scale) if np.isfinite(scale) else math.inf


def accuracy_promise(plan):
    """The :class:`AccuracyPromise` of a Newton-Euler plan (a
    :class:`~robohw.dynamics.inverse.pipeline.NewtonEulerPlan` or
    :class:`~robohw.dynamics.inverse.array_plan.ArrayPlan`)."""
    bounds = plan.output_bounds
    revolute = all(joint.type == JointType.REVOLUTE for joint in plan.robot.joints)
    unit = "N m" if revolute else "N m or N"
    friction = tuple(float(joint.friction) for joint in plan.robot.joints) \
        if plan.sign_inputs else ()
    return AccuracyPromise(tuple(bounds[k] for k in range(1, plan.dof + 1)),
                           largest_torque(plan.robot), unit, friction)


def check_bound_fraction(fraction):
    """``fraction`` as a positive float, or ``None`` (no check)."""
    if fraction is None:
        return None
    return check_number("bound_fraction", fraction, above=0)


def _halved(robot, k, limit):
    """``robot`` (its hardware form, a :class:`~robohw.robots.Robot`) with joint ``k``'s
    ``limit`` (``"velocity_limit"``, ``"acceleration_limit"``, or its link's ``"mass"``)
    halved."""
    joint = robot.joints[k]
    halved = dataclasses.replace(joint, **{limit: getattr(joint, limit) / 2})
    return Robot(robot.name, robot.joints[:k] + (halved,) + robot.joints[k + 1:],
                 source=robot.source, gravity=robot.gravity)


def check_accuracy(plan, fraction, replan):
    """Refuse ``plan`` (``ValueError``, one line) if its promise's fraction exceeds
    ``fraction``. ``replan(robot, width)`` plans the same design for another robot or width,
    unchecked: the line names the file, the design (``plan.design``) and width, the limit whose
    halving lowers the fraction most, and what would serve (the narrowest width up to
    ``plan``'s widest that meets it, a tighter limit, the ``--bound-fraction`` that accepts
    it)."""
    promise = accuracy_promise(plan)
    robot, width = plan.robot, plan.width
    where = f"{robot.source or robot.name}: the {plan.design} design at {width} bits"
    if not promise.largest_torque:
        raise ValueError(f"{robot.source or robot.name}: every torque its limits allow is 0 "
                         f"(no link has mass): no share of it can be proven")
    if promise.fraction <= fraction:
        _check_scale(plan, promise, replan, where)
        return promise
    weigh = []
    for k, joint in enumerate(robot.joints):
        for limit in ("velocity_limit", "acceleration_limit"):
            other = _halved(robot, k, limit)
            weigh.append((accuracy_promise(replan(other, width)).fraction, k + 1, limit,
                          getattr(joint, limit), _unit(joint, limit)))
    halved_fraction, joint, limit, value, unit = min(weigh)
    serves = []
    meets = next((w for w in range(width + 1, plan.max_width + 1)
                  if accuracy_promise(replan(robot, w)).fraction <= fraction), None)
    if meets:
        serves.append(f"--width {meets}")
    if halved_fraction > WEIGHS * promise.fraction:
        weighs = (f"no one limit weighs much (halving any lowers it by less than "
                  f"{1 - WEIGHS:.0%})")
    else:
        weighs = (f"joint {joint}'s {limit} of {value:g} {unit} weighs most (halved: "
                  f"{halved_fraction:.2%})")
        serves.append(f"a tighter {limit} for joint {joint} in the robot's sidecar")
    serves.append(f"--bound-fraction {rounded_up(promise.fraction)}")
    raise ValueError(
        f"{where}: its torques are proven within {promise.bound:.3g} {promise.unit}, "
        f"{promise.fraction:.2%} of the {promise.largest_torque:.3g} {promise.unit} its limits "
        f"allow, more than the {fraction:.2%} allowed (--bound-fraction); {weighs}"
        f"{'' if meets else f'; no width up to {plan.max_width} meets it'}; what would serve: "
        f"{_either(serves)}")


def _check_scale(plan, promise, replan, where):
    """Refuse ``plan`` (one line) where its bound exceeds :data:`SCALE_FRACTION` of the arm's
    :func:`torque_scale`, naming the velocity limit or the link's mass whose halving lowers
    the bound most."""
    robot, width = plan.robot, plan.width
    scale = torque_scale(robot)
    if promise.bound <= SCALE_FRACTION * scale:
        return
    weigh = []
    for k, joint in enumerate(robot.joints):
        for field in ("velocity_limit", "mass"):
            if getattr(joint, field) is None:       # a massless link (the PUMA's first)
                continue
            other = _halved(robot, k, field)
            weigh.append((accuracy_promise(replan(other, width)).bound, k + 1, field,
                          float(getattr(joint, field)), _unit(joint, field)))
    halved_bound, joint, field, value, unit = min(weigh)
    demanded = _demanded_torque(robot)
    if demanded > scale * (1 + 1e-9):
        yardstick = (f"the {scale:.3g} {promise.unit} its torque limits allow a joint (gravity "
                     f"and the acceleration limits ask {demanded:.3g})")
    else:
        yardstick = f"the {scale:.3g} {promise.unit} gravity and the acceleration limits ask " \
                    f"of a joint"
    if halved_bound > WEIGHS * promise.bound:
        cause, weighs = "", ("no one velocity limit or mass weighs much (halving any lowers it "
                             f"by less than {1 - WEIGHS:.0%}); what would serve: a wider --width")
    elif field == "mass":
        cause, weighs = "", (f"link {joint}'s mass of {value:g} kg weighs most (halved: "
                             f"{halved_bound:.3g}): check it in the robot file")
    else:
        cause = ": placeholder velocity limits?"
        weighs = (f"joint {joint}'s velocity_limit of {value:g} {unit} weighs most (halved: "
                  f"{halved_bound:.3g}): give its real limit in the robot file or its sidecar")
    raise ValueError(
        f"{where}: its torques are proven within {promise.bound:.3g} {promise.unit}, "
        f"{promise.bound / scale:.3g} times {yardstick} (more than {SCALE_FRACTION:.0%}"
        f"{cause}); {weighs}")


def _unit(joint, field):
    revolute = joint.type == JointType.REVOLUTE
    return {"velocity_limit": "rad/s" if revolute else "m/s",
            "acceleration_limit": "rad/s^2" if revolute else "m/s^2", "mass": "kg"}[field]


def _either(options):
    return options[0] if len(options) == 1 else f"{', '.join(options[:-1])} or {options[-1]}"


def narrowing_room(plan):
    """``{joint: N m}``: how much each joint's bound may grow where ``plan``'s products take
    narrowed operands (:meth:`robohw.dataflow.plan.TracedPlan._narrowing_room`):
    :data:`NARROWING_GROWTH` of its bound at the full width, within :data:`NARROWED_SHARE` of
    the default :data:`BOUND_FRACTION` of the largest torque and of :data:`SCALE_FRACTION` of
    the torque scale (the default rule, whatever a caller's ``bound_fraction``: a design's
    hardware is one for a robot and a width)."""
    bounds = plan.output_bounds
    robot = plan.robot
    ceiling = NARROWED_SHARE * min(BOUND_FRACTION * largest_torque(robot),
                                   SCALE_FRACTION * torque_scale(robot))
    return {k: min(NARROWING_GROWTH * bounds[k], ceiling - bounds[k])
            for k in range(1, plan.dof + 1)}
