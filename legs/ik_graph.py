"""A parallel manipulator's inverse kinematics as a task graph of CORDIC modules, one identical
processor per leg (Gosselin 1996, eqs. (1)-(8), done with CORDICs).

Every leg is the same five CCMs (planar: two) with its own constants, its base joint ``a`` and
its platform joint ``b'``; the legs share only the broadcast pose and never each other's values
(the graph has no edge between two legs):

=========  =====================  =================================================
CCM        operation              computes
=========  =====================  =================================================
``rx``     circular rotation      ``(b'y, b'z)`` turned by ``roll``: ``Rx b'``
``ry``     circular rotation      ``((Rx b')z, b'x)`` turned by ``pitch``: ``Ry Rx b'``
``rz``     circular rotation      its ``(x, y)`` turned by ``yaw``: ``Q b'``
``uv``     circular vectoring     ``|(U, V)|`` of ``U = x - ax + (Q b')x``, ``V = y - ay + (Q b')y``
``rho``    circular vectoring     ``rho = |(|(U, V)|, W)|``, ``W = z - az + (Q b')z``
=========  =====================  =================================================

``Q = Rz(yaw) Ry(pitch) Rx(roll)`` (:func:`robohw.legs.platform_kinematics.rotation`) is
never formed: the three rotations turn ``b'`` itself, and the two vectorings give the length
without a square root (and the leg's azimuth ``psi`` and elevation ``theta``, their ``z``). A
planar leg turns ``b'`` by ``phi`` and vectors ``(U, V)``. The sums of ``U``, ``V``, ``W`` are
the adders at the vectorings' inputs (:class:`robohw.taskgraph.graph.Operand`, ``addend``).

With ``jacobian=True`` every leg also gives its row of ``K / rho``, ``(p x e, e)`` with ``p =
Q b'`` and ``e = s / rho`` (eq. (13) over ``rho``), in six more rotations and no division: ``e``
is ``(1, 0, 0)`` turned by ``theta`` and then ``psi``; ``p`` turned by ``-psi`` and ``-theta``
is ``(p.e, p2, p3)`` in the leg's frame, where ``p x e = (0, p3, -p2)``, turned back by
``theta`` and ``psi``:

=========  ==================  ====================================================
``el``     circular rotation   ``(1, 0)`` by ``theta``: ``(|e_xy|, e_z)``
``az``     circular rotation   ``(|e_xy|, 0)`` by ``psi``: ``(e_x, e_y)``
``p12``    circular rotation   ``(p_x, p_y)`` by ``-psi``: ``(p1, p2)``
``p13``    circular rotation   ``(p1, p_z)`` by ``-theta``: ``(p.e, p3)``
``m1``     circular rotation   ``(0, p2)`` by ``theta``: ``(-p2 sin theta, m_z)``...
``m2``     circular rotation   ``(m1.x, p3)`` by ``psi``: ``(m_x, m_y)``
=========  ==================  ====================================================

(``m1`` turns ``(0, -p2)``.) A planar leg's row ``((p x e)_z, e_x, e_y)`` takes two: ``(1, 0)``
by ``psi``, and ``(-p_x, -p_y)`` by ``-psi``, whose ``y`` is ``p_x sin psi - p_y cos psi``.

Formats (:func:`platform_format`): the pose's angles are binary angles; every real, the
position ``x, y, z`` included, has the fraction bits that leave room for the platform's
:func:`reach`, beyond which no leg can be inside its stroke.
"""

import math
from dataclasses import replace

import numpy as np

from robohw.cordic.config import Direction, System
from robohw.hw.fixed import FixedFormat, angle_to_code
from robohw.robots.sampling import POSE_SPREAD
from robohw.taskgraph.graph import Ccm, Operand, TaskGraph, const

__all__ = ["leg_ik_graph", "leg_processors", "leg_ports", "angle_fields", "platform_format",
           "pose_bounds",
           "reach", "pose_inputs", "pose_codes", "GUARD_BITS"]

CIRC, ROT, VEC = System.CIRCULAR, Direction.ROTATION, Direction.VECTORING

# Guard bits inside the CCMs. At 24 bits on the hexapod (5,000 poses), the lengths differ from
# float64 of the rounded pose by at most 2.14, 1.37, 0.96, 0.78, 0.62 LSB with 0..4 guard bits;
# two keep the CCMs' share below the output's rounding and the pose's (1.44 LSB in all).
GUARD_BITS = 2


def reach(platform):
    """The largest ``|x|``, ``|y|``, ``|z|`` (m) of a pose whose legs all lie inside their
    strokes: ``r = s_i + a_i - Q b'_i`` with ``|s_i| <= rho_max``, so ``|r| <= min_i
    (rho_max_i + |a_i| + |b'_i|)``."""
    return min(leg.stroke[1] + math.hypot(*leg.base) + math.hypot(*leg.platform)
               for leg in platform.legs)


def platform_format(platform, width):
    """The number formats of the platform's graph at ``width``-bit ports, as keywords of
    :func:`robohw.taskgraph.model.evaluate_model` and
    :class:`~robohw.taskgraph.pipeline.TaskGraphPipeline`: reals with room for the largest of
    :func:`reach`, the longest stroke (``|U|, |V|, |W|, rho <= rho_max`` for every pose inside the
    strokes) and the legs' joint coordinates (the graph's constants), and :data:`GUARD_BITS` more
    bits inside. Anything larger saturates and flags its pose. A platform whose reach leaves no
    fraction bit is refused (``ValueError``)."""
    largest = max(reach(platform), *(leg.stroke[1] for leg in platform.legs),
                  *(abs(v) for leg in platform.legs for v in (*leg.base, *leg.platform)))
    integer_bits = max(0, math.ceil(math.log2(largest * (1 + 2.0 ** -width)))) \
        if math.isfinite(largest * (1 + 2.0 ** -width)) else math.inf
    if integer_bits > width - 2:
        # A port needs a fraction bit at least: the CORDICs' unit vectors and the leg
        # constants are fractions of a metre.
        raise ValueError(f"{platform.source or platform.name}: a reach, stroke or joint "
                         f"coordinate of {largest:.3g} m leaves {width}-bit ports no fraction "
                         f"bit: no number format holds the platform")
    return {"width": width, "frac_bits": width - 1 - integer_bits, "guard_bits": GUARD_BITS}


def _spatial_leg(prefix, leg, jacobian, pose):
    (ax, ay, az), (bx, by, bz) = leg.base, leg.platform
    x, y, z, roll, pitch, yaw = pose
    rx, ry, rz, uv, rho = (f"{prefix}{n}" for n in ("rx", "ry", "rz", "uv", "rho"))
    el, az_, p12, p13, m1, m2 = (f"{prefix}{n}" for n in ("el", "az", "p12", "p13", "m1",
                                                            "m2"))
    psi, theta = Operand(uv, "z"), Operand(rho, "z")
    row = [
        Ccm(el, CIRC, ROT, const(1), const(0), theta, label="(|e_xy|, e_z)"),
        Ccm(az_, CIRC, ROT, Operand(el, "x"), const(0), psi, label="(e_x, e_y)"),
        Ccm(p12, CIRC, ROT, Operand(rz, "x"), Operand(rz, "y"), Operand(uv, "z", sign=-1),
            label="(p1, p2)"),
        Ccm(p13, CIRC, ROT, Operand(p12, "x"), Operand(ry, "x"), Operand(rho, "z", sign=-1),
            label="(p.e, p3)"),
        Ccm(m1, CIRC, ROT, const(0), Operand(p12, "y", sign=-1), theta, label="(., m_z)"),
        Ccm(m2, CIRC, ROT, Operand(m1, "x"), Operand(p13, "y"), psi, label="(m_x, m_y)"),
    ]
    outputs = dict(zip((1, 2, 3, 4, 5, 6), ((m2, "x"), (m2, "y"), (m1, "y"), (az_, "x"),
                                            (az_, "y"), (el, "y"))))
    return [

        Ccm(rx, CIRC, ROT, const(by), const(bz), roll, label="Rx b'"),
        Ccm(ry, CIRC, ROT, Operand(rx, "y"), const(bx), pitch, label="Ry Rx b'"),
        Ccm(rz, CIRC, ROT, Operand(ry, "y"), Operand(rx, "x"), yaw, label="Q b'"),
        Ccm(uv, CIRC, VEC, replace(x, constant=-ax, addend=Operand(rz, "x")),
            replace(y, constant=-ay, addend=Operand(rz, "y")), const(0), label="|(U, V)|"),
        Ccm(rho, CIRC, VEC, Operand(uv, "x"),
            replace(z, constant=-az, addend=Operand(ry, "x")), const(0), label="rho"),
    ] + (row if jacobian else []), (outputs if jacobian else {})


def _planar_leg(prefix, leg, jacobian, pose):
    (ax, ay), (bx, by) = leg.base, leg.platform
    x, y, phi = pose
    turn, rho, e, m = (f"{prefix}{n}" for n in ("rz", "rho", "e", "m"))
    row = [
        Ccm(e, CIRC, ROT, const(1), const(0), Operand(rho, "z"), label="(e_x, e_y)"),
        Ccm(m, CIRC, ROT, Operand(turn, "x", sign=-1), Operand(turn, "y", sign=-1),
            Operand(rho, "z", sign=-1), label="(., (p x e)_z)"),
    ]
    outputs = {1: (m, "y"), 2: (e, "x"), 3: (e, "y")}
    return [
        Ccm(turn, CIRC, ROT, const(bx), const(by), phi, label="Q b'"),
        Ccm(rho, CIRC, VEC, replace(x, constant=-ax, addend=Operand(turn, "x")),
            replace(y, constant=-ay, addend=Operand(turn, "y")), const(0), label="rho"),
    ] + (row if jacobian else []), (outputs if jacobian else {})


def leg_ik_graph(platform, jacobian=False):
    """The :class:`~robohw.taskgraph.graph.TaskGraph` of ``platform``'s leg lengths: inputs its
    pose fields (the angles as angle inputs), CCMs ``leg{i}_...`` (the module docstring),
    outputs ``rho1..rhoN`` (m) and, with ``jacobian``, the rows of ``K / rho``, ``k{i}_{j}``
    (the columns of :func:`robohw.legs.platform_kinematics.jacobian`)."""
    ccms, outputs = leg_processors(platform, "", [Operand(name)
                                                  for name in platform.pose_fields], jacobian)
    what = "leg lengths and Jacobian rows" if jacobian else "leg lengths"
    return TaskGraph(f"{platform.name}-legs{'-jacobian' if jacobian else ''}",
                     platform.pose_fields, ccms, outputs,
                     description=f"{what} of {platform.name}, one processor per leg",
                     angle_inputs=angle_fields(platform))


def leg_processors(platform, prefix, pose, jacobian=False):
    """``(ccms, outputs)``: every leg's CCMs (names ``{prefix}leg{i}_...``) for the pose whose
    fields are the operands ``pose`` (reals, and angles or reals in turns, in the order of
    ``platform.pose_fields``), and their outputs ``{"rho{i}": (ccm, port)}`` (and ``"k{i}_{j}"``
    with ``jacobian``)."""
    make = _spatial_leg if platform.spatial else _planar_leg
    ccms, outputs = [], {}
    for i, leg in enumerate(platform.legs, start=1):
        leg_ccms, row = make(f"{prefix}leg{i}_", leg, jacobian, pose)
        ccms += leg_ccms
        outputs[f"rho{i}"] = (f"{prefix}leg{i}_rho", "x")
        outputs.update({f"k{i}_{j}": port for j, port in row.items()})
    return ccms, outputs


def leg_ports(platform, prefix):
    """The ports of one leg processor's CCMs (:func:`leg_processors`, names ``{prefix}...``,
    with the rows) that other computations read, as operands: ``rho``; the leg's azimuth
    ``psi`` and elevation ``theta`` (``None`` planar); ``qb``, ``Q b'`` in the base frame, and
    ``qb_leg``, in the leg's frame (turned by ``-psi``, then ``-theta``), 3-tuples (a planar
    leg's ``z`` the constant ``0.0``)."""
    def port(name, p, sign=1):
        return Operand(f"{prefix}{name}", p, sign=sign)
    if platform.spatial:
        return {"rho": port("rho", "x"), "psi": port("uv", "z"), "theta": port("rho", "z"),
                "qb": (port("rz", "x"), port("rz", "y"), port("ry", "x")),
                "qb_leg": (port("p13", "x"), port("p12", "y"), port("p13", "y"))}
    # The planar row's ``m`` turns ``-Q b'`` by ``-psi``.
    return {"rho": port("rho", "x"), "psi": port("rho", "z"), "theta": None,
            "qb": (port("rz", "x"), port("rz", "y"), 0.0),
            "qb_leg": (port("m", "x", -1), port("m", "y", -1), 0.0)}


def angle_fields(platform):
    """The pose fields that are angles: ``roll, pitch, yaw``, or planar ``phi``."""
    fields = platform.pose_fields
    return fields[3:] if platform.spatial else fields[2:]


def pose_bounds(platform):
    """``{field: bound}`` of the graph's real inputs (the position) for poses as
    :func:`robohw.robots.sampling.sample_poses` draws them: home plus or minus
    :data:`~robohw.robots.sampling.POSE_SPREAD` (the angles are binary angles: no bound)."""
    angles = angle_fields(platform)
    return {f: abs(home) + spread for f, home, spread in
            zip(platform.pose_fields, platform.home, POSE_SPREAD[platform.kind])
            if f not in angles}


def pose_inputs(platform, poses):
    """The graph inputs ``{field: column}`` of poses ``(N, len(pose_fields))``."""
    poses = np.asarray(poses, dtype=np.float64)
    return {name: poses[:, k] for k, name in enumerate(platform.pose_fields)}


def pose_codes(platform, poses, width):
    """The payload codes ``{field: int64 array}`` of poses ``(N, len(pose_fields))`` at
    ``width``-bit ports: the position in the reals' format of :func:`platform_format`
    (``OverflowError`` outside it), the angles as binary angles (wrapped), as
    :func:`robohw.taskgraph.model.evaluate_model` rounds them."""
    real = FixedFormat(width, platform_format(platform, width)["frac_bits"])
    graph_angles = angle_fields(platform)
    return {name: (angle_to_code(column, width) if name in graph_angles
                   else real.from_float(column))
            for name, column in pose_inputs(platform, poses).items()}
