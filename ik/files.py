"""``robohw ik``: hand poses from CSV to joint angles in CSV, by any backend.

``IN.csv`` has the header ``nx,ny,nz,ox,oy,oz,ax,ay,az,px,py,pz`` (the hand frame, metres; any
column order). ``OUT.csv`` has ``q1,q2,q3,q4,q5,q6,valid`` (radians in (-pi, pi]; with
``within_limits``, inside the joint limits; ``valid`` 1 or 0), with ``branch`` first when
every branch is asked for and ``reason`` last when reasons are.
Backends: ``float`` (the closed form of :mod:`robohw.ik.reference`), ``model`` (the
bit-exact model of a CCM graph), ``rtl`` (its Amaranth pipeline, simulated cycle by cycle) and
``compiled`` (the same pipeline compiled by Verilator, :mod:`robohw.sim.compiled`).

Every row is solved on its own: a row that cannot be is ``valid = 0`` with zero angles and a
reason, by precedence: ``not_finite`` (a value of the row, or an angle, that is not finite),
``out_of_format`` (a value outside the hardware's number format,
[-2, 2) m: :func:`robohw.ik.puma_graph.puma_format`; the float backend has none),
``not_orthonormal`` (``n``, ``o``, ``a`` are not a right-handed orthonormal frame: some entry of
``R^T R - I`` beyond :data:`ORTHONORMAL_TOLERANCE`, 1e-4, or ``det R < 0``; a rotation
printed to 4 decimals, off by up to 5e-5 an entry, can miss it: print 6 or more),
``unreachable`` (no solution exists),
``near_singular`` (reachable, but the graph flags it: within 0.3 mm of the shoulder-singular line
or with the elbow within 0.11 degrees of straight or folded), ``outside_limits`` (with
``within_limits``: no turn of some joint's angle lies in the robot file's joint limits; the
valid rows' angles are then the values inside the limits, nearest the wrapped ones), else
``ok``.
"""

from dataclasses import dataclass

import numpy as np

from robohw.hw.checks import check_choice
from robohw.hw.fixed import FixedFormat
from robohw.ik.codec import (
    POSE_INPUTS,
    joint_angles,
    payload_joint_angles,
    pose_inputs,
    poses_from_inputs,
)
from robohw.ik.puma_graph import GRAPHS, puma_format
from robohw.ik.reference import BRANCHES, puma_ik
from robohw.robots.chain import Chain
from robohw.robots.closed_forms import puma_form
from robohw.robots.joint_type import JointType
from robohw.support.csv_table import CsvFileError, read_columns, write_rows
from robohw.support.validity import NOT_FINITE, finite_rows, keep_valid, row_reasons

__all__ = ["PoseFileError", "IkSolution", "read_poses", "write_joints", "solve_ik",
           "branch_index", "orthonormal", "BACKENDS", "REASONS", "ORTHONORMAL_TOLERANCE",
           "POSE_COLUMNS", "poses_from_inputs", "joint_header", "joint_rows", "into_limits"]

# The columns IN.csv must have (the module docstring).
POSE_COLUMNS = POSE_INPUTS

BACKENDS = ("float", "model", "rtl", "compiled")
REASONS = ("ok", "not_finite", "out_of_format", "not_orthonormal", "unreachable",
           "near_singular", "outside_limits")
# A rotation with an entry of R^T R - I beyond this is not a hand pose: the closed form's
# angles would answer another matrix (its error in them is of this order).
ORTHONORMAL_TOLERANCE = 1e-4

PoseFileError = CsvFileError


@dataclass
class IkSolution:
    """Joint angles ``q`` ``(N, 6)`` (zeros where not valid), ``valid`` ``(N,)``, ``reason``
    ``(N,)`` (one of :data:`REASONS`) and ``branch`` ``(N,)`` (see :func:`branch_index`)."""
    q: np.ndarray
    valid: np.ndarray
    reason: np.ndarray
    branch: np.ndarray


def branch_index(arm, elbow, wrist):
    """The branch number 0-7: bit 2 the arm (0 right, +1), bit 1 the elbow (0 up, +1), bit 0
    the wrist (0 no flip, +1); the order of :data:`robohw.ik.reference.BRANCHES`."""
    return 4 * (np.asarray(arm) < 0) + 2 * (np.asarray(elbow) < 0) + (np.asarray(wrist) < 0)


def read_poses(path):
    """Hand poses of shape ``(N, 4, 4)`` from a CSV file (see the module docstring; a rotation
    that is not orthonormal is the row's reason, not the file's)."""
    return poses_from_inputs(read_columns(path, POSE_INPUTS))


def orthonormal(poses):
    """``(N,)`` bool: the poses whose rotation is a right-handed orthonormal frame within
    :data:`ORTHONORMAL_TOLERANCE`."""
    rotation = np.asarray(poses, dtype=np.float64).reshape(-1, 4, 4)[:, :3, :3]
    if not len(rotation):
        return np.ones(0, dtype=bool)
    gram = np.swapaxes(rotation, 1, 2) @ rotation - np.eye(3)
    return (np.abs(gram).max((1, 2)) <= ORTHONORMAL_TOLERANCE) & \
        (np.linalg.det(rotation) > 0)


def joint_header(*, reasons=False, branches=False):
    """``OUT.csv``'s header: ``q1..q6,valid`` (``branch`` first, ``reason`` last)."""
    header = ["q1", "q2", "q3", "q4", "q5", "q6", "valid"] + (["reason"] if reasons else [])
    return (["branch"] if branches else []) + header


def joint_rows(solution, *, reasons=False, branches=False):
    """``OUT.csv``'s rows of ``solution``, :func:`joint_header`'s columns."""
    return ([*([int(b)] if branches else []), *map(float, q), int(ok), *([r] if reasons else [])]
            for q, ok, r, b in zip(solution.q, solution.valid, solution.reason,
                                   solution.branch))


def write_joints(path, solution, *, reasons=False, branches=False):
    """Write ``OUT.csv`` atomically: a failure leaves no file behind."""
    write_rows(path, joint_header(reasons=reasons, branches=branches),
               joint_rows(solution, reasons=reasons, branches=branches))


def _wrap(angles):
    return np.pi - np.remainder(np.pi - angles, 2 * np.pi)


def into_limits(robot, q):
    """``(q, inside)``: each revolute joint's angle of ``q`` ``(N, dof)`` (wrapped to
    (-pi, pi]) as the value inside its joint's limits, of all the angle's turns, nearest the
    wrapped angle (a joint limited to [0.82, 5.46] takes -3.10 as 3.18; limits of +-2 pi keep
    every wrapped angle); ``inside``, the rows whose every joint has such a value (the others
    keep their wrapped angles)."""
    q = np.array(q, dtype=np.float64)
    inside = np.ones(len(q), dtype=bool)
    for k, joint in enumerate(robot.joints):
        if joint.limits is None:
            continue
        low, high = joint.limits
        if joint.type != JointType.REVOLUTE:
            inside &= (q[:, k] >= low) & (q[:, k] <= high)
            continue
        # The turns n with low <= q + 2 pi n <= high, and of them the one nearest 0.
        first = np.ceil((low - q[:, k]) / (2 * np.pi))
        last = np.floor((high - q[:, k]) / (2 * np.pi))
        turns = np.clip(0.0, first, last)
        fits = first <= last
        shifted = q[:, k] + 2 * np.pi * turns
        # The division's rounding can put a turn a hair past a limit: that row is outside.
        fits &= (shifted >= low) & (shifted <= high)
        q[:, k] = np.where(fits, shifted, q[:, k])
        inside &= fits
    return q, inside


def _float_ik(robot, poses, branch):
    """The closed form, each row on its own branch number."""
    q, valid = np.zeros((len(poses), 6)), np.zeros(len(poses), dtype=bool)
    for number, indicators in enumerate(BRANCHES):
        rows = branch == number
        if rows.any():
            q[rows], valid[rows] = puma_ik(robot, poses[rows], *indicators)
    return q, valid


def solve_ik(robot, poses, backend="float", branch=0, *, width=24, graph="best",
             within_limits=False, progress=None):
    """Solve ``poses`` ``(N, 4, 4)`` by ``backend``, each row on ``branch`` (a number 0-7 or
    one per row, :func:`branch_index`); returns an :class:`IkSolution`.

    ``robot``: a DH robot of the PUMA family, or a general chain (a URDF robot) whose DH form
    is (:func:`robohw.robots.closed_forms.puma_form`): its poses are the tip's in its base frame,
    solved as the DH form's tool poses, and its angles are the chain's joint values; the
    branch indicators refer to the DH form's frames."""
    check_choice("backend", backend, BACKENDS)
    check_choice("graph", graph, GRAPHS)
    form = None
    if isinstance(robot, Chain):      # a URDF robot: solved in its DH form
        form = puma_form(robot)
        robot, poses = form.robot, form.dh_pose(poses)
    count = len(poses)
    finite = finite_rows(poses)
    poses = np.where(finite[:, None, None], poses, np.eye(4))   # computed, then not valid
    branch = np.broadcast_to(np.asarray(branch, dtype=np.int64), (count,))
    with np.errstate(all="ignore"):     # a pose beyond float64's squares is unreachable
        q_float, reachable = _float_ik(robot, poses, branch)
        frame = orthonormal(poses)
    in_format = np.ones(count, dtype=bool)
    if backend == "float":
        q, valid = q_float, reachable
    else:
        fmt = FixedFormat(width, puma_format(width)["frac_bits"])
        values = np.stack([pose_inputs(poses)[n] for n in POSE_INPUTS], -1)
        in_format = fmt.fits(values).all(-1) if count else in_format
        q, valid = np.zeros((count, 6)), np.zeros(count, dtype=bool)
        rows = np.flatnonzero(in_format)
        if backend == "model":
            q[rows], valid[rows] = _model_rows(GRAPHS[graph](robot), poses[rows], branch[rows],
                                               width)
        else:
            from robohw.robots.toml_file import description_identity
            # The compiled model's cache key.
            identity = f"ik {graph} width={width} {description_identity(robot)}"
            q[rows], valid[rows] = _rtl_rows(robot, graph, poses[rows], branch[rows], width,
                                             backend, progress, identity)
    outside = np.zeros(count, dtype=bool)
    if within_limits:
        q, inside = into_limits(robot, q)
        outside = valid & ~inside
    failures = [(NOT_FINITE, ~(finite & finite_rows(q))), ("out_of_format", ~in_format),
                ("not_orthonormal", ~frame), ("unreachable", ~valid & ~reachable),
                ("near_singular", ~valid & reachable), ("outside_limits", outside)]
    valid, reason = row_reasons(count, failures)
    if form is not None:
        q = form.chain_q(q)
    return IkSolution(keep_valid(q, valid), valid, reason, branch.copy())


def _indicators(branch):
    signs = np.array(BRANCHES)[branch]
    return dict(zip(("arm", "elbow", "wrist"), signs.T))


def _model_rows(graph, poses, branch, width):
    from robohw.taskgraph.model import evaluate_model  # the hardware's modules, for it only
    out, valid, _ = evaluate_model(graph, pose_inputs(poses), _indicators(branch),
                                   **puma_format(width))
    return _wrap(joint_angles(out)), valid


def _rtl_rows(robot, graph, poses, branch, width, backend, progress, identity):
    # The hardware's modules, for it only: the float backend starts without them.
    from robohw.hw.payload import payload_rows
    from robohw.ik.codec import encode_poses
    from robohw.ik.designs import IkDesign
    from robohw.sim.run import run_backend
    from robohw.support.progress import Progress
    # Built through the registry's design: what is simulated is what is synthesized.
    dut = IkDesign(f"ik-{graph}-pipelined", graph, "pipelined").hardware(robot, width,
                                                                          tag_width=0)
    graph = dut.graph
    bits = {b: (v < 0).astype(int) for b, v in _indicators(branch).items()
            if b in graph.branches}
    payloads = payload_rows({**encode_poses(pose_inputs(poses), width, dut.plan.frac_bits),
                             **bits})
    run = run_backend(dut, payloads, backend, f"poses through the {dut.latency}-cycle pipeline",
                      Progress(len(payloads), progress), identity)
    valid = np.array([not o["unreachable"] for o in run.outputs], dtype=bool)
    return _wrap(payload_joint_angles(run.outputs, width)), valid
