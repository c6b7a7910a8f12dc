"""Pinocchio, the peer: a robot description as a Pinocchio model, and the time of one of its
inverse-dynamics calls measured on this machine. Pinocchio is optional (the ``bench`` extra,
``pip install 'robohw[bench]'``): without it these return ``None``."""

import time

import numpy as np

from robohw.robots.sampling import sample_states

__all__ = ["pinocchio_module", "pinocchio_model", "offsets", "rnea_call_seconds"]


def pinocchio_module():
    """The ``pinocchio`` module, or ``None`` where it is not installed."""
    try:
        import pinocchio as module
    except ImportError:
        return None
    return module


def pinocchio_model(robot):
    """A Pinocchio model of ``robot`` (standard DH): joint ``i`` at frame ``i - 1``, moving about
    (revolute) or along (prismatic) its z axis; what follows the motion in the DH step
    (``Tz(d) Tx(a) Rx(alpha)``, or ``Rz(theta) Tx(a) Rx(alpha)`` for a prismatic joint) is the
    next joint's placement, and the link's inertia, given in frame ``i``, is moved back by it.
    The joint offsets are not in the model: add ``offsets(robot)`` to ``q``. ``None`` without
    Pinocchio."""
    pin = pinocchio_module()
    if pin is None:
        return None
    model = pin.Model()
    model.gravity = pin.Motion(np.array(robot.gravity, dtype=float), np.zeros(3))
    placement, parent = pin.SE3.Identity(), 0
    for k, joint in enumerate(robot.joints):
        kind = pin.JointModelRZ() if joint.type == "revolute" else pin.JointModelPZ()
        parent = model.addJoint(parent, kind, placement, f"joint{k + 1}")
        first = joint.d if joint.type == "revolute" else 0.0
        turn = 0.0 if joint.type == "revolute" else joint.theta
        after = (pin.SE3(_rz(turn), np.array([0.0, 0.0, first])) *
                 pin.SE3(_rx(joint.alpha), np.array([joint.a, 0.0, 0.0])))
        if joint.mass is not None:          # a massless link may still turn (PUMA link 1)
            ixx, iyy, izz, ixy, iyz, ixz = joint.inertia
            tensor = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
            rotation = after.rotation
            inertia = pin.Inertia(joint.mass, after.act(np.array(joint.com, dtype=float)),
                                  rotation @ tensor @ rotation.T)
            model.appendBodyToJoint(parent, inertia, pin.SE3.Identity())
        placement = after
    return model


def offsets(robot):
    """What Pinocchio's ``q`` adds to ours: each joint's offset."""
    return [joint.offset for joint in robot.joints]


def _rz(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _rx(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rnea_call_seconds(robot, calls=20_000, repeats=5, seed=0):
    """Seconds of one Pinocchio ``rnea`` call on ``robot``'s model, called from Python on
    ``calls`` seeded states within the limits (the call only: states made beforehand); the
    best of ``repeats`` loops. ``None`` without Pinocchio."""
    if calls < 1 or repeats < 1:
        raise ValueError(f"calls and repeats must be at least 1, not {calls} and {repeats}")
    pin = pinocchio_module()
    if pin is None:
        return None
    model = pinocchio_model(robot)
    data = model.createData()
    q, qd, qdd = sample_states(robot, calls, np.random.default_rng(seed))
    states = list(zip(q + np.array(offsets(robot)), qd, qdd))
    rnea, best = pin.rnea, float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for a, b, c in states:
            rnea(model, data, a, b, c)
        best = min(best, time.perf_counter() - started)
    return best / calls
