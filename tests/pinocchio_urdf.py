"""Pinocchio's RNEA on a URDF file, for the tests that check robohw's references and models
against it: the joint angles as Pinocchio's configuration (a continuous joint takes its cos
and sin)."""

import numpy as np
import pytest

__all__ = ["pinocchio_rnea"]


def pinocchio_rnea(path, q, qd, qdd):
    """``(B, N)``: Pinocchio's ``rnea`` of the URDF at ``path`` for states ``(B, N)`` each
    (skips the test when Pinocchio is not installed)."""
    pin = pytest.importorskip("pinocchio")
    model = pin.buildModelFromUrdf(str(path))
    data = model.createData()
    out = np.empty(np.shape(q))
    for b, (angles, rates, accelerations) in enumerate(zip(q, qd, qdd)):
        configuration = []
        for k, joint in enumerate(model.joints[1:]):
            if joint.nq == 2:
                configuration += [np.cos(angles[k]), np.sin(angles[k])]
            else:
                configuration.append(angles[k])
        out[b] = pin.rnea(model, data, np.array(configuration), rates, accelerations)
    return out
