"""The thesis's data (``docs/references.md``, ref. 9, as we
reconstruct it from an OCR'd copy): its two trajectories of the Stanford arm, its sample period,
its printed error tables 6.1-6.6, its printed gains and its two worked configurations.

Angles are printed in degrees (``q3``, the prismatic joint, in metres); the trajectories here
are in radians and metres.
"""

import math

import numpy as np

from robohw.distributed.quintic import QuinticPath
from robohw.hw.checks import check_number
from robohw.robots.joint_type import JointType

__all__ = ["SAMPLE_PERIOD", "DURATIONS", "JOINT_KNOTS", "KNOT_FRACTIONS", "VIA_POINT",
           "VIA_Q6_IK", "VIA_Q6", "PRISMATIC_JOINT", "trajectory", "sample_trajectory",
           "check_trajectory_fits", "PRINTED_TABLES",
           "TABLE_SCHEMES", "TABLE_CORRECTIONS", "PRINTED_GAINS", "WORKED_CONFIGURATIONS"]

SAMPLE_PERIOD = 0.005          # seconds (T7593-T7600)
DURATIONS = (8.0, 6.0, 4.0, 2.0, 1.0)

# J0..J3 (T2715-T2837 untangled): q1, q2, q4, q5, q6 in degrees, q3 in metres. The
# printed q6 differ from exact inverse kinematics of the Cartesian knots by up to 12.8 degrees;
# the printed values define trajectory 1.
JOINT_KNOTS = ((-74.96, 100.11, 0.57, 30.20, 73.75, 1.15),
               (-55.06, 108.74, 0.31, 29.38, 56.67, 8.77),
               (-1.93, 108.74, 0.31, 1.46, 41.28, 85.71),
               (43.11, 100.11, 0.57, -23.43, 59.24, 153.45))
# The knots' times as fractions of the duration: 0, 1.4, 2.6 and 4.0 s of the printed 4 s path,
# scaled in proportion for the other durations (not stated; it reproduces Table 6.2).
KNOT_FRACTIONS = (0.0, 0.35, 0.65, 1.0)
# Trajectory 2's via point is not printed. Our assumption: the Cartesian midpoint
# (.30, 0, -.10) m of the end points with their orientation, reached at half the duration;
# inverse kinematics gives q1..q5 below and q6 = 45 degrees (VIA_Q6_IK). With 45 degrees the
# link-6 errors come out twice the printed ones; the thesis's own knots miss exact inverse
# kinematics in q6 by up to 12.8 degrees, so its via's q6 is not the exact one either.
# VIA_Q6 = 66.7 degrees reproduces Table 6.4's link 6 (3.066 % against 3.07 at 8 s): a value
# fitted to the printed table, stated as such.
VIA_POINT = (-32.231, 111.507, 0.273, 22.460, 44.561)
VIA_Q6_IK = 45.0
VIA_Q6 = 66.7


# The trajectories' one joint in metres (1-based): the Stanford arm's sliding third joint.
PRISMATIC_JOINT = 3


def check_trajectory_fits(robot, q):
    """Refuse (``ValueError``, one line) a robot the thesis's joint trajectory ``q`` (``(K, 6)``)
    does not fit: six joints, the third prismatic (``q3`` in metres) and the others revolute,
    and the prismatic joint within the robot file's limits where it gives them (the
    revolute joints' angles wrap: the printed q2 of 100 to 109 degrees lies beyond the
    shipped Stanford files' +-90, which the thesis does not state)."""
    source = robot.source or robot.name
    if robot.dof != q.shape[1]:
        raise ValueError(f"{source}: the thesis's trajectories move {q.shape[1]} joints, not "
                         f"{robot.dof}")
    for k, joint in enumerate(robot.joints, start=1):
        wanted = JointType.PRISMATIC if k == PRISMATIC_JOINT else JointType.REVOLUTE
        if joint.type != wanted:
            unit = "metres" if wanted == JointType.PRISMATIC else "radians"
            raise ValueError(f"{source}: the thesis's trajectories move joint {k} in {unit}, "
                             f"a {wanted} joint; this robot's joint {k} is {joint.type}")
        if joint.type == JointType.PRISMATIC and joint.limits is not None:
            low, high = q[:, k - 1].min(), q[:, k - 1].max()
            if low < joint.limits[0] or high > joint.limits[1]:
                raise ValueError(f"{source}: the trajectory takes joint {k} over "
                                 f"[{low:.4g}, {high:.4g}], outside its limits "
                                 f"[{joint.limits[0]:g}, {joint.limits[1]:g}]")


def _radians(knot):
    return [math.radians(v) if k != 2 else v for k, v in enumerate(knot)]


def trajectory(number, duration, *, via_q6=VIA_Q6):
    """The thesis's trajectory 1 or 2 at ``duration`` seconds, as a
    :class:`~robohw.distributed.quintic.QuinticPath` (radians, metres).

    1 (T2552-T3030): J0 to J3 through J1 and J2, three quintic segments per joint; at rest at
    both ends, zero acceleration at J1 and J2 and there the velocity of the straight middle
    segment, ``(q(J2) - q(J1)) / (t2 - t1)``, so the middle segment is linear. 2 (T7655-T7691):
    J0 to J3 with a stop at a via point (:data:`VIA_POINT` and ``via_q6`` degrees) halfway, two
    rest-to-rest quintics.
    """
    if number not in (1, 2):
        raise ValueError(f"trajectory must be 1 or 2, not {number!r}")
    check_number("duration", duration, above=0, unit="seconds")
    if number == 1:
        positions = np.array([_radians(k) for k in JOINT_KNOTS])
        times = tuple(f * duration for f in KNOT_FRACTIONS)
        velocities = np.zeros_like(positions)
        cruise = (positions[2] - positions[1]) / (times[2] - times[1])
        velocities[1] = velocities[2] = cruise
    else:
        positions = np.array([_radians(JOINT_KNOTS[0]), _radians((*VIA_POINT, via_q6)),
                              _radians(JOINT_KNOTS[3])])
        times = (0.0, duration / 2, float(duration))
        velocities = np.zeros_like(positions)
    return QuinticPath(times, positions, velocities, np.zeros_like(positions))


def sample_trajectory(number, duration, *, via_q6=VIA_Q6, period=SAMPLE_PERIOD):
    """``t``, ``q``, ``qd``, ``qdd`` of :func:`trajectory` at every sample ``k * period`` from
    0 to the duration inclusive."""
    path = trajectory(number, duration, via_q6=via_q6)
    t = np.arange(round(path.duration / period) + 1) * period
    return (t, *path.sample(np.minimum(t, path.duration)))


# Tables 6.1-6.6 as printed (T8072-T9070), in percent, links 1..6. Tables 6.1-6.4:
# one row per duration of DURATIONS. Tables 6.5 and 6.6: rows (trajectory, duration).
PRINTED_TABLES = {
    "6.1": ((2.04, 0.42, 0.63, 0.49, 2.3, 49.3), (2.04, 0.42, 0.96, 0.88, 4.2, 49.3),
            (2.04, 0.88, 1.53, 2.02, 9.33, 49.3), (2.04, 3.76, 2.31, 7.94, 25.8, 49.2),
            (2.04, 9.34, 2.64, 28.1, 34.9, 49.2)),
    "6.2": ((2.6, 0.19, 0.27, 0.16, 0.17, 1.6), (1.9, 0.27, 0.35, 0.21, 0.30, 2.2),
            (1.78, 0.46, 0.49, 0.35, 0.76, 3.3), (3.21, 1.54, 0.97, 1.88, 3.6, 6.5),
            (6.15, 5.55, 1.97, 13.0, 9.25, 12.6)),
    "6.3": ((2.48, 0.42, 0.42, 1.2, 3.79, 92.9), (2.48, 0.51, 0.68, 2.15, 6.62, 92.9),
            (2.48, 1.10, 1.17, 4.6, 13.9, 92.9), (2.48, 4.5, 2.08, 18.0, 39.5, 92.8),
            (2.48, 12.3, 2.6, 36.3, 39.1, 92.8)),
    "6.4": ((1.73, 0.16, 0.23, 0.18, 0.24, 3.07), (1.6, 0.22, 0.31, 0.23, 0.4, 4.09),
            (2.15, 0.36, 0.49, 0.43, 1.0, 6.12), (4.4, 1.07, 1.27, 3.29, 4.96, 12.1),
            (8.6, 3.95, 2.93, 13.7, 9.42, 23.7)),
    # First-order prediction and the hybrid: (value, printed reduction against zero-order).
    "6.5": {(1, 2.0): ((1.75, 46), (1.10, 39), (0.67, 27), (1.26, 33), (1.40, 61), (1.88, 71)),
            (2, 2.0): ((2.51, 43), (0.79, 26), (0.78, 39), (1.93, 41), (2.4, 52), (2.2, 82)),
            (1, 1.0): ((3.55, 42), (3.62, 35), (1.39, 29), (8.63, 34), (4.19, 55), (5.37, 57)),
            (2, 1.0): ((5.17, 40), (2.46, 38), (1.66, 43), (8.49, 38), (4.74, 50), (6.99, 61))},
    "6.6": {(1, 2.0): ((1.72, 46), (1.10, 29), (0.56, 42), (1.3, 31), (3.5, 3), (0, 100)),
            (2, 2.0): ((2.27, 48), (0.79, 26), (0.7, 45), (2.24, 31), (3.77, 24), (0, 100)),
            (1, 1.0): ((3.43, 44), (3.5, 37), (1.05, 47), (9.43, 27), (8.93, 3), (0, 100)),
            # Link 6's cell is lost in the OCR; "link 6 totally eliminated" (T8890).
            (2, 1.0): ((4.53, 48), (2.4, 39), (1.5, 49), (9.62, 30), (7.1, 25), (0, 100))},
}
# Which scheme and trajectory each table is.
TABLE_SCHEMES = {"6.1": ("bejczy", 1), "6.2": ("zero", 1), "6.3": ("bejczy", 2),
                 "6.4": ("zero", 2), "6.5": ("first", None), "6.6": ("hybrid", None)}
# The cells read against the OCR : a table rule read as a leading "1".
TABLE_CORRECTIONS = (
    "6.1, 8 s, link 5: printed 12.3, read 2.3 (a table rule)",
    "6.2, 8 s, link 1: printed 12.6, read 2.6 (a table rule; the text says 2.6, T7861)",
    "6.2, 2 s, link 6: printed 16.5, read 6.5 (a table rule)",
    "6.2, 1 s, link 4: printed 13.0, the text says 12.9 (T8021)",
    "6.3, 1 s, link 3: printed 12.6, read 2.6 (a table rule)",
    "6.4, 4 s, link 5: printed 11.0, read 1.0 (a table rule)",
    "6.5, trajectory 1, 2 s, link 2: 1.54 to 1.10 is a 29 % reduction, printed 39 % (also in "
    "the text, T8603-T8611)",
    "6.5, trajectory 1, 2 s, link 3: 0.97 to 0.67 is 31 %, printed 27 %",
    "6.5, trajectory 2, 1 s, link 6: 23.7 to 6.99 is 71 %, printed 61 %",
)
# The gains in speed as printed for n = 6 (sections 3.3, 5.2), and the formulas printed beside
# them; v1's "n/(0.6n+0.14)" gives 1.6, not the printed 1.5: read 0.6n + 0.4.
PRINTED_GAINS = {"serial": (1.0, "1"), "v1": (1.5, "n/(0.6n+0.14)"),
                 "v2": (1.9, "n/(0.43n+0.57)"), "zero": (6.0, "n"),
                 "first": (4.6, "257n/(257+77)"), "hybrid": (3.1, "n/(.19n+.81)")}

# The Lagrange-Euler example's two configurations (T3198-T3560): q (degrees; q3 in
# metres), qd, qdd, and the printed inertia matrix D, velocity terms H, gravity G and torques u.
WORKED_CONFIGURATIONS = {
    "A": {"q": (-70.536, 101.290, .539, 29.381, 70.740, 4.105),
          "qd": (1.573, .419, -.632, -.291, -1.070, 1.051),
          "qdd": (16.780, 4.476, -6.750, -3.106, -11.415, 11.211),
          "D": ((1.89905, .05039, -1.06238, .05103, .03558, -.00026),
                (.05039, 1.49800, -.09739, -.02828, .03174, .00014),
                (-1.06238, -.09739, 6.47000, .00000, -.10848, .00000),
                (.05103, -.02828, .00000, .01534, .00000, .00010),
                (.03558, .03174, -.10848, .00000, .01600, .00000),
                (-.00026, .00014, .00000, .00010, .00000, .00030)),
          "H": (-1.821, .362, -1.811, -.217, .084, -.00019),
          "G": (0.000, 7.265, 12.421, -.462, .109, 0.000),
          "u": (36.873, 15.563, -50.086, .003, 1.482, -.00089)},
    "B": {"q": (5.440, 105.810, .420, -.570, 51.960, 91.575),
          "qd": (4.931, -.746, 1.125, -2.992, .952, 8.099),
          "qdd": (0.0,) * 6,
          "D": ((1.76739, .01472, -.98956, .04094, .01658, -.00028),
                (.01472, 1.43586, -.09044, .00290, .04574, .00000),
                (-.98956, -.09044, 6.47000, .00000, -.09050, .00000),
                (.04094, .00290, .00000, .01119, .00000, .00018),
                (.01658, .04574, -.09050, .00000, .01600, .00000),
                (-.00028, .00000, .00000, .00018, .00000, .00030)),
          "H": (1.586, 8.764, 2.273, .632, .665, .00112),
          "G": (0.0, .119, 17.285, .063, .426, 0.0),
          "u": (1.586, 8.884, 19.559, .696, 1.091, .00112)},
}
