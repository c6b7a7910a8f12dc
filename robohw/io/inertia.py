"""``robohw inertia``: joint configurations from CSV to inertia matrices in CSV, by any backend.

``IN.csv`` has the header ``q1,...,qN`` (radians for revolute joints, metres for prismatic
ones; any column order). ``OUT.csv`` has ``H11,H12,...,HNN``: the full N x N matrix, row by
row. Backends: ``float`` (the array's algorithm in float64: Table 1 for ``linear``, Table 2 for
``logdepth``), ``model`` (the array's bit-exact model) and ``rtl`` (its Amaranth pipeline,
simulated cycle by cycle).
"""

import numpy as np

from robohw.io.csv_table import CsvFileError, read_columns, write_rows
from robohw.reference.inertia import inertia_matrix
from robohw.sim.harness import run_stream
from robohw.systolic import ARRAYS, PLANS
from robohw.systolic.model import decode_outputs, encode_joints, model_inertia

__all__ = ["read_configurations", "write_matrices", "solve_inertia", "BACKENDS", "ALGORITHMS"]

BACKENDS = ("float", "model", "rtl")
ALGORITHMS = {"linear": "table1", "logdepth": "table2"}


def read_configurations(path, dof):
    """Joint values of shape ``(rows, dof)`` from a CSV file with columns ``q1..q{dof}``."""
    return read_columns(path, [f"q{k}" for k in range(1, dof + 1)])


def write_matrices(path, h):
    """Write ``OUT.csv`` (``H11,H12,...``) atomically: a failure leaves no file behind."""
    n = h.shape[-1]
    header = [f"H{j}{i}" if n < 10 else f"H{j}_{i}" for j in range(1, n + 1)
              for i in range(1, n + 1)]
    write_rows(path, header, (row.reshape(-1).tolist() for row in h))


def check_limits(robot, q, path):
    """Prismatic joints outside their limits leave the hardware's proven ranges: name the
    first such value (file, line, column)."""
    for k, joint in enumerate(robot.joints):
        if joint.type == "prismatic" and joint.limits is not None and k > 0:
            outside = np.flatnonzero((q[:, k] < joint.limits[0]) | (q[:, k] > joint.limits[1]))
            if outside.size:
                raise CsvFileError(f"{path}, line {outside[0] + 2}, column q{k + 1}: "
                                   f"{float(q[outside[0], k])!r} is outside the joint limits "
                                   f"{list(joint.limits)}")


def solve_inertia(robot, q, backend="float", array="linear", width=24, progress=None):
    """Inertia matrices ``(rows, N, N)`` of configurations ``q`` by ``backend``."""
    if array not in ALGORITHMS:
        raise ValueError(f"array must be one of {', '.join(ALGORITHMS)}, not {array!r}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if backend == "float":
        return inertia_matrix(robot, q, ALGORITHMS[array])
    if backend == "model":
        plan = PLANS[array](robot, width=width)
        return model_inertia(plan, q)
    dut = ARRAYS[array](robot, width=width)
    codes = encode_joints(dut.plan, q)
    payloads = [{name: int(v[b]) for name, v in codes.items()} for b in range(len(q))]
    if progress:
        print(f"simulating {len(payloads)} configurations through a {dut.latency}-cycle "
              f"{array} array", file=progress)
    run = run_stream(dut, payloads)
    out = {key: np.array([o[f"h{key[0]}_{key[1]}"] for o in run.outputs], dtype=np.int64)
           for key in dut.output_fracs}
    return decode_outputs(dut.plan, out)
