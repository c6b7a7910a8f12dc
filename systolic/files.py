"""``robohw inertia``: joint configurations from CSV to inertia matrices in CSV, by any backend.

``IN.csv`` has the header ``q1,...,qN`` (radians for revolute joints, metres for prismatic
ones; any column order). ``OUT.csv`` has ``H11,H12,...,HNN,valid`` (``reason`` last when
asked): the full N x N matrix, row by row; a configuration that cannot be computed is
``valid = 0`` with zeros, and the rest of the file is computed: a matrix that is not finite
(a robot whose masses overflow float64: ``not_finite``), or for the hardware an angle of
2**(47 - width) turns or more, which float64 holds too coarsely for a binary angle
(``out_of_format``), or a prismatic joint outside the limits its formats are proven for
(``outside_limits``).
Backends: ``float`` (the array's algorithm in float64: Table 1 for ``linear``, Table 2 for
``logdepth``), ``model`` (the array's bit-exact model), ``rtl`` (its Amaranth pipeline,
simulated cycle by cycle) and ``compiled`` (the same array compiled by Verilator,
:mod:`robohw.sim.compiled`).
"""

from dataclasses import dataclass

import numpy as np

from robohw.hw.checks import check_choice
from robohw.robots.joint_type import JointType
from robohw.support.csv_table import read_columns, result_header, result_rows, write_rows
from robohw.support.held import Held
from robohw.support.validity import (
    NOT_FINITE,
    finite_rows,
    keep_valid,
    real_values,
    row_reasons,
)
from robohw.systolic.reference import inertia_matrix

__all__ = ["read_configurations", "write_matrices", "outside_limits", "solve_inertia",
           "Inertias", "BACKENDS", "ALGORITHMS", "REASONS", "configuration_columns",
           "matrix_header", "matrix_rows"]

# The reasons a row can have, in precedence order after "ok" (docs/conventions.md).
REASONS = ("ok", "not_finite", "out_of_format", "outside_limits")

BACKENDS = ("float", "model", "rtl", "compiled")
ALGORITHMS = {"linear": "table1", "logdepth": "table2"}


def configuration_columns(dof):
    """The columns ``IN.csv`` must have: ``q1..qN``."""
    return [f"q{k}" for k in range(1, dof + 1)]


def read_configurations(path, dof):
    """Joint values of shape ``(rows, dof)`` from a CSV file with columns ``q1..q{dof}``."""
    return read_columns(path, configuration_columns(dof))


def matrix_header(n, reasons=False, bounds=False):
    """``OUT.csv``'s header: ``H11,H12,...,HNN`` (with ``bounds``, ``bound11..boundNN``),
    ``valid`` (and ``reason``)."""
    def names(kind):
        return [f"{kind}{j}{i}" if n < 10 else f"{kind}{j}_{i}" for j in range(1, n + 1)
                for i in range(1, n + 1)]
    return result_header(names("H"), reasons, names("bound") if bounds else ())


def matrix_rows(h, valid, reason=None, bounds=None):
    """``OUT.csv``'s rows, :func:`matrix_header`'s columns (``reason`` when given; ``bounds``:
    ``{(j, i): bound}`` of each entry, from 1, one of each symmetric pair, written on the
    valid rows)."""
    if bounds is not None:
        n = h.shape[-1]
        bounds = [bounds[j, i] if (j, i) in bounds else bounds[i, j]
                  for j in range(1, n + 1) for i in range(1, n + 1)]
    return result_rows(h, valid, reason, bounds=bounds)


def write_matrices(path, h, valid, reason=None):
    """Write ``OUT.csv`` (``H11,H12,...,valid``, and ``reason`` when given) atomically: a
    failure leaves no file behind."""
    write_rows(path, matrix_header(h.shape[-1], reason is not None),
               matrix_rows(h, valid, reason))


def outside_limits(robot, q):
    """Rows with a prismatic joint outside its limits: the hardware's number formats are
    proven for the limits only (revolute joints enter as cos and sin: any angle)."""
    outside = np.zeros(len(q), dtype=bool)
    for k, joint in enumerate(robot.joints):
        if joint.type == JointType.PRISMATIC and joint.limits is not None and k > 0:
            outside |= (q[:, k] < joint.limits[0]) | (q[:, k] > joint.limits[1])
    return outside


@dataclass(frozen=True)
class Inertias:
    """What :func:`solve_inertia` gives: ``h`` ``(rows, N, N)`` (zeros where not valid), per
    row ``valid`` and ``reason``, and a hardware backend's
    :class:`~robohw.systolic.accuracy.InertiaPromise` (``None`` for the float backend)."""
    h: np.ndarray
    valid: np.ndarray
    reason: np.ndarray
    accuracy: object = None


def solve_inertia(robot, q, backend="float", array="linear", width=None, fold=None,
                  progress=None):
    """The :class:`Inertias` of configurations ``q`` by ``backend``: the matrices ``(rows, N,
    N)`` (zeros where not valid), per row ``valid`` and ``reason``, by precedence
    (:data:`REASONS`): ``not_finite`` (a value of the row or of its matrix that is not finite),
    then for the hardware backends ``out_of_format`` (an angle no binary angle holds) and
    ``outside_limits`` (see :func:`outside_limits`). ``width``: the hardware backends' bits
    (``None``: the array's default for the robot, ``robohw sim --robot``'s); ``fold``: cycles
    per configuration of the rtl and compiled backends' array (default: the array's for the
    robot). A hardware backend states its promise
    (:func:`~robohw.systolic.accuracy.inertia_promise`)."""
    check_choice("array", array, ALGORITHMS)
    check_choice("backend", backend, BACKENDS)
    q = np.atleast_2d(real_values("q", q))
    finite = finite_rows(q)
    q = np.where(finite[:, None], q, 0.0)       # computed, then not valid
    h = np.zeros((len(q), robot.dof, robot.dof))
    if backend == "float":
        with np.errstate(all="ignore"):         # a matrix beyond float64 is not_finite
            h = inertia_matrix(robot, q, ALGORITHMS[array])
        failures, accuracy = [], None
    else:
        from robohw.support.joints import angles_fit  # with the hardware's formats
        from robohw.systolic.accuracy import inertia_promise
        design = _design(robot, array, width)
        width = design.default_width
        plan = _PLANS.get((array, design.robot_digest, width),
                          lambda: design.plan(design.hardware_robot, width))
        accuracy = inertia_promise(plan, robot)
        _check_promise(accuracy, robot, design, width)
        fits = angles_fit(robot, q, width)     # the angle fields are width bits
        outside = outside_limits(robot, q)
        computed = finite & fits & ~outside
        if computed.any():
            h[computed] = _hardware(robot, q[computed], backend, design, plan,
                                    fold or design.default_fold, progress)
        failures = [("out_of_format", ~fits), ("outside_limits", outside)]
    valid, reason = row_reasons(len(q), [(NOT_FINITE, ~(finite & finite_rows(h))),
                                         *failures])
    return Inertias(keep_valid(h, valid), valid, reason, accuracy)


def _check_promise(accuracy, robot, design, width):
    """Refuse (``ValueError``, one line) a plan whose bound reaches the largest entry the joint
    limits allow: it would promise nothing of any entry."""
    if accuracy.fraction < 1:
        return
    from robohw.robots.magnitudes import largest_value
    raise ValueError(
        f"{robot.source or robot.name}: the {design.name} design at {width} bits: its entries "
        f"are proven within {accuracy.bound:.3g}, {accuracy.fraction:.3g} times the largest "
        f"entry the joint limits allow ({accuracy.largest_entry:.3g}), so no entry is known; "
        f"its largest value: {largest_value(robot)}; what would serve: a wider --width, or a "
        f"robot file whose values are its arm's")


# This run's designs and plans (a file solved chunk by chunk, the API called in a loop).
_DESIGNS, _PLANS = Held(8), Held(8)


def _design(robot, array, width=None):
    """The ``array``'s design generated for ``robot`` at ``width`` bits (``None``: its default,
    measured where no table holds it) and its default fold there, those of ``robohw sim
    --robot``, which the hardware backends build through, as every flow builds it; once a run.
    Its modules are imported here: the float backend's command loads the references alone (a
    fast start)."""
    from robohw.systolic.arrays import DEFAULT_FOLDS
    from robohw.systolic.designs import DESIGN_CLASSES, inertia_digest
    digest = inertia_digest(robot)
    return _DESIGNS.get((array, digest, width), lambda: DESIGN_CLASSES[array](
        f"inertia-{array}", DEFAULT_FOLDS[array]).for_robot(robot, None, digest, width=width))


def _hardware(robot, q, backend, design, plan, fold, progress):
    """The matrices by a hardware backend: ``design`` (:func:`_design`) at ``plan``'s width
    (its bit-exact model's plan) folded by ``fold``."""
    from robohw.hw.payload import payload_rows
    from robohw.robots.toml_file import description_identity
    from robohw.sim.run import run_backend
    from robohw.support.progress import Progress
    from robohw.systolic.codec import decode_outputs, encode_joints, output_codes
    from robohw.systolic.model import model_inertia
    if backend == "model":
        return model_inertia(plan, q)
    width = plan.width
    dut = design.hardware(design.hardware_robot, width, fold, tag_width=0)
    payloads = payload_rows(encode_joints(dut.plan, q))
    run = run_backend(dut, payloads, backend,
                      f"configurations through the {dut.latency}-cycle {design.array} array",
                      Progress(len(payloads), progress),
                      f"inertia {design.array} width={width} fold={fold} "
                      f"{description_identity(robot)}")
    return decode_outputs(dut.plan, output_codes(dut.plan, run.outputs))
