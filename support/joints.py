"""Joint values from a file, as the hardware backends can take them."""

import numpy as np

from robohw.hw.fixed import angle_fits
from robohw.robots.joint_type import JointType

__all__ = ["angles_fit"]


def angles_fit(robot, q, width):
    """Rows of ``q`` ``(N, dof)`` whose revolute joints' angles, with their offsets, have
    ``width``-bit binary angles (:func:`robohw.hw.fixed.angle_fits`: under ``2**(47 - width)``
    turns); the other rows are ``out_of_format`` for the hardware (a file's 1e20 rad would
    otherwise wrap to a garbage angle and give a valid-looking answer)."""
    fits = np.ones(len(q), dtype=bool)
    for k, joint in enumerate(robot.joints):
        if joint.type == JointType.REVOLUTE:
            fits &= angle_fits(q[:, k], width) & angle_fits(q[:, k] + joint.offset, width)
    return fits
