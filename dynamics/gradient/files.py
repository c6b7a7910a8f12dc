"""``robohw dynamics-gradient``: robot states from CSV to the gradient of their joint torques in
CSV.

``IN.csv`` is ``robohw dynamics``' (``q1..qN,qd1..qdN,qdd1..qddN``, any column order).
``OUT.csv`` has ``dtau{i}_dq{j}`` for ``i, j = 1..N`` (row-major: joint ``i``'s torque by joint
``j``'s position), then ``dtau{i}_dqd{j}`` likewise, then ``valid`` (``reason`` last when asked);
N m per rad and N m per rad/s for revolute joints (N per m, per m/s for prismatic ones).
Backends: ``float`` (:mod:`robohw.dynamics.gradient.reference`), and the hardware's: ``model``,
the bit-exact model of the traced plan (:mod:`robohw.dynamics.gradient.plan`) at its width
(:func:`~robohw.dynamics.gradient.accuracy.gradient_width`'s by default), each entry within its
proven bound (:mod:`robohw.dynamics.gradient.accuracy`); ``rtl`` and ``compiled``, its engine
(:class:`~robohw.dynamics.gradient.engine.GradientEngine`, one state every ``interval``
cycles) simulated cycle by cycle in Amaranth or compiled by Verilator, bit for bit the
model's. A state or a gradient that is not finite is ``not_finite``; the hardware's angle no
binary angle holds is ``out_of_format``, its state outside the robot's limits
``outside_limits``, as ``robohw dynamics``' hardware backends judge them; each such row has
zeros.
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from robohw.dynamics.gradient.fields import gradient_keys
from robohw.dynamics.inverse.files import state_rows
from robohw.hw.checks import check_choice
from robohw.robots.toml_file import robot_digest
from robohw.support.csv_table import result_header, result_rows
from robohw.support.held import Held
from robohw.support.validity import NOT_FINITE, finite_rows, keep_valid, row_reasons

if TYPE_CHECKING:
    from robohw.dynamics.gradient.accuracy import GradientPromise

__all__ = ["GRADIENT_BACKENDS", "GRADIENT_REASONS", "Gradients", "solve_gradient",
           "gradient_header", "gradient_rows"]

GRADIENT_BACKENDS = ("float", "model", "rtl", "compiled")
# The reasons a row can have, in precedence order after "ok" (docs/conventions.md).
GRADIENT_REASONS = ("ok", "not_finite", "out_of_format", "outside_limits")


@dataclass
class Gradients:
    """What :func:`solve_gradient` gives: ``dq`` and ``dqd``, each ``(rows, N, N)`` (entry
    ``[k, i, j]``: d tau_i / d q_j, or / d qd_j, of state ``k``; zeros where not valid), per row
    ``valid`` and ``reason``, and the model's
    :class:`~robohw.dynamics.gradient.accuracy.GradientPromise` (``None`` for the float
    backend)."""
    dq: np.ndarray
    dqd: np.ndarray
    valid: np.ndarray
    reason: np.ndarray
    promise: "GradientPromise | None" = None


def solve_gradient(robot, q, qd, qdd, backend="float", *, width=None, interval=None,
                   progress=None):
    """The :class:`Gradients` of the states (each ``(rows, N)``) by ``backend``
    (:data:`GRADIENT_BACKENDS`; the hardware's ``width`` and the engine's ``interval``,
    ``None`` for their defaults; ``progress``, a stream for the simulations' progress lines);
    the reasons by precedence, :data:`GRADIENT_REASONS`."""
    check_choice("backend", backend, GRADIENT_BACKENDS)
    if backend == "float" and width is not None:
        raise ValueError("width is the hardware's: it needs backend 'model', 'rtl' or "
                         "'compiled'")
    if backend in ("float", "model") and interval is not None:
        raise ValueError("interval is the engine's: it needs backend 'rtl' or 'compiled'")
    finite, (q, qd, qdd) = state_rows(robot, q=q, qd=qd, qdd=qdd)
    if backend == "float":
        from robohw.dynamics.gradient.reference import inverse_dynamics_gradient
        with np.errstate(all="ignore"):         # a gradient beyond float64 is not_finite
            dq, dqd = inverse_dynamics_gradient(robot, q, qd, qdd)
        failures, promise = [], None
    else:
        dq, dqd, failures, promise = _hardware(robot, q, qd, qdd, backend, width, interval,
                                               progress)
    valid, reason = row_reasons(len(q), [(NOT_FINITE, ~(finite & finite_rows(dq, dqd))),
                                         *failures])
    return Gradients(keep_valid(dq, valid), keep_valid(dqd, valid), valid, reason, promise)


# This run's last plans, by robot and width (a file is solved in chunks).
_PLANS = Held(4)


def _hardware(robot, q, qd, qdd, backend, width, interval, progress):
    """``(dq, dqd, failures, promise)`` of the bit-exact model or its engine (the modules
    imported here: the float backend's command loads the reference alone)."""
    from robohw.dynamics.gradient.accuracy import gradient_plan, gradient_promise
    from robohw.dynamics.gradient.codec import decode_gradient
    from robohw.dynamics.inverse.codec import encode_states
    from robohw.dynamics.inverse.model import model_outputs
    from robohw.support.joints import angles_fit
    plan = _PLANS.get((robot_digest(robot), width), lambda: gradient_plan(robot, width))
    fits = angles_fit(robot, q, plan.cordic.width)
    q = np.where(fits[:, None], q, 0.0)     # computed, then not valid
    codes = encode_states(plan, q, qd, qdd)
    if backend == "model":
        out, inside = model_outputs(plan, codes)
    else:
        out, inside = _simulated(plan, codes, backend, interval, progress)
    with np.errstate(all="ignore"):
        dq, dqd = decode_gradient(plan, out)
    return dq, dqd, [("out_of_format", ~fits), ("outside_limits", ~inside)], \
        gradient_promise(plan)


def _simulated(plan, codes, backend, interval, progress):
    """``(out, in_bounds)`` of the payload ``codes`` through the engine of ``plan`` simulated
    by ``backend`` (``rtl`` or ``compiled``)."""
    from robohw.dynamics.gradient.codec import gradient_codes
    from robohw.dynamics.gradient.engine import GradientEngine
    from robohw.hw.payload import payload_rows
    from robohw.robots.toml_file import description_identity
    from robohw.sim.run import run_backend
    from robohw.support.progress import Progress
    payloads = payload_rows(codes)
    dut = GradientEngine(plan, interval=interval)
    outputs = run_backend(dut, payloads, backend, dut.progress_label(),
                          Progress(len(payloads), progress),
                          f"dynamics-gradient width={plan.width} interval={dut.interval} "
                          f"{description_identity(plan.robot)}").outputs
    return gradient_codes(plan, outputs), np.array([o["in_bounds"] for o in outputs],
                                                   dtype=bool)


def gradient_header(dof, reasons=False, bounds=False):
    """``OUT.csv``'s header: ``dtau{i}_dq{j}``, then ``dtau{i}_dqd{j}`` (``i`` the torque, ``j``
    the joint, row-major), with ``bounds`` each entry's ``bound_`` column in the same order,
    ``valid`` (and ``reason``)."""
    entries = gradient_keys(dof)
    return result_header(entries, reasons, [f"bound_{e}" for e in entries] if bounds else ())


def gradient_rows(dq, dqd, valid, reason=None, promise=None):
    """``OUT.csv``'s rows, :func:`gradient_header`'s columns (``reason`` when given; with a
    ``promise``, a :class:`~robohw.dynamics.gradient.accuracy.GradientPromise`, each entry's
    proven bound on the valid rows)."""
    rows = len(dq)
    bounds = None if promise is None else \
        [promise.bounds[e] for e in gradient_keys(dq.shape[1])]
    return result_rows(np.concatenate([dq.reshape(rows, -1), dqd.reshape(rows, -1)], 1),
                       valid, reason, bounds=bounds)
