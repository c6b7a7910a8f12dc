"""The PUMA inverse kinematics as a task graph of CORDIC computational modules.

:func:`best_graph` decomposes the closed form of :mod:`robohw.ik.reference` (any arm of the
PUMA family) into 20 CCMs with a critical path of 11 (23 and 12 when the tool length ``d6`` is not
zero: three linear rotations find the wrist centre first). Every CCM is one operation of Lee &
Chang's Figure 1; constants come from the robot at elaboration:

=======  ==========================  ===============================================
CCM      operation                   computes
=======  ==========================  ===============================================
wx/wy/wz linear rotation             wrist centre ``p - d6 a`` (only when ``d6 != 0``)
r        circular vectoring          ``r = |(wx, wy)|``, ``phi = atan2(wy, wx)``
u        hyperbolic vectoring        ``|u| = sqrt(r^2 - D^2)``, ``D = d2 + d3``
q1       circular vectoring          ``theta1 = phi + atan2(s1 D, arm |u|)``
rho      circular vectoring          ``rho = |(u, v)|``, ``psi = atan2(v, u)``, ``v = s1 wz'``
d        linear rotation             ``d = rho^2 + c1``, ``c1 = -(a2^2 + a3^2 + d4^2)``
sig      hyperbolic vectoring        ``sqrt(e - d^2)``, ``sqrt(e) = 2 a2 hypot(a3, d4)``
q3       circular vectoring          ``theta3 = atan2(elbow sig, d) - beta``
q2       circular vectoring          ``theta2 = psi - atan2(elbow sig, d + 2 a2^2)``
t23      circular vectoring          ``theta2 + theta3``
a1, a3   circular rotations          ``a`` into frame 1, then frame 3: ``R03^T a``
q4, q5   circular vectoring          ``theta4``, ``|sin theta5|``; ``theta5``
n1..o3   circular rotations          ``n`` and ``o`` into frame 3
n4, o4   circular rotations          by ``-theta4`` as produced: the third row of ``R46``
q6       circular vectoring          ``theta6 = atan2(s5 n4_z, s5 o4_z)``
=======  ==========================  ===============================================

The two hyperbolic vectorings use range expansion 4 (:class:`robohw.cordic.config.CordicConfig`), so
the graph covers every pose with ``|u| > 0.002 D`` (the wrist centre more than 0.3 mm off the
shoulder-singular cylinder of the PUMA 560) and ``|cos gamma| < 0.999998`` (elbow bent by more
than 0.11 degrees from straight or folded); outside, the CCMs raise their domain flags and the
pose is reported invalid. The wrist singularity (``sin theta5 = 0``) determines only
``theta4 + theta6`` (or their difference, by the twists): ``theta4`` is then the angle of the
rounded vector the ``q4`` CCM sees (1.743 rad, the sum of the micro-angles, when it is exactly
zero), and ``theta6`` is computed from the hand frame turned by that very ``theta4``, so the
solution reproduces the pose. Wrist-singular poses are solved and valid, never flagged.
"""

import math

from robohw.cordic.config import MAX_WIDTH, Direction, System
from robohw.ik.codec import JOINT_FIELDS, POSE_INPUTS
from robohw.robots.closed_forms import check_puma_family
from robohw.taskgraph.graph import Ccm, Operand, TaskGraph, const

__all__ = ["best_graph", "paper_graph", "GRAPHS", "puma_format", "GUARD_BITS", "IK_WIDTHS"]

HYPERBOLIC_EXPANSION = 4  # domains |y/x| < 0.999998: see the module docstring

CIRC, LIN, HYP = System.CIRCULAR, System.LINEAR, System.HYPERBOLIC
ROT, VEC = Direction.ROTATION, Direction.VECTORING


# One guard bit inside the CCMs: with reals at width - 2 fraction bits, it brings q4 and q6
# within 1e-4 rad of float64 at 24 bits where |sin q5| >= 0.05 (5.2e-5 measured; 1.5e-4 without;
# the report's IK accuracy table).
GUARD_BITS = 1
# The widths the PUMA IK builds at: from the narrowest its accuracy table measures (16 bits,
# docs/ik.md) to the CORDIC's widest (robohw.cordic.config.MAX_WIDTH) less the guard bit.
IK_WIDTHS = (16, MAX_WIDTH - GUARD_BITS)


def puma_format(width):
    """The number formats of the PUMA graphs at ``width``-bit ports, as keywords of
    :func:`robohw.taskgraph.model.evaluate_model`, :func:`robohw.taskgraph.pipeline.plan_pipeline`
    and :class:`~robohw.taskgraph.pipeline.TaskGraphPipeline`: reals in [-2, 2) m, ``width - 2``
    fraction bits (a PUMA's workspace lies within 1 m of the shoulder; the largest value inside, the
    paper graph's terms of (A-7), stays below 2.05 times the reach, 1.8 m for the PUMA 560),
    and :data:`GUARD_BITS` more bits inside. A larger value saturates and flags its pose."""
    return {"width": width, "frac_bits": width - 2, "guard_bits": GUARD_BITS}


def _op(source, port="x", sign=1, branch=None, constant=0.0):
    return Operand(source, port, sign, branch, float(constant))


class _Builder:
    """The robot's constants and the CCM list both decompositions grow, with the front they
    share: the wrist centre (when ``d6 != 0``) and ``theta1`` in three CCMs (A-1, A-2)."""
    def __init__(self, robot):
        self.s1, self.s3, self.s4, self.s5 = check_puma_family(robot)
        j = robot.joints
        self.offset = [joint.offset for joint in j]
        self.a2, self.a3, self.d4 = j[1].a, j[2].a, j[3].d
        self.length = math.hypot(self.a3, self.d4)
        self.beta = math.atan2(-self.s3 * self.d4, self.a3)
        self.c1 = -(self.a2 * self.a2 + self.length * self.length)
        self.ccms = []
        d1, d6, s1 = j[0].d, j[5].d, self.s1
        shoulder = j[1].d + j[2].d
        if d6:
            self.ccm("wx", LIN, ROT, _op("ax"), _op("px"), const(-d6), "wx = px - d6 ax")
            self.ccm("wy", LIN, ROT, _op("ay"), _op("py"), const(-d6), "wy = py - d6 ay")
            self.ccm("wz", LIN, ROT, _op("az"), _op("pz", constant=-d1), const(-d6),
                     "wz' = pz - d1 - d6 az")
            self.wx, self.wy = _op("wx", "y"), _op("wy", "y")
            self.wz = _op("wz", "y", sign=s1)                        # v = s1 wz'
        else:
            self.wx, self.wy = _op("px"), _op("py")
            self.wz = _op("pz", sign=s1, constant=-s1 * d1)
        self.ccm("r", CIRC, VEC, self.wx, self.wy, const(0),
                 "r = |(wx, wy)|, phi = atan2(wy, wx) (A-1)")
        self.ccm("u", HYP, VEC, _op("r", "x"), const(shoulder), const(0),
                 "|u| = sqrt(r^2 - D^2)", HYPERBOLIC_EXPANSION)
        self.u = _op("u", "x", branch="arm")
        self.ccm("q1", CIRC, VEC, self.u, const(s1 * shoulder),
                 _op("r", "z", constant=-self.offset[0]),
                 "q1 = phi + atan2(s1 D, u) - offset1 (A-2)")
        self.theta1 = _op("q1", "z", sign=-1, constant=-self.offset[0])   # -theta1

    def ccm(self, name, system, direction, x, y, z, label, expansion=0):
        self.ccms.append(Ccm(name, system, direction, x, y, z, expansion, label))


def best_graph(robot):
    """The decomposition described above, for ``robot`` (PUMA family)."""
    g = _Builder(robot)
    ccm, u, wz = g.ccm, g.u, g.wz
    s1, s3, s4, s5, offset = g.s1, g.s3, g.s4, g.s5, g.offset
    a2, beta, c1 = g.a2, g.beta, g.c1
    sqrt_e = 2 * a2 * g.length
    ccm("rho", CIRC, VEC, u, wz, const(0), "rho = |(u, v)|, psi = atan2(v, u)")
    ccm("d", LIN, ROT, _op("rho", "x"), const(c1), _op("rho", "x"), "d = rho^2 + c1")
    ccm("sig", HYP, VEC, const(sqrt_e), _op("d", "y"), const(0), "sqrt(e - d^2)",
        HYPERBOLIC_EXPANSION)
    sig = _op("sig", "x", branch="elbow")
    ccm("q3", CIRC, VEC, _op("d", "y"), sig, const(-beta - offset[2]),
        "q3 = atan2(elbow sig, d) - beta - offset3")
    ccm("q2", CIRC, VEC, _op("d", "y", constant=2 * a2 * a2), _op("sig", "x", -1, "elbow"),
        _op("rho", "z", constant=-offset[1]), "q2 = psi - atan2(elbow sig, d + 2 a2^2) - offset2")
    ccm("t23", CIRC, VEC, _op("d", "y"), sig, _op("q2", "z", constant=offset[1] - beta),
        "theta23 = theta2 + atan2(elbow sig, d) - beta")
    theta1 = g.theta1
    theta23 = _op("t23", "z", sign=-1)                      # -theta23
    ccm("a1", CIRC, ROT, _op("ax"), _op("ay"), theta1, "(f11a, f12a) = Rz(-theta1) (ax, ay)")
    ccm("a3", CIRC, ROT, _op("a1", "x"), _op("az", sign=s1), theta23,
        "(g1, g2) = Rz(-theta23) (f11a, s1 az)")
    # R36 column 3 = (g1, -s1 s3 f12a, -s3 g2) = (s5 S5 C4, s5 S5 S4, -s4 s5 C5).
    ccm("q4", CIRC, VEC, _op("a3", "x", s5, "wrist"), _op("a1", "y", -s1 * s3 * s5, "wrist"),
        const(-offset[3]), "q4 = atan2(s5 w R36[1,2], s5 w R36[0,2]); x = |sin theta5|")
    ccm("q5", CIRC, VEC, _op("a3", "y", s3 * s4 * s5), _op("q4", "x", branch="wrist"),
        const(-offset[4]), "q5 = atan2(w |S5|, -s4 s5 R36[2,2])")
    # theta6 from the hand frame turned by the theta4 just produced, so that theta4 and theta6
    # agree even where theta4 is undetermined (sin theta5 = 0, the wrist singularity). In frame
    # 4, R4^T R36 = R5 R6, whose n and o columns end in s5 S6 and s5 C6 at any theta5; for
    # v3 = R03^T v = (h1v, -s1 s3 f12v, .), that last entry is -s4 (Rz(-theta4) v3)_y.
    theta4 = _op("q4", "z", sign=-1, constant=-offset[3])              # -theta4
    for c in "no":
        ccm(f"{c}1", CIRC, ROT, _op(f"{c}x"), _op(f"{c}y"), theta1,
            f"(f11{c}, f12{c}) = Rz(-theta1) ({c}x, {c}y)")
        ccm(f"{c}3", CIRC, ROT, _op(f"{c}1", "x"), _op(f"{c}z", sign=s1), theta23,
            f"h1{c} = (Rz(-theta23) (f11{c}, s1 {c}z))_x")
        ccm(f"{c}4", CIRC, ROT, _op(f"{c}3", "x"), _op(f"{c}1", "y", -s1 * s3), theta4,
            f"(Rz(-theta4) (h1{c}, -s1 s3 f12{c}))_y = -s4 {c}4_z")
    # S6 = s5 n4_z = -s4 s5 (n4)_y, C6 = -s4 s5 (o4)_y: both of magnitude 1 at any theta5.
    ccm("q6", CIRC, VEC, _op("o4", "y", -s4 * s5), _op("n4", "y", -s4 * s5),
        const(-offset[5]), "q6 = atan2(s5 n4_z, s5 o4_z)")
    outputs = {name: (name, "z") for name in JOINT_FIELDS}     # the CCMs q1..q6 give them
    return TaskGraph("best", POSE_INPUTS, g.ccms, outputs,
                     description=f"best decomposition for {robot.name}")


def paper_graph(robot):
    """A reconstruction of Lee & Chang's decomposition of their Appendix A, for comparison.

    It follows the appendix's equations where :func:`best_graph` takes shortcuts: ``p``, ``o``
    and ``a`` are all rotated by ``-theta1`` (A-3, A-4); ``d`` is summed from two squares
    (A-5); ``theta23`` comes from the numerator and denominator of (A-7), built from a rotation
    by ``theta3`` and four multiply-accumulates with the constants ``a3/a2`` and ``d4/a2``, and
    ``theta2 = theta23 - theta3`` (A-8) from a second vectoring; ``theta4`` and ``theta5`` from
    the rotated approach vector (A-9, A-10); ``theta6`` by carrying ``o`` into frame 5 (A-11).
    The paper's Figure 2 is not in our copy: this graph has 24 CCMs (27 with a tool length),
    against the paper's 25.
    """
    g = _Builder(robot)
    ccm, wx, wy, wz, theta1 = g.ccm, g.wx, g.wy, g.wz, g.theta1
    s1, s3, s4, s5, offset = g.s1, g.s3, g.s4, g.s5, g.offset
    a2, a3, d4, length, beta, c1 = g.a2, g.a3, g.d4, g.length, g.beta, g.c1
    # f11 and f12 of p, o and a.
    ccm("p1", CIRC, ROT, wx, wy, theta1, "f11p, f12p (A-3)")
    ccm("o1", CIRC, ROT, _op("ox"), _op("oy"), theta1, "f11o, f12o (A-3)")
    ccm("a1", CIRC, ROT, _op("ax"), _op("ay"), theta1, "f11a, f12a (A-4)")
    # d, sqrt(e - d^2), theta3.
    ccm("d1", LIN, ROT, _op("p1", "x"), const(c1), _op("p1", "x"), "f11p^2 + c1")
    ccm("d", LIN, ROT, wz, _op("d1", "y"), wz, "d = f11p^2 + pz^2 + c1 (A-5)")
    ccm("sig", HYP, VEC, const(2 * a2 * length), _op("d", "y"), const(0), "sqrt(e - d^2)",
        HYPERBOLIC_EXPANSION)
    ccm("q3", CIRC, VEC, _op("d", "y"), _op("sig", "x", branch="elbow"),
        const(-beta - offset[2]), "theta3 (A-6)")
    # theta23 = atan2(num, den), (C3 u - S3 v, S3 u + C3 v) by one rotation.
    ccm("rot3", CIRC, ROT, _op("p1", "x"), wz, _op("q3", "z", constant=offset[2]),
        "(C3 f11p - S3 pz, S3 f11p + C3 pz)")
    ccm("den1", LIN, ROT, _op("p1", "x"), _op("rot3", "x"), const(a3 / a2), "+ (a3/a2) f11p")
    ccm("den", LIN, ROT, wz, _op("den1", "y"), const(-s3 * d4 / a2), "- s3 (d4/a2) pz")
    ccm("num1", LIN, ROT, wz, _op("rot3", "y"), const(a3 / a2), "+ (a3/a2) pz")
    ccm("num", LIN, ROT, _op("p1", "x"), _op("num1", "y"), const(s3 * d4 / a2),
        "+ s3 (d4/a2) f11p")
    ccm("t23", CIRC, VEC, _op("den", "y"), _op("num", "y"), const(0), "theta23 (A-7)")
    ccm("q2", CIRC, VEC, _op("den", "y"), _op("num", "y"),
        _op("q3", "z", sign=-1, constant=-offset[2] - offset[1]), "theta2 = theta23 - theta3 (A-8)")
    theta23 = _op("t23", "z", sign=-1)
    # theta4, theta5 from a in frame 3.
    ccm("a3", CIRC, ROT, _op("a1", "x"), _op("az", sign=s1), theta23, "a in frame 3")
    ccm("q4", CIRC, VEC, _op("a3", "x", s5, "wrist"), _op("a1", "y", -s1 * s3 * s5, "wrist"),
        const(-offset[3]), "theta4 (A-9)")
    ccm("q5", CIRC, VEC, _op("a3", "y", s3 * s4 * s5), _op("q4", "x", branch="wrist"),
        const(-offset[4]), "theta5 (A-10)")
    # o into frame 3, then by -theta4 and -theta5 into frame 5: o5 = (-S6, C6, 0).
    ccm("o3", CIRC, ROT, _op("o1", "x"), _op("oz", sign=s1), theta23, "o in frame 3 (x, -s3 z)")
    ccm("o4", CIRC, ROT, _op("o3", "x"), _op("o1", "y", -s1 * s3),
        _op("q4", "z", sign=-1, constant=-offset[3]), "Rz(-theta4)")
    ccm("o5", CIRC, ROT, _op("o4", "x"), _op("o3", "y", -s3 * s4),
        _op("q5", "z", sign=-1, constant=-offset[4]), "Rz(-theta5)")
    ccm("q6", CIRC, VEC, _op("o4", "y", -s4 * s5), _op("o5", "x", sign=-1), const(-offset[5]),
        "theta6 (A-11)")
    outputs = {name: (name, "z") for name in JOINT_FIELDS}     # the CCMs q1..q6 give them
    return TaskGraph("paper", POSE_INPUTS, g.ccms, outputs,
                     description=f"reconstruction of Lee & Chang's Appendix A for {robot.name}")


# The two decompositions by name, as the command line and the design registry call them.
GRAPHS = {"paper": paper_graph, "best": best_graph}
