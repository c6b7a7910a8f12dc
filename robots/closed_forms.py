"""Which closed forms a robot admits: the PUMA family of the inverse kinematics
(:func:`robohw.ik.reference.puma_ik`, :mod:`robohw.ik.puma_graph`).

The family: six revolute joints, twists ``(+-90, 0, +-90, +-90, +-90, 0)`` degrees in either
sign convention, ``a1 = a4 = a5 = a6 = 0``, ``d5 = 0``, ``a2 > 0`` and ``hypot(a3, d4) > 0``;
any ``d1``, ``d2 + d3``, ``a2``, ``a3``, ``d4`` and ``d6``. A general chain (a URDF robot) is
of the family when its DH form (:mod:`robohw.robots.dh_form`) is.
"""

import math

from robohw.robots.chain import Chain
from robohw.robots.dh_form import dh_form
from robohw.robots.joint_type import JointType

__all__ = ["check_puma_family", "puma_form"]

# Twists and zero lengths are compared with this tolerance: robot files give them in decimal.
_TOLERANCE_TWIST = 1e-9
_TOLERANCE_LENGTH = 1e-12


def _sign(value, name):
    if abs(abs(math.sin(value)) - 1) > _TOLERANCE_TWIST:
        raise ValueError(f"not of the PUMA family: {name} must be +-90 degrees, "
                         f"not {math.degrees(value):g}")
    return 1.0 if math.sin(value) > 0 else -1.0


def check_puma_family(robot):
    """Raise ``ValueError`` naming the first parameter that leaves the family; return
    ``(s1, s3, s4, s5)``, the signs of ``sin(alpha_i)``."""
    if isinstance(robot, Chain):
        raise TypeError("check_puma_family takes a DH robot; a chain's DH form is puma_form's")
    j = robot.joints
    if robot.dof != 6 or any(joint.type != JointType.REVOLUTE for joint in j):
        raise ValueError("not of the PUMA family: six revolute joints are needed")
    for name, value in (("a1", j[0].a), ("a4", j[3].a), ("a5", j[4].a), ("a6", j[5].a),
                        ("d5", j[4].d), ("alpha2", j[1].alpha), ("alpha6", j[5].alpha)):
        if abs(value) > _TOLERANCE_LENGTH:
            raise ValueError(f"not of the PUMA family: {name} must be 0, not {value:g}")
    if j[1].a <= 0 or math.hypot(j[2].a, j[3].d) == 0:
        raise ValueError("not of the PUMA family: a2 and hypot(a3, d4) must be positive")
    return tuple(_sign(j[k].alpha, f"alpha{k + 1}") for k in (0, 2, 3, 4))


def puma_form(chain):
    """The :class:`robohw.robots.dh_form.DhForm` of ``chain`` when it is of the PUMA family;
    else ``ValueError`` naming the chain's file and the first DH parameter that leaves it."""
    form = dh_form(chain)
    try:
        check_puma_family(form.robot)
    except ValueError as error:
        raise ValueError(f"{chain.source or chain.name}: {error} (in the DH form of its "
                         f"joint axes)") from None
    return form
