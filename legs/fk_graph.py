"""A parallel manipulator's forward kinematics as Newton iterations in CCMs: every iteration is
the leg processors' lengths and rows of ``K / rho`` (:func:`robohw.legs.ik_graph.
leg_processors`), the platform solve of ``(K / rho) t = rho_m - rho`` by Givens rotations
(:func:`robohw.legs.givens.givens_solve`), and the pose update, unrolled ``iterations`` times.

The pose's angles travel as reals in turns between iterations (``Operand.turns`` reads them
as the rotations' angles), so an update is a linear rotation, ``y + x z``:

==================  ==================  ============================================
CCM                 operation           computes
==================  ==================  ============================================
``u{k}_{field}``    linear rotation     a position plus its rate (``z = 1``), an angle
                                        in turns plus its rate over ``2 pi``
``u{k}_yaw0``       circular rotation   ``(w_x, w_y)`` turned by ``-yaw``: ``(w'_x, pitch rate)``
``u{k}_cs``         circular rotation   ``(1, 0)`` by ``pitch``: ``(cos, sin)``
``u{k}_rollrate``   linear vectoring    ``w'_x / cos(pitch)``: the roll rate
``u{k}_yawrate``    linear rotation     ``w_z + sin(pitch) roll rate``: the yaw rate
==================  ==================  ============================================

The solve gives the twist ``t = (omega, r_dot)`` (planar ``(phi_dot, x_dot, y_dot)``, and
``phi`` moves by ``phi_dot`` itself). A spatial pose's angles ``Q = Rz(yaw) Ry(pitch)
Rx(roll)`` move by the Euler rates of ``omega``: ``omega`` turned by ``-yaw`` is ``(roll_dot
cos(pitch), pitch_dot, yaw_dot - roll_dot sin(pitch))``. This linearizes the rotation, so the
iteration is Newton's on the pose's six numbers (the float reference steps ``Q`` by
Rodrigues' exponential instead; both converge to the same pose).

A step beyond the linear CCMs' range (a rate of 2 or more, a roll rate over ``cos(pitch)`` of 2
or more) raises their domain flags: the row is invalid, as is a pivot below the solve's
minimum (:data:`robohw.legs.givens.MIN_PIVOT`). With ``residuals``, the legs' lengths of the
pose found are computed once more (``r_``: the leg processors without their rows) and each
leg's residual ``rho_m - rho`` (``r_residual{i}``, a linear rotation) is an output,
``residual{i}``: how far the iterations left the legs from the measured lengths.
"""

import math
from dataclasses import replace

from robohw.cordic.config import Direction, System
from robohw.hw.checks import check_integer
from robohw.legs.givens import MIN_PIVOT, givens_solve
from robohw.legs.ik_graph import angle_fields, leg_processors, platform_format
from robohw.taskgraph.graph import Ccm, Operand, TaskGraph, const

__all__ = ["fk_graph", "fk_format", "MAX_ITERATIONS", "FK_GUARD_BITS"]

CIRC, LIN = System.CIRCULAR, System.LINEAR
ROT, VEC = Direction.ROTATION, Direction.VECTORING

# An iteration is 182 CCMs on the hexapod (66 in the legs, 106 in the solve, 10 in the update):
# more than a few would not fit a device, and four converge from anywhere in the workspace
# to the float's answer (docs/legs.md, forward kinematics).
MAX_ITERATIONS = 8

# Guard bits inside the CCMs. At 24 bits (the hexapod, 2,000 poses of the workspace, four
# iterations from home) the positions came within 1.16, 1.03, 0.88 and 0.88 um of the pose with
# 2, 3, 4 and 5; the rest is the rounding of the lengths in and the pose out (2^-21 m each).
FK_GUARD_BITS = 4



def _update(platform, prefix, pose, twist):
    """``(ccms, new pose)``: the pose operands moved by the solve's ``twist`` operands."""
    spatial = platform.spatial
    positions = pose[:3] if spatial else pose[:2]
    if spatial:
        omega, velocity = twist[:3], twist[3:]
    else:
        omega, velocity = twist[:1], twist[1:]
    ccms, new = [], []
    for field, position, rate in zip(platform.pose_fields, positions, velocity):
        name = f"{prefix}{field}"
        ccms.append(Ccm(name, LIN, ROT, rate, position, const(1), label=f"{field} + rate"))
        new.append(Operand(name, "y"))
    if spatial:
        roll, pitch, yaw = pose[3:]
        turned, cs = f"{prefix}yaw0", f"{prefix}cs"
        roll_rate, yaw_rate = f"{prefix}rollrate", f"{prefix}yawrate"
        ccms += [
            Ccm(turned, CIRC, ROT, omega[0], omega[1], replace(yaw, sign=-yaw.sign),
                label="(w'_x, pitch rate)"),
            Ccm(cs, CIRC, ROT, const(1), const(0), pitch, label="(cos, sin) pitch"),
            Ccm(roll_rate, LIN, VEC, Operand(cs, "x"), Operand(turned, "x"), const(0),
                label="roll rate"),
            Ccm(yaw_rate, LIN, ROT, Operand(cs, "y"), omega[2], Operand(roll_rate, "z"),
                label="yaw rate"),
        ]
        rates = [Operand(roll_rate, "z"), Operand(turned, "y"), Operand(yaw_rate, "y")]
        angles = [roll, pitch, yaw]
    else:
        rates, angles = list(omega), [pose[2]]
    for field, angle, rate in zip(angle_fields(platform), angles, rates):
        name = f"{prefix}{field}"
        # The angle's real in turns (an angle travels as one between iterations).
        ccms.append(Ccm(name, LIN, ROT, rate, replace(angle, turns=False),
                        const(1 / (2 * math.pi)), label=f"{field} + rate / 2 pi (turns)"))
        new.append(Operand(name, "y", turns=True))
    return ccms, new


def fk_graph(platform, iterations, min_pivot=MIN_PIVOT, residuals=False):
    """The :class:`~robohw.taskgraph.graph.TaskGraph` of ``iterations`` Newton steps of
    ``platform``'s forward kinematics: inputs the measured lengths ``rho_m1..N`` (m) and the
    starting pose, its position in metres and its angles in turns (``{field}``, reals); outputs
    the pose after the steps in the same units (``{field}``), the angles in turns, and with
    ``residuals`` each leg's ``residual{i}`` at that pose (m; module docstring)."""
    check_integer("iterations", iterations, minimum=1, maximum=MAX_ITERATIONS)
    fields, legs = platform.pose_fields, len(platform.legs)
    angles = angle_fields(platform)
    pose = [Operand(f, turns=f in angles) for f in fields]
    ccms, guards = [], []
    for k in range(1, iterations + 1):
        leg_ccms, out = leg_processors(platform, f"i{k}_", pose, jacobian=True)
        rows = [[Operand(*out[f"k{i}_{j}"]) for j in range(1, len(fields) + 1)]
                for i in range(1, legs + 1)]
        misses = [Operand(f"rho_m{i}", addend=Operand(*out[f"rho{i}"], sign=-1))
                  for i in range(1, legs + 1)]
        solve, twist, pivots = givens_solve(f"s{k}_", rows, misses, min_pivot)
        update, pose = _update(platform, f"u{k}_", pose, twist)
        ccms += leg_ccms + solve + update
        guards += pivots
    outputs = {f: (p.source, p.port) for f, p in zip(fields, pose)}
    if residuals:
        leg_ccms, out = leg_processors(platform, "r_", pose)
        ccms += leg_ccms
        for i in range(1, legs + 1):
            name = f"r_residual{i}"
            ccms.append(Ccm(name, LIN, ROT, Operand(*out[f"rho{i}"]), Operand(f"rho_m{i}"),
                            const(-1), label=f"rho_m{i} - rho{i}"))
            outputs[f"residual{i}"] = (name, "y")
    inputs = [f"rho_m{i}" for i in range(1, legs + 1)] + list(fields)
    return TaskGraph(f"{platform.name}-fk{iterations}", inputs, ccms, outputs,
                     description=f"forward kinematics of {platform.name}, {iterations} Newton "
                                 f"steps on the leg processors and a Givens solve",
                     guards=guards)


def fk_format(platform, width):
    """:func:`~robohw.legs.ik_graph.platform_format` with one integer bit more and
    :data:`FK_GUARD_BITS` inside: the solve's triangle holds column norms of ``[K / rho |
    rho_m - rho]``, up to ``sqrt(legs)`` times an entry (``|e| = 1``; ``|Q b' x e| <= |b'|``; a
    residual up to a stroke), below 2.45 m on the shipped platforms, beyond the pose's
    ``[-2, 2)``."""
    formats = platform_format(platform, width)
    return {"width": width, "frac_bits": formats["frac_bits"] - 1, "guard_bits": FK_GUARD_BITS}
