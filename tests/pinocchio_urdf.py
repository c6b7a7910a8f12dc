"""Pinocchio's RNEA on a URDF file, for the tests that check robohw's references and models
against it: the joint angles as Pinocchio's configuration (a continuous joint takes its cos
and sin)."""

import numpy as np
import pytest

__all__ = ["pinocchio_rnea", "pinocchio_urdf_model"]


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


def pinocchio_urdf_model(chain, path):
    """Pinocchio's model of the URDF at ``path`` reduced to ``chain``'s joints (the joints off
    the chain locked at the chain's positions), with the chain's armature (skips the test when
    Pinocchio is not installed)."""
    pin = pytest.importorskip("pinocchio")
    model = pin.buildModelFromUrdf(str(path))
    locked = dict(chain.locked)
    ids = [model.getJointId(name) for name in locked]
    if ids:
        q = pin.neutral(model)
        for name, value in locked.items():
            q[model.joints[model.getJointId(name)].idx_q] = value
        model = pin.buildReducedModel(model, ids, q)
    model.armature = np.array([j.armature for j in chain.joints])
    return model
