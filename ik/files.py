"""``robohw ik``: hand poses from CSV to joint angles in CSV, by any backend.

``IN.csv`` has the header ``nx,ny,nz,ox,oy,oz,ax,ay,az,px,py,pz`` (the hand frame, metres; any
column order). ``OUT.csv`` has ``q1,q2,q3,q4,q5,q6,valid`` (radians in (-pi, pi], ``valid`` 1 or
0), with ``branch`` first when every branch is asked for and ``reason`` last when reasons are.
Backends: ``float`` (the closed form of :mod:`robohw.ik.reference`), ``model`` (the
bit-exact model of a CCM graph), ``rtl`` (its Amaranth pipeline, simulated cycle by cycle) and
``compiled`` (the same pipeline compiled by Verilator, :mod:`robohw.sim.compiled`).

Every row is solved on its own: a row that cannot be is ``valid = 0`` with zero angles and a
reason, by precedence: ``out_of_format`` (a value outside the hardware's number format,
[-2, 2) m: :func:`robohw.ik.puma_graph.puma_format`; the float backend has none),
``not_orthonormal`` (``n``, ``o``, ``a`` are not a right-handed orthonormal frame: some entry of
``R^T R - I`` beyond :data:`ORTHONORMAL_TOLERANCE`, 1e-4, or ``det R < 0``; a rotation
printed to 4 decimals, off by up to 5e-5 an entry, can miss it: print 6 or more),
``unreachable`` (no solution exists),
``near_singular`` (reachable, but the graph flags it: within 0.3 mm of the shoulder-singular line
or with the elbow within 0.11 degrees of straight or folded), ``outside_limits`` (with
``within_limits``: the solution leaves the robot file's joint limits), else ``ok``.
"""

from dataclasses import dataclass

import numpy as np

from robohw.hw.checks import check_choice
from robohw.hw.fixed import FixedFormat
from robohw.robots.chain import Chain
from robohw.robots.family import puma_form
from robohw.ik.codec import (POSE_INPUTS, joint_angles, payload_joint_angles, pose_inputs,
                             poses_from_inputs)
from robohw.ik.puma_graph import GRAPHS, puma_format
from robohw.support.csv_table import CsvFileError, read_columns, write_rows
from robohw.ik.reference import BRANCHES, puma_ik

__all__ = ["PoseFileError", "IkSolution", "read_poses", "write_joints", "solve_ik",
           "branch_index", "orthonormal", "BACKENDS", "REASONS", "ORTHONORMAL_TOLERANCE",
           "POSE_COLUMNS", "poses_from_inputs", "joint_header", "joint_rows"]

# The columns IN.csv must have (the module docstring).
POSE_COLUMNS = POSE_INPUTS

BACKENDS = ("float", "model", "rtl", "compiled")
REASONS = ("ok", "out_of_format", "not_orthonormal", "unreachable", "near_singular",
           "outside_limits")
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


def _within(robot, q):
    """Rows of ``q`` whose every joint lies in its limits (an angle, or it plus or minus a
    turn, when the limits reach past (-pi, pi])."""
    inside = np.ones(len(q), dtype=bool)
    for k, joint in enumerate(robot.joints):
        if joint.limits is None:
            continue
        low, high = joint.limits
        turns = [q[:, k] + shift for shift in (0.0, 2 * np.pi, -2 * np.pi)]
        inside &= np.logical_or.reduce([(t >= low) & (t <= high) for t in turns])
    return inside


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
    is (:func:`robohw.robots.family.puma_form`): its poses are the tip's in its base frame,
    solved as the DH form's tool poses, and its angles are the chain's joint values; the
    branch indicators refer to the DH form's frames."""
    check_choice("backend", backend, BACKENDS)
    check_choice("graph", graph, GRAPHS)
    form = None
    if isinstance(robot, Chain):      # a URDF robot: solved in its DH form
        form = puma_form(robot)
        robot, poses = form.robot, form.dh_pose(poses)
    count = len(poses)
    branch = np.broadcast_to(np.asarray(branch, dtype=np.int64), (count,))
    q_float, reachable = _float_ik(robot, poses, branch)
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
            q[rows], valid[rows] = _rtl_rows(GRAPHS[graph](robot), poses[rows], branch[rows],
                                             width, backend, progress, identity)
    reason = np.full(count, "ok", dtype=object)
    outside = valid & ~_within(robot, q) if within_limits else np.zeros(count, dtype=bool)
    reason[outside] = "outside_limits"
    reason[~valid & reachable] = "near_singular"
    reason[~valid & ~reachable] = "unreachable"
    frame = orthonormal(poses)
    reason[~frame] = "not_orthonormal"
    reason[~in_format] = "out_of_format"
    valid &= ~outside & frame
    if form is not None:
        q = form.chain_q(q)
    return IkSolution(np.where(valid[:, None], q, 0.0), valid, reason, branch.copy())


def _indicators(branch):
    signs = np.array(BRANCHES)[branch]
    return dict(zip(("arm", "elbow", "wrist"), signs.T))


def _model_rows(graph, poses, branch, width):
    from robohw.ik.model import evaluate_model      # the hardware's modules, for it only
    out, valid, _ = evaluate_model(graph, pose_inputs(poses), _indicators(branch),
                                   **puma_format(width))
    return _wrap(joint_angles(out)), valid


def _rtl_rows(graph, poses, branch, width, backend, progress, identity):
    # The hardware's modules, for it only: the float backend starts without them.
    from robohw.hw.payload import payload_rows
    from robohw.ik.codec import encode_poses
    from robohw.ik.pipeline import MEMORY_ABOVE, TaskGraphPipeline
    from robohw.sim.run import run_backend
    from robohw.support.progress import Progress
    # Built as the registry builds it (long delay lines in memories): what is simulated is
    # what is synthesized.
    dut = TaskGraphPipeline(graph, **puma_format(width), memory_above=MEMORY_ABOVE)
    bits = {b: (v < 0).astype(int) for b, v in _indicators(branch).items()
            if b in graph.branches}
    payloads = payload_rows({**encode_poses(pose_inputs(poses), width, dut.plan.frac_bits),
                             **bits})
    run = run_backend(dut, payloads, backend, f"poses through the {dut.latency}-cycle pipeline",
                      Progress(len(payloads), progress), identity)
    valid = np.array([not o["unreachable"] for o in run.outputs], dtype=bool)
    return _wrap(payload_joint_angles(run.outputs, width)), valid
