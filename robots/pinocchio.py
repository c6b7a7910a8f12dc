"""Pinocchio, the peer: a robot description as a Pinocchio model, and the time of one of its
inverse-dynamics (``rnea``), forward-dynamics (``aba``) or inverse-dynamics derivatives
(``rnea_derivatives``, ``computeRNEADerivatives``) calls measured on this machine, from
Python (:func:`call_seconds`) and from C++ (:func:`cpp_call_seconds`: a header-only ``-O3``
timing loop, ``pinocchio_timing.cc``, built once against the headers the ``pin`` and
``cmeel-eigen`` wheels ship). Pinocchio is
optional (the ``bench`` extra, ``pip install 'robohw[bench]'``): without it these return
``None``."""

import hashlib
import os
import pathlib
import shutil
import subprocess
import sysconfig
import time

import numpy as np

from robohw.hw.checks import check_choice
from robohw.robots.joint_type import JointType
from robohw.robots.sampling import sample_states

__all__ = ["pinocchio_module", "pinocchio_model", "offsets", "call_seconds", "cpp_call_seconds",
           "build_timing", "ALGORITHMS", "CPP_FLAGS"]

# The calls timed: inverse dynamics from (q, qd, qdd), forward dynamics from (q, qd, tau), the
# derivatives of inverse dynamics from (q, qd, qdd).
ALGORITHMS = ("rnea", "aba", "rnea_derivatives")
# Pinocchio's function of each.
_FUNCTIONS = {"rnea": "rnea", "aba": "aba", "rnea_derivatives": "computeRNEADerivatives"}

# How the C++ timing loop is built: optimized for this machine's core, header-only with the
# compile definitions Pinocchio's CMake package exports (lib/cmake/pinocchio: boost's MPL
# lists long enough for its joint variant).
CPP_FLAGS = ("-std=c++17", "-O3", "-march=native", "-DNDEBUG",
             "-DBOOST_MPL_LIMIT_LIST_SIZE=30", "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30",
             "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS", "-DBOOST_FUSION_INVOKE_MAX_ARITY=12")
_SOURCE = pathlib.Path(__file__).with_name("pinocchio_timing.cc")


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
    The joints' armature is the model's; the joint offsets are not in it (add ``offsets(robot)``
    to ``q``), nor are damping and Coulomb friction (Pinocchio has no such terms). ``None``
    without Pinocchio."""
    pin = pinocchio_module()
    if pin is None:
        return None
    model = pin.Model()
    model.gravity = pin.Motion(np.array(robot.gravity, dtype=float), np.zeros(3))
    placement, parent = pin.SE3.Identity(), 0
    for k, joint in enumerate(robot.joints):
        kind = pin.JointModelRZ() if joint.type == JointType.REVOLUTE else pin.JointModelPZ()
        parent = model.addJoint(parent, kind, placement, f"joint{k + 1}")
        first = joint.d if joint.type == JointType.REVOLUTE else 0.0
        turn = 0.0 if joint.type == JointType.REVOLUTE else joint.theta
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
    model.armature = np.array([float(joint.armature or 0.0) for joint in robot.joints])
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


def _timed_states(robot, algorithm, calls, repeats, seed):
    """``(model, q, qd, third)``: ``robot``'s model and ``calls`` seeded states within the
    limits in Pinocchio's coordinates, ``third`` ``qdd`` (``rnea``) or the torques that give it
    (``aba``); arguments checked."""
    check_choice("algorithm", algorithm, ALGORITHMS)
    if calls < 1 or repeats < 1:
        raise ValueError(f"calls and repeats must be at least 1, not {calls} and {repeats}")
    pin = pinocchio_module()
    model = pinocchio_model(robot)
    q, qd, qdd = sample_states(robot, calls, np.random.default_rng(seed))
    q = q + np.array(offsets(robot))
    if algorithm == "aba":
        data = model.createData()
        qdd = np.array([pin.rnea(model, data, *state) for state in zip(q, qd, qdd)])
    return model, q, qd, qdd


def call_seconds(robot, algorithm="rnea", calls=20_000, repeats=5, seed=0):
    """Seconds of one Pinocchio ``algorithm`` call (:data:`ALGORITHMS`) on ``robot``'s model,
    called from Python on ``calls`` seeded states within the limits (the call only: states
    made beforehand); the best of ``repeats`` loops. ``None`` without Pinocchio."""
    pin = pinocchio_module()
    if pin is None:
        check_choice("algorithm", algorithm, ALGORITHMS)
        return None
    model, *arrays = _timed_states(robot, algorithm, calls, repeats, seed)
    data = model.createData()
    states = list(zip(*arrays))
    function, best = getattr(pin, _FUNCTIONS[algorithm]), float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for a, b, c in states:
            function(model, data, a, b, c)
        best = min(best, time.perf_counter() - started)
    return best / calls


def _prefix():
    """The cmeel prefix the ``pin`` wheel installs its headers into, or ``None``."""
    prefix = pathlib.Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix"
    return prefix if (prefix / "include" / "pinocchio").is_dir() else None


def build_timing(directory, compiler=None):
    """The path of the C++ timing loop (``pinocchio_timing.cc``) built in ``directory``, once per
    source, flags, compiler and Pinocchio version (about a minute); ``None`` where Pinocchio's
    or Eigen's headers (``pip install 'robohw[bench]'``) or a C++ compiler are missing.
    ``RuntimeError`` with the compiler's last lines if the build fails."""
    prefix = _prefix()
    compiler = compiler or os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    if prefix is None or compiler is None or pinocchio_module() is None or \
            not (prefix / "include" / "eigen3").is_dir():
        return None
    version = subprocess.run([compiler, "--version"], capture_output=True, text=True).stdout
    key = hashlib.sha256("\n".join([_SOURCE.read_text(), *CPP_FLAGS, version,
                                     pinocchio_module().__version__]).encode()).hexdigest()[:16]
    binary = pathlib.Path(directory) / f"pinocchio_timing_{key}"
    if binary.exists():
        return binary
    binary.parent.mkdir(parents=True, exist_ok=True)
    partial = binary.with_name(binary.name + f".{os.getpid()}.part")
    built = subprocess.run([compiler, *CPP_FLAGS, f"-I{prefix / 'include'}",
                            f"-I{prefix / 'include' / 'eigen3'}", str(_SOURCE), "-o",
                            str(partial)], capture_output=True, text=True)
    if built.returncode:
        partial.unlink(missing_ok=True)
        tail = "\n".join(built.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"building the C++ Pinocchio timing loop failed:\n{tail}")
    os.replace(partial, binary)
    return binary


def _model_text(model):
    """``model`` (serial, every joint a revolute or prismatic about z) as pinocchio_timing.cc
    reads it."""
    numbers = [model.njoints - 1, *model.gravity.linear]
    for j in range(1, model.njoints):
        kind = model.joints[j].shortname()
        if kind not in ("JointModelRZ", "JointModelPZ"):
            raise ValueError(f"joint {j}: {kind}: the C++ timing takes joints about z only")
        placement, inertia = model.jointPlacements[j], model.inertias[j]
        numbers += [0 if kind == "JointModelRZ" else 1, *placement.rotation.ravel(),
                    *placement.translation]
        if inertia.mass > 0 or inertia.inertia.any():     # a massless link may still turn
            numbers += [1, inertia.mass, *inertia.lever, *inertia.inertia.ravel()]
        else:
            numbers.append(0)
    return " ".join(repr(float(v)) if not isinstance(v, int) else str(v) for v in numbers)


def cpp_call_seconds(robot, directory, algorithm="rnea", calls=20_000, repeats=5, seed=0):
    """Seconds of one Pinocchio ``algorithm`` call (:data:`ALGORITHMS`) on ``robot``'s model
    from C++ (:func:`build_timing`, built in ``directory``) on ``calls`` seeded states within
    the limits, the best of ``repeats`` loops; the loop's result for the first state is checked
    against Pinocchio's from Python (``RuntimeError`` if they differ). ``None`` where the
    timing loop cannot be built (see :func:`build_timing`)."""
    check_choice("algorithm", algorithm, ALGORITHMS)
    binary = build_timing(directory)
    if binary is None:
        return None
    model, q, qd, third = _timed_states(robot, algorithm, calls, repeats, seed)
    rows = np.concatenate([q, qd, third], axis=1)
    text = "\n".join([str(ALGORITHMS.index(algorithm)), _model_text(model),
                      f"{calls} {repeats}",
                      *(" ".join(map(repr, row.tolist())) for row in rows)]) + "\n"
    run = subprocess.run([str(binary)], input=text, capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(f"the C++ Pinocchio timing loop failed: {run.stderr.strip()}")
    seconds, *out = (float(v) for v in run.stdout.split())
    data = model.createData()
    want = getattr(pinocchio_module(), _FUNCTIONS[algorithm])(model, data, q[0], qd[0],
                                                              third[0])
    if algorithm == "rnea_derivatives":
        want = np.array(data.dtau_dq)[0]         # the first row of dtau/dq
    if not np.allclose(out, want, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(want).max())):
        raise RuntimeError(f"the C++ timing loop's {algorithm} {out} is not Pinocchio's from "
                           f"Python {want.tolist()}")
    return seconds
