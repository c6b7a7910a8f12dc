"""Float64 closed-form inverse kinematics of the PUMA family, vectorized over poses (forward
kinematics: :mod:`robohw.robots.kinematics`).

The inverse kinematics (:func:`puma_ik`) covers every arm of the PUMA family: six revolute
joints, twists ``(±90, 0, ±90, ±90, ±90, 0)`` degrees in either sign convention, ``a1 = a4 = a5
= a6 = 0``, ``d5 = 0``, any ``d1`` (base height), ``d2 + d3`` (shoulder offset), ``a2``, ``a3``,
``d4`` and ``d6`` (tool length). Its derivation, in the notation of the code:

1. Wrist centre ``w = p - d6 a`` (``o6 = o5 + d6 z5`` and ``z6 = z5 = a`` when
   ``alpha6 = 0``), ``w' = w - d1 z0``.
2. ``theta1``: the joint-2 and joint-3 offsets lie along ``z1 = s1 (S1, -C1, 0)``, so
   ``s1 (w'x S1 - w'y C1) = D = d2 + d3``:
   ``theta1 = atan2(w'y, w'x) + atan2(s1 D, arm * sqrt(w'x^2 + w'y^2 - D^2))``.
3. In the arm plane, ``u = x1 . w'``, ``v = y1 . w' = s1 w'z``, and
   ``(u, v) = a2 e^{i theta2} + L e^{i(theta2 + theta3 + beta)}`` with
   ``L = hypot(a3, d4)``, ``beta = atan2(-s3 d4, a3)``: a planar two-link arm;
   ``gamma = theta3 + beta = elbow * acos((u^2 + v^2 - a2^2 - L^2) / (2 a2 L))``.
4. ``R36 = R03^T [n o a]``; its third column is ``(s5 S5 C4, s5 S5 S4, -s4 s5 C5)`` and its
   third row ``(s4 S5 C6, -s4 S5 S6, -s4 s5 C5)``, so with ``S5 = wrist * |..|`` both
   ``theta4`` and ``theta6`` follow from ``atan2``.

``s_i`` is the sign of ``sin(alpha_i)``. ``arm``, ``elbow`` and ``wrist`` are the signs of
the three square roots (Paul, Shimano & Mayer's ARM, ELBOW and WRIST indicators): ``arm`` +1
("right") puts the wrist centre on the +x1 side of the shoulder; ``elbow`` +1 ("up") takes
``sin(gamma) >= 0``; ``wrist`` +1 ("noflip") takes ``sin(theta5) >= 0``.

At the wrist singularity (``sin theta5 = 0``) only ``theta4 ± theta6`` is determined: the
solution takes ``theta4 = 0`` (DH angle) and puts the whole rotation into ``theta6``.
Unreachable poses (wrist centre inside the shoulder-offset cylinder, or out of the arm's
reach) come back with ``valid = False`` and zero angles, never NaN.
"""

import numpy as np

from robohw.robots.closed_forms import check_puma_family
from robohw.robots.kinematics import dh_transform, forward_kinematics

__all__ = ["puma_ik", "puma_ik_all", "BRANCHES"]

# (arm, elbow, wrist) for the eight solutions, in the order puma_ik_all returns them.
BRANCHES = tuple((arm, elbow, wrist) for arm in (1, -1) for elbow in (1, -1) for wrist in (1, -1))

_SINGULAR = 1e-12  # |sin theta5| below which the wrist counts as singular

def _wrap(angles):
    """Angles into (-pi, pi]."""
    return np.pi - np.remainder(np.pi - angles, 2 * np.pi)


def puma_ik(robot, pose, arm=1, elbow=1, wrist=1):
    """Joint vectors for hand poses, one branch.

    Parameters
    ----------
    robot : :class:`robohw.robots.Robot` of the PUMA family (see the module docstring)
    pose : array of shape ``(..., 4, 4)``: ``[[n o a p], [0 0 0 1]]`` in the base frame
    arm, elbow, wrist : +1 or -1 (see the module docstring)

    Returns
    -------
    q : array ``(..., 6)``, radians in (-pi, pi]; zeros where not valid
    valid : bool array ``(...)``
    """
    s1, s3, s4, s5 = check_puma_family(robot)
    for name, value in (("arm", arm), ("elbow", elbow), ("wrist", wrist)):
        if value not in (1, -1):
            raise ValueError(f"{name} must be +1 or -1, not {value!r}")
    j = robot.joints
    pose = np.asarray(pose, dtype=np.float64)
    rot, p = pose[..., :3, :3], pose[..., :3, 3]
    w = p - j[5].d * rot[..., :, 2]
    wx, wy, wz = w[..., 0], w[..., 1], w[..., 2] - j[0].d

    offset = j[1].d + j[2].d
    radial2 = wx * wx + wy * wy - offset * offset
    reach_ok = radial2 >= 0
    u = arm * np.sqrt(np.where(reach_ok, radial2, 0.0))
    theta1 = np.arctan2(wy, wx) + np.arctan2(s1 * offset, u)
    v = s1 * wz

    a2, a3, d4 = j[1].a, j[2].a, j[3].d
    length = np.hypot(a3, d4)
    beta = np.arctan2(-s3 * d4, a3)
    cos_gamma = (u * u + v * v - a2 * a2 - length * length) / (2 * a2 * length)
    elbow_ok = np.abs(cos_gamma) <= 1
    gamma = elbow * np.arccos(np.clip(cos_gamma, -1, 1))
    theta2 = np.arctan2(v, u) - np.arctan2(length * np.sin(gamma), a2 + length * np.cos(gamma))
    theta3 = gamma - beta

    zero = np.zeros_like(theta1)
    arm_q = np.stack([theta1 - j[0].offset, theta2 - j[1].offset, theta3 - j[2].offset,
                      zero, zero, zero], -1)
    r03 = forward_kinematics(robot, arm_q, upto=3)[..., :3, :3]
    r36 = np.swapaxes(r03, -1, -2) @ rot
    ax, ay, az = r36[..., 0, 2], r36[..., 1, 2], r36[..., 2, 2]
    sin5 = wrist * np.hypot(ax, ay)
    cos5 = -s4 * s5 * az
    theta5 = np.arctan2(sin5, cos5)
    singular = np.abs(sin5) < _SINGULAR
    k = np.where(singular, 1.0, np.sign(sin5))
    theta4 = np.where(singular, 0.0, np.arctan2(s5 * k * ay, s5 * k * ax))
    theta6 = np.arctan2(-s4 * k * r36[..., 2, 1], s4 * k * r36[..., 2, 0])
    if np.any(singular):
        # theta4 = 0: R36 = Rx(alpha4) Rz(theta5) Rx(alpha5) Rz(theta6).
        fixed = dh_transform(np.zeros_like(theta5), 0.0, 0.0, j[3].alpha)[..., :3, :3] @ \
            dh_transform(theta5, 0.0, 0.0, j[4].alpha)[..., :3, :3]
        rest = np.swapaxes(fixed, -1, -2) @ r36
        theta6 = np.where(singular, np.arctan2(rest[..., 1, 0], rest[..., 0, 0]), theta6)

    thetas = np.stack([theta1, theta2, theta3, theta4, theta5, theta6], -1)
    offsets = np.array([joint.offset for joint in j])
    valid = reach_ok & elbow_ok
    q = np.where(valid[..., None], _wrap(thetas - offsets), 0.0)
    return q, valid


def puma_ik_all(robot, pose):
    """All eight branches: ``q`` of shape ``(..., 8, 6)`` and ``valid`` ``(..., 8)``, in the
    order of :data:`BRANCHES`."""
    results = [puma_ik(robot, pose, *branch) for branch in BRANCHES]
    return np.stack([q for q, _ in results], -2), np.stack([v for _, v in results], -1)

