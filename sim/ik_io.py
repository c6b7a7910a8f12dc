"""``robohw ik``: hand poses from CSV to joint angles in CSV, by any backend.

``IN.csv`` has the header ``nx,ny,nz,ox,oy,oz,ax,ay,az,px,py,pz`` (the hand frame, metres; any
column order). ``OUT.csv`` has ``q1,q2,q3,q4,q5,q6,valid``: radians in (-pi, pi], ``valid`` 1
or 0. Backends: ``float`` (the closed form of :mod:`sim.kinematics`), ``model`` (the bit-exact
model of the best CCM graph) and ``rtl`` (its Amaranth pipeline, simulated cycle by cycle).
"""

import csv
import math
import os
import pathlib
import tempfile

import numpy as np

from hw.fixed import FixedFormat
from hw.puma_ik_graph import POSE_INPUTS, best_graph
from sim.kinematics import puma_ik
from sim.task_graph_eval import evaluate_model

__all__ = ["PoseFileError", "read_poses", "write_joints", "solve_ik", "BACKENDS"]

BACKENDS = ("float", "model", "rtl")
# A rotation whose columns are further than this from orthonormal is not a hand pose.
ORTHONORMAL_TOLERANCE = 1e-4


class PoseFileError(ValueError):
    """A bad pose file; the message names the file, line and column."""


def read_poses(path):
    """Hand poses of shape ``(N, 4, 4)`` from a CSV file (see the module docstring)."""
    path = pathlib.Path(path)
    try:
        with open(path, newline="") as file:
            rows = list(csv.reader(file))
    except OSError as error:
        raise PoseFileError(f"{path}: {error.strerror}") from None
    if not rows:
        raise PoseFileError(f"{path}, line 1: empty file; expected the header "
                            f"{','.join(POSE_INPUTS)}")
    header = [name.strip() for name in rows[0]]
    for name in POSE_INPUTS:
        if name not in header:
            raise PoseFileError(f"{path}, line 1, column {name}: missing")
    index = {name: header.index(name) for name in POSE_INPUTS}
    poses = np.tile(np.eye(4), (len(rows) - 1, 1, 1))
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise PoseFileError(f"{path}, line {line}: {len(row)} fields, the header has "
                                f"{len(header)}")
        for name, column in index.items():
            text = row[column].strip()
            try:
                value = float(text)
            except ValueError:
                raise PoseFileError(f"{path}, line {line}, column {name}: not a number: "
                                    f"{text!r}") from None
            if not math.isfinite(value):
                raise PoseFileError(f"{path}, line {line}, column {name}: not finite: {text!r}")
            poses[line - 2, "xyz".index(name[1]), "noap".index(name[0])] = value
        rotation = poses[line - 2, :3, :3]
        if np.abs(rotation.T @ rotation - np.eye(3)).max() > ORTHONORMAL_TOLERANCE or \
                np.linalg.det(rotation) < 0:
            raise PoseFileError(f"{path}, line {line}, columns nx..az: n, o, a are not a "
                                f"right-handed orthonormal frame")
    return poses


def write_joints(path, q, valid):
    """Write ``OUT.csv`` atomically: a failure leaves no file behind."""
    path = pathlib.Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent or ".", prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", newline="") as file:
            writer = csv.writer(file)
            writer.writerow(["q1", "q2", "q3", "q4", "q5", "q6", "valid"])
            for angles, ok in zip(q, valid):
                writer.writerow([repr(float(a)) for a in angles] + [int(ok)])
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _wrap(angles):
    return np.pi - np.remainder(np.pi - angles, 2 * np.pi)


def solve_ik(robot, poses, backend="float", arm=1, elbow=1, wrist=1, width=24, progress=None):
    """Joint angles ``(N, 6)`` and validity ``(N,)`` of ``poses`` by ``backend``."""
    if backend == "float":
        return puma_ik(robot, poses, arm, elbow, wrist)
    graph = best_graph(robot)
    inputs = {n: poses[:, "xyz".index(n[1]), "noap".index(n[0])] for n in POSE_INPUTS}
    branches = {"arm": arm, "elbow": elbow, "wrist": wrist}
    if backend == "model":
        out, valid, _ = evaluate_model(graph, inputs, branches, width=width)
        q = np.stack([out[f"q{k}"] for k in range(1, 7)], -1)
        return np.where(valid[:, None], _wrap(q), 0.0), valid
    if backend != "rtl":
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    from hw.task_graph_pipeline import TaskGraphPipeline
    from sim.harness import run_stream
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
