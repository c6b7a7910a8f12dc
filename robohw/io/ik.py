"""``robohw ik``: hand poses from CSV to joint angles in CSV, by any backend.

``IN.csv`` has the header ``nx,ny,nz,ox,oy,oz,ax,ay,az,px,py,pz`` (the hand frame, metres; any
column order). ``OUT.csv`` has ``q1,q2,q3,q4,q5,q6,valid``: radians in (-pi, pi], ``valid`` 1 or 0.
Backends: ``float`` (the closed form of :mod:`robohw.reference.kinematics`), ``model`` (the
bit-exact model of the best CCM graph) and ``rtl`` (its Amaranth pipeline, simulated cycle by
cycle).
"""

import numpy as np

from robohw.hw.fixed import FixedFormat
from robohw.ik.model import evaluate_model
from robohw.ik.pipeline import TaskGraphPipeline
from robohw.ik.puma_graph import POSE_INPUTS, best_graph, pose_inputs, poses_from_inputs
from robohw.io.csv_table import CsvFileError, read_columns, write_rows
from robohw.reference.kinematics import puma_ik
from robohw.sim.harness import run_stream

__all__ = ["PoseFileError", "read_poses", "write_joints", "solve_ik", "BACKENDS"]

BACKENDS = ("float", "model", "rtl")
# A rotation whose columns are further than this from orthonormal is not a hand pose.
ORTHONORMAL_TOLERANCE = 1e-4

PoseFileError = CsvFileError


def read_poses(path):
    """Hand poses of shape ``(N, 4, 4)`` from a CSV file (see the module docstring)."""
    poses = poses_from_inputs(read_columns(path, POSE_INPUTS))
    for row, pose in enumerate(poses):
        rotation = pose[:3, :3]
        if np.abs(rotation.T @ rotation - np.eye(3)).max() > ORTHONORMAL_TOLERANCE or \
                np.linalg.det(rotation) < 0:
            raise PoseFileError(f"{path}, line {row + 2}, columns nx..az: n, o, a are not a "
                                f"right-handed orthonormal frame")
    return poses


def write_joints(path, q, valid):
    """Write ``OUT.csv`` atomically: a failure leaves no file behind."""
    write_rows(path, ["q1", "q2", "q3", "q4", "q5", "q6", "valid"],
               ([*map(float, angles), int(ok)] for angles, ok in zip(q, valid)))


def _wrap(angles):
    return np.pi - np.remainder(np.pi - angles, 2 * np.pi)


def solve_ik(robot, poses, backend="float", arm=1, elbow=1, wrist=1, width=24, progress=None):
    """Joint angles ``(N, 6)`` and validity ``(N,)`` of ``poses`` by ``backend``."""
    if backend == "float":
        return puma_ik(robot, poses, arm, elbow, wrist)
    graph = best_graph(robot)
    inputs = pose_inputs(poses)
    branches = {"arm": arm, "elbow": elbow, "wrist": wrist}
    if backend == "model":
        out, valid, _ = evaluate_model(graph, inputs, branches, width=width)
        q = np.stack([out[f"q{k}"] for k in range(1, 7)], -1)
        return np.where(valid[:, None], _wrap(q), 0.0), valid
    if backend != "rtl":
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    fmt = FixedFormat(width, width - 3)
    dut = TaskGraphPipeline(graph, width=width)
    codes = {n: fmt.from_float(inputs[n]) for n in POSE_INPUTS}
    bits = {b: int(v < 0) for b, v in branches.items() if b in graph.branches}
    payloads = [{**{n: int(codes[n][k]) for n in POSE_INPUTS}, **bits}
                for k in range(len(poses))]
    if progress:
        print(f"simulating {len(payloads)} poses through a {dut.latency}-cycle pipeline",
              file=progress)
    run = run_stream(dut, payloads)
    valid = np.array([not o["unreachable"] for o in run.outputs], dtype=bool)
    q = np.array([[o[f"q{k}"] for k in range(1, 7)] for o in run.outputs], dtype=np.float64)
    q = _wrap(q * (2 * np.pi / 2 ** width)).reshape(-1, 6)
    return np.where(valid[:, None], q, 0.0), valid
