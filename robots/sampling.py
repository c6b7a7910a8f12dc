"""Robots and joint configurations drawn at random, seeded: the workloads of the tests, the
report and the design registry.

:func:`sample_joints` is the one way joint vectors are drawn within a robot's limits (a joint
without limits takes a full turn), :func:`sample_states` the one way whole states (with rates
and accelerations) are; :func:`random_robot` makes plausible serial robots for the
inertia-matrix trade-off and the tests; :func:`sample_poses` draws a parallel manipulator's
poses around its home.
"""

import math

import numpy as np

from robohw.robots.description import Joint, Robot
from robohw.robots.joint_type import JointType

__all__ = ["joint_limits", "sample_joints", "sample_states", "corner_states", "within_a_turn",
           "missing_limits",
           "random_robot", "sample_poses", "sample_trajectory", "POSE_SPREAD",
           "TRAJECTORY_AMPLITUDE", "SERVO_RATE"]

# A platform's poses are drawn uniformly within its home +- these, by kind (m, rad; planar: m,
# m, rad): the workspace of the reports and tests, where every leg of the shipped platforms
# stays inside its stroke.
POSE_SPREAD = {"spatial": (0.05, 0.05, 0.05, 0.15, 0.15, 0.15), "planar": (0.1, 0.1, 0.3)}


def joint_limits(robot):
    """``(dof, 2)`` array of every joint's ``[min, max]``; ``[-pi, pi]`` where none is given."""
    return np.array([joint.limits or (-np.pi, np.pi) for joint in robot.joints])


def sample_joints(robot, count, rng):
    """``(count, dof)`` joint vectors uniform within :func:`joint_limits`, drawn from the numpy
    generator ``rng`` (one ``uniform`` call, so a seed gives the same vectors everywhere)."""
    limits = joint_limits(robot)
    # Drawn in halves and doubled: the same bits (scaling by two is exact), and a span beyond
    # float64 (limits of +-1.7e308) stays finite.
    return 2.0 * rng.uniform(limits[:, 0] / 2, limits[:, 1] / 2, (count, robot.dof))


def within_a_turn(robot, q):
    """Joint vectors ``q`` ``(count, dof)`` with every revolute angle wrapped into ``[-pi,
    pi)``: the same sines and cosines (what a serial robot's kinematics and dynamics read of
    them), in the range every binary angle holds, however wide the file's limits."""
    revolute = np.array([joint.type != JointType.PRISMATIC for joint in robot.joints])
    return np.where(revolute, (q + np.pi) % (2 * np.pi) - np.pi, q)


def missing_limits(robot):
    """What ``robot``'s joints lack of ``velocity_limit`` and ``acceleration_limit``, as text
    (``"joints [1, 2] have no acceleration_limit"``), or ``""``."""
    lacking = {}
    for field in ("velocity_limit", "acceleration_limit"):
        joints = [k + 1 for k, joint in enumerate(robot.joints) if getattr(joint, field) is None]
        if joints:
            lacking[field] = joints
    if len(lacking) == 2 and lacking["velocity_limit"] == lacking["acceleration_limit"]:
        return f"joints {lacking['velocity_limit']} have no velocity_limit and acceleration_limit"
    return "; ".join(f"joints {joints} have no {field}" for field, joints in lacking.items())


def sample_states(robot, count, rng):
    """``(q, qd, qdd)``, each ``(count, dof)``, uniform within the joint limits and within
    every joint's ``velocity_limit`` and ``acceleration_limit`` (``ValueError`` if a joint has
    none)."""
    missing = missing_limits(robot)
    if missing:
        raise ValueError(f"{robot.name}: {missing}")
    q = sample_joints(robot, count, rng)
    velocity = np.array([joint.velocity_limit for joint in robot.joints])
    acceleration = np.array([joint.acceleration_limit for joint in robot.joints])
    return (q, rng.uniform(-velocity, velocity, (count, robot.dof)),
            rng.uniform(-acceleration, acceleration, (count, robot.dof)))


def corner_states(robot, count, rng):
    """``(q, qd, qdd)``, each ``(count, dof)``: positions uniform within the joint limits, every
    rate and acceleration at plus or minus its joint's limit (the corners of the box, where
    the largest torques and derivatives lie), drawn from the numpy generator ``rng``."""
    q = sample_joints(robot, count, rng)
    velocity = np.array([joint.velocity_limit for joint in robot.joints])
    acceleration = np.array([joint.acceleration_limit for joint in robot.joints])
    return (q, rng.choice([-1.0, 1.0], q.shape) * velocity,
            rng.choice([-1.0, 1.0], q.shape) * acceleration)


def random_robot(rng, n, prismatic=0.25):
    """A random serial robot with ``n`` joints and plausible inertial data (positive definite
    inertias that obey the triangle inequality), for tests: a :class:`robohw.robots.Robot`.
    Every joint may move at 2 per second and accelerate at 5 per second squared (rad or m)."""
    joints = []
    for _ in range(n):
        kind = JointType.PRISMATIC if rng.random() < prismatic else JointType.REVOLUTE
        alpha = rng.choice([0.0, math.pi / 2, -math.pi / 2, rng.uniform(-math.pi, math.pi)])
        moments = rng.uniform(0.01, 1.0, 3)
        moments[2] = rng.uniform(abs(moments[0] - moments[1]) + 1e-3, moments[0] + moments[1])
        axes = np.linalg.qr(rng.normal(size=(3, 3)))[0]
        tensor = axes @ np.diag(moments) @ axes.T
        a, d = float(rng.uniform(0, 0.5)), float(rng.uniform(-0.3, 0.3))
        offset = float(rng.uniform(-0.5, 0.5))
        theta = 0.0
        if kind == JointType.PRISMATIC:  # d is the joint variable; a fixed angle instead
            d, theta = 0.0, float(rng.choice([0.0, -math.pi / 2, rng.uniform(-math.pi, math.pi)]))
        joints.append(Joint(
            type=kind, a=a, alpha=float(alpha), d=d, offset=offset, theta=theta,
            limits=(-0.5, 0.5) if kind == JointType.PRISMATIC else (-math.pi, math.pi),
            velocity_limit=2.0, acceleration_limit=5.0,
            mass=float(rng.uniform(0.5, 10.0)), com=tuple(float(v) for v in
                                                          rng.uniform(-0.2, 0.2, 3)),
            inertia=(tensor[0, 0], tensor[1, 1], tensor[2, 2], tensor[0, 1], tensor[1, 2],
                     tensor[0, 2])))
    return Robot(name=f"random {n}-joint robot", joints=tuple(joints))


# A servo loop's smooth path (m, rad; planar: m, m, rad), each coordinate a sinusoid about
# home of this amplitude and 2 to 5 Hz, sampled at SERVO_RATE (Hz): moves of up to 1 mm a row.
TRAJECTORY_AMPLITUDE = {"spatial": (0.03, 0.03, 0.03, 0.05, 0.05, 0.05),
                        "planar": (0.03, 0.03, 0.1)}
SERVO_RATE = 1000.0


def sample_trajectory(platform, count, rng, start=0):
    """``(count, len(pose_fields))`` poses along a smooth path from home sampled at
    :data:`SERVO_RATE`, rows ``start`` on: each coordinate a sinusoid of
    :data:`TRAJECTORY_AMPLITUDE` and a frequency from 2 to 5 Hz (one ``uniform`` call on
    ``rng``)."""
    amplitude = np.array(TRAJECTORY_AMPLITUDE[platform.kind])
    frequency = rng.uniform(2.0, 5.0, len(amplitude))
    t = (start + np.arange(count)) / SERVO_RATE
    return np.asarray(platform.home) + amplitude * np.sin(2 * np.pi * frequency * t[:, None])


def sample_poses(platform, count, rng, scale=1.0):
    """``(count, len(pose_fields))`` poses of ``platform`` uniform within its home plus or
    minus ``scale`` times :data:`POSE_SPREAD` (one ``uniform`` call on ``rng``)."""
    spread = np.array(POSE_SPREAD[platform.kind]) * scale
    return np.array(platform.home) + rng.uniform(-1, 1, (count, len(spread))) * spread
