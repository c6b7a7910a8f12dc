"""``robohw forward-dynamics``: robot states and torques from CSV to joint accelerations in CSV.

``IN.csv`` has the header ``q1..qN,qd1..qdN,tau1..tauN`` (rad, rad/s, N m for revolute joints;
m, m/s, N for prismatic ones; any column order). ``OUT.csv`` has ``qdd1..qddN,valid``
(``reason`` last when asked; rad/s^2 or m/s^2). Backends: ``float``, the articulated-body
algorithm in float64 (:mod:`robohw.dynamics.forward.reference`); ``model``, the bit-exact model of
a traced algorithm (:class:`robohw.dynamics.forward.plan.ArticulatedBodyPlan` where its analysis
proves it, else :class:`robohw.dynamics.forward.solved_plan.SolvedInertiaPlan`, checked by
:func:`robohw.dataflow.plan.checked_model_codes`); ``rtl`` and ``compiled``, the engine built
from the same plan (:class:`robohw.dynamics.forward.engine.ForwardDynamicsEngine`) simulated in
Amaranth or compiled by Verilator, which give the model's file byte for byte.

The model computes accelerations for states within the robot's position, velocity and torque
limits whose accelerations are within the acceleration limits: a state outside the first is
``outside_limits``; one whose accelerations the checks cannot place within theirs (beyond them,
or within a check's error bound of them) is ``beyond_acceleration_limits``; an angle no binary
angle holds is ``out_of_format``. Every other row is certified
(:mod:`robohw.dynamics.forward.certificate`: its inverse-dynamics residual through the row's own
inertia matrix): it is valid where each acceleration's certified bound is within ``promise``
(default :data:`FORWARD_PROMISE`) of its joint's acceleration limit, else ``not_certified``. The
model's width is the narrowest of :data:`CERTIFIED_WIDTHS` at which every row of a seeded probe
within the limits is certified (:func:`certified_plan`). The float
backend's rows can be certified the same way (``certify``), which changes no row's validity.
"""

from dataclasses import dataclass

import numpy as np

from robohw.dynamics.forward.certificate import CERTIFICATE_WIDTH, certify
from robohw.dynamics.forward.reference import articulated_body_accelerations
from robohw.dynamics.inverse.files import state_rows
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.hw.checks import check_choice
from robohw.robots.sampling import sample_states
from robohw.robots.toml_file import robot_digest
from robohw.support.csv_table import result_header, result_rows
from robohw.support.figures import rounded_up
from robohw.support.held import Held
from robohw.support.validity import NOT_FINITE, finite_rows, keep_valid, row_reasons

__all__ = ["forward_columns", "split_forward", "acceleration_header", "acceleration_rows",
           "solve_forward", "Accelerations", "FORWARD_BACKENDS", "FORWARD_BOARD", "FORWARD_REASONS",
           "certified_plan",
           "CERTIFIED_WIDTHS", "FORWARD_PROMISE", "PROBE_ROWS", "PROBE_SHARE",
           "PROBE_MARGIN", "certificate_bounds"]

# The reasons a row can have, in precedence order after "ok" (docs/conventions.md).
FORWARD_REASONS = ("ok", "not_finite", "out_of_format", "outside_limits",
                   "beyond_acceleration_limits", "not_certified")
FORWARD_BACKENDS = ("float", "model", "rtl", "compiled")
# The backend solve_forward takes beside the command's: the engine on a board behind a port.
FORWARD_BOARD = "board"
# The widths the model's default is the narrowest of (every width
# up to 35 bits first: the proven widths of the certified forward dynamics' target), and the
# share of each joint's acceleration limit a valid row's certified bound may reach.
CERTIFIED_WIDTHS = (*range(28, 36), 40, 48, 56)
FORWARD_PROMISE = 1e-3
# The probe a width is chosen by: seeded states within the limits, their torques inverse
# dynamics' at this share of the sampled accelerations. A width whose a-priori bound passes
# the rest of a limit is not tried: its checks would flag rows within this share.
PROBE_ROWS = 1024
PROBE_SHARE = 0.8
# The probe's rows are certified within this share of the promise: room for the rows between
# PROBE_SHARE and the limits, whose errors are larger.
PROBE_MARGIN = 0.5


def forward_columns(dof):
    """The columns ``IN.csv`` must have: ``q1..qN,qd1..qdN,tau1..tauN``."""
    return [f"{kind}{k}" for kind in ("q", "qd", "tau") for k in range(1, dof + 1)]


def split_forward(values, dof):
    """``(q, qd, tau)``, each ``(rows, dof)``, of ``values`` in :func:`forward_columns`'
    order."""
    return values[:, :dof], values[:, dof:2 * dof], values[:, 2 * dof:]


def acceleration_header(dof, reasons=False, bounds=False):
    """``OUT.csv``'s header: ``qdd1..qddN`` (with ``bounds``, ``bound1..boundN``), ``valid``
    (and ``reason``)."""
    return result_header([f"qdd{k}" for k in range(1, dof + 1)], reasons,
                         [f"bound{k}" for k in range(1, dof + 1)] if bounds else ())


def acceleration_rows(qdd, valid, reason=None, bounds=None):
    """``OUT.csv``'s rows, :func:`acceleration_header`'s columns (``reason`` when given;
    ``bounds`` ``(rows, N)``: each acceleration's certified bound, written on the valid
    rows)."""
    return result_rows(qdd, valid, reason, row_bounds=bounds)


@dataclass
class Accelerations:
    """What :func:`solve_forward` gives: ``qdd`` ``(rows, N)`` (zeros where not valid), per row
    ``valid`` and ``reason``; each row's certified ``bounds`` ``(rows, N)`` (``inf`` on a row
    not certified; ``None`` where not asked), the ``promise`` they were held to (a share of
    each acceleration limit; ``None`` for the float backend), and the model's ``width``, its
    plan's a-priori ``proven`` bound per joint (``None`` for the float backend and a plan not
    proven) and its ``formulation`` in words."""
    qdd: np.ndarray
    valid: np.ndarray
    reason: np.ndarray
    bounds: "np.ndarray | None" = None
    promise: "float | None" = None
    width: "int | None" = None
    proven: "tuple | None" = None
    formulation: "str | None" = None

    def sentence(self, robot):
        """What the rows' bounds say, in one clause, or ``None`` without bounds."""
        if self.bounds is None:
            return None
        shares = self.bounds[self.valid] / _limits(robot)
        finite = np.isfinite(shares).all(axis=-1)
        where = f"; {self.formulation} at {self.width} bits" if self.width else ""
        if not finite.any():
            return f"no row certified (residual by inverse dynamics at {CERTIFICATE_WIDTH} " \
                   f"bits{where})"
        worst = np.unravel_index(np.argmax(np.where(finite[:, None], shares, 0)), shares.shape)
        promise = "" if self.promise is None else \
            f" each within {self.promise:g} of its acceleration limit,"
        return (f"every valid row's accelerations certified,{promise} the largest bound "
                f"{shares[worst]:.2g} of joint {worst[1] + 1}'s limit (residual by inverse "
                f"dynamics at {CERTIFICATE_WIDTH} bits{where})")


def _limits(robot):
    """``(N,)``: each joint's acceleration limit."""
    return np.array([j.acceleration_limit for j in robot.joints], dtype=float)


def _proven_plan(robot, bits):
    """The articulated-body plan of ``robot`` (its hardware form) at ``bits`` where its ranges
    and checks are proven, else ``None``."""
    from robohw.dataflow.graph import RangeError
    from robohw.dynamics.forward.plan import ArticulatedBodyPlan
    try:
        plan = ArticulatedBodyPlan(robot, width=bits)
        plan.checks                                 # every check proven at this width
    except RangeError:
        return None
    return plan


def _worst_share(plan, robot):
    """``(joint, share)``: the joint (1-based) whose a-priori proven bound is the largest share
    of its acceleration limit, and that share."""
    shares = [plan.output_bounds[k] / j.acceleration_limit
              for k, j in enumerate(robot.joints, start=1)]
    worst = int(np.argmax(shares))
    return worst + 1, shares[worst]


def _refusal(robot, widths, failure):
    """The one-line ``ValueError`` of no model at ``widths``, the widest's ``failure`` said."""
    tried = ", ".join(map(str, widths[:-1])) + (" or " if len(widths) > 1 else "") + \
        str(widths[-1])
    return ValueError(f"{robot.source or robot.name}: no forward-dynamics model at {tried} "
                      f"bits: {failure}")


def certified_plan(robot, width=None, promise=FORWARD_PROMISE):
    """The model of ``robot`` at ``width`` bits, or (``None``) at the narrowest of
    :data:`CERTIFIED_WIDTHS` at which every row of the probe (:data:`PROBE_ROWS` seeded states
    within the limits, accelerations within :data:`PROBE_SHARE` of theirs, torques within
    theirs) is valid, each acceleration certified within :data:`PROBE_MARGIN` of ``promise``
    (a share of its joint's acceleration limit); that width is searched once for the robot and
    promise, and cached (:func:`~robohw.sim.measured_default.measured_default`).

    At a width the model is the :class:`~robohw.dynamics.forward.plan.ArticulatedBodyPlan`
    where it is proven with its a-priori bound within ``1 - PROBE_SHARE`` of each limit (its
    checks pass every row within :data:`PROBE_SHARE` of them), else the
    :class:`~robohw.dynamics.forward.solved_plan.SolvedInertiaPlan`. ``ValueError`` in one
    line naming the file, the widths tried and what stops the widest (the probe's rows not
    certified, with the promise that accepts them)."""
    from robohw.robots.loading import hardware_robot
    from robohw.sim.measured_default import measured_default
    hardware = hardware_robot(robot, terms=())
    if width is not None:
        return next(_plans(hardware, (width,)))[1]
    found = {}

    def search():
        probe = _probe(hardware)
        for bits, plan, failure in _plans(hardware, CERTIFIED_WIDTHS):
            if plan is not None:
                got = solve_forward(hardware, *probe, "model", promise=PROBE_MARGIN * promise,
                                    plan=plan)
                if got.valid.all():
                    found[bits] = plan
                    return bits
                failure = _probe_failure(got, bits, hardware, promise)
        raise _refusal(hardware, CERTIFIED_WIDTHS, failure)

    bits = measured_default("forward-widths", f"{robot_digest(hardware)} {promise!r}", search,
                            int)
    return found.get(bits) or next(_plans(hardware, (bits,)))[1]


def _plans(robot, widths):
    """``(bits, plan, failure)`` at each of ``widths``: :func:`certified_plan`'s model of
    ``robot`` (its hardware form), or ``None`` and why not in words; at a single width given
    (its plan asked for) ``ValueError`` in one line where there is none."""
    from robohw.dataflow.graph import RangeError
    from robohw.dynamics.forward.solved_plan import SolvedInertiaPlan
    for bits in widths:
        plan, failure = _proven_plan(robot, bits), None
        if plan is not None and _worst_share(plan, robot)[1] > 1 - PROBE_SHARE:
            plan = None
        if plan is None:
            try:
                plan = SolvedInertiaPlan(robot, width=bits)
            except RangeError as error:
                failure = f"the inertia matrix solved at {bits} bits: {error}"
                if len(widths) == 1:
                    raise _refusal(robot, widths, failure) from None
        yield bits, plan, failure


def _probe(robot):
    """``(q, qd, tau)``: the probe's states (see :func:`certified_plan`), those whose torques
    are within the torque limits."""
    q, qd, qdd = sample_states(robot, PROBE_ROWS, np.random.default_rng(0))
    tau = inverse_dynamics(robot, q, qd, PROBE_SHARE * qdd)
    inside = (np.abs(tau) <= [j.torque_limit for j in robot.joints]).all(axis=-1)
    return q[inside], qd[inside], tau[inside]


def _probe_failure(got, bits, robot, promise):
    """Why the probe's rows ``got`` (an :class:`Accelerations`) do not all pass at ``bits``."""
    reasons, counts = np.unique(got.reason[~got.valid], return_counts=True)
    told = ", ".join(f"{c} {r}" for r, c in zip(reasons, counts))
    text = f"at {bits} bits {int((~got.valid).sum())} of {len(got.valid)} probe rows within " \
           f"the limits are not valid ({told})"
    if set(reasons) == {"not_certified"} and np.isfinite(got.bounds).all():
        share = float((got.bounds / _limits(robot)).max())
        text += (f": the largest certified bound is {share:.3g} of a joint's acceleration "
                 f"limit, more than {PROBE_MARGIN:g} of the {promise:g} promised; "
                 f"--bound-fraction {rounded_up(share / PROBE_MARGIN)} accepts it")
    return text


def solve_forward(robot, q, qd, tau, backend="float", *, width=None, promise=FORWARD_PROMISE,
                  certified=False, plan=None, interval=None, progress=None, port=None):
    """The :class:`Accelerations` of the states by ``backend`` (see the module docstring; the
    reasons by precedence, :data:`FORWARD_REASONS`); the model's ``plan`` when given (one
    :func:`certified_plan` made for a file's every chunk), else :func:`certified_plan`'s at
    ``width`` and ``promise``. ``rtl`` and ``compiled`` run the engine
    (:class:`~robohw.dynamics.forward.engine.ForwardDynamicsEngine`) built at that plan's width
    and ``interval`` (default :func:`~robohw.dynamics.forward.engine.forward_interval`'s),
    which gives the model's values and flags (``progress``: a stream for its lines); their
    rows are certified as the model's. The backend ``"board"`` runs that engine on a board
    behind ``port`` (:func:`~robohw.dynamics.forward.board.forward_on_board`; ``port`` is
    refused with any other backend). The float backend's rows are certified with
    ``certified`` (their validity unchanged)."""
    check_choice("backend", backend, (*FORWARD_BACKENDS, FORWARD_BOARD))
    if (port is not None) != (backend == FORWARD_BOARD):
        raise ValueError("port is the board backend's: it needs backend 'board'"
                         if port is not None else "the board backend needs a port")
    finite, (q, qd, tau) = state_rows(robot, q=q, qd=qd, tau=tau)
    proven = used = None
    if backend == "float":
        with np.errstate(all="ignore"):     # an acceleration beyond float64 is not_finite
            qdd = articulated_body_accelerations(robot, q, qd, tau)
        failures, hardware, promise, formulation = [], robot, None, None
    else:
        plan = plan or _PLANS.get((robot_digest(robot), width, promise),
                                  lambda: certified_plan(robot, width, promise))
        qdd, failures, proven, used = _model(robot, q, qd, tau, plan, backend, interval,
                                             progress, port)
        hardware, certified, formulation = plan.robot, True, plan.formulation
    finite = finite & finite_rows(qdd)
    bounds = None
    if certified:
        bounds = certificate_bounds(hardware, finite, q, qd, tau, qdd)
        if promise is not None:
            failures.append(("not_certified", ~(bounds <= promise * _limits(hardware)).all(-1)))
    valid, reason = row_reasons(len(q), [(NOT_FINITE, ~finite), *failures])
    return Accelerations(keep_valid(qdd, valid), valid, reason, bounds, promise, used, proven,
                         formulation)


def certificate_bounds(robot, rows, q, qd, tau, qdd):
    """``(B, N)``: the certified bounds of accelerations ``qdd`` on the ``rows`` (a ``(B,)``
    mask; others ``inf``) of the states ``q``, ``qd``, ``tau``
    (:func:`~robohw.dynamics.forward.certificate.certify`; the hardware form of ``robot`` is
    certified)."""
    from robohw.robots.loading import hardware_robot
    bounds = np.full(qdd.shape, np.inf)
    if rows.any():
        got = certify(hardware_robot(robot, terms=()), q[rows], qd[rows], tau[rows], qdd[rows])
        bounds[rows] = got.bounds
    return bounds


# This run's models (the API called in a loop plans each once).
_PLANS = Held(4)


def _model(robot, q, qd, tau, plan, backend="model", interval=None, progress=None, port=None):
    """:func:`solve_forward` by the bit-exact model ``plan``, or by the engine built at its
    width (``backend`` ``rtl``, ``compiled`` or ``board``): ``(qdd, failures, bounds,
    width)``."""
    from robohw.dataflow.plan import checked_model_codes, in_bounds
    from robohw.dynamics.forward.codec import decode_accelerations, encode_forward
    from robohw.dynamics.forward.plan import MAX_TRIG_WIDTH
    from robohw.support.joints import angles_fit
    fits = angles_fit(robot, q, min(plan.width, MAX_TRIG_WIDTH))
    q = np.where(fits[:, None], q, 0.0)     # computed, then not valid
    codes = encode_forward(plan, q, qd, tau)
    if backend == "model":
        out, passed = checked_model_codes(plan, codes)
        inside = in_bounds(plan, codes)
    else:
        out, inside, passed = _engine(plan, codes, backend, interval, progress, port)
    with np.errstate(all="ignore"):
        qdd = decode_accelerations(plan, out)
    bounds = tuple(plan.output_bounds[k] for k in range(1, robot.dof + 1)) \
        if plan.proven else None
    return qdd, [("out_of_format", ~fits), ("outside_limits", ~inside),
                 ("beyond_acceleration_limits", ~passed)], bounds, plan.width


def _engine(plan, codes, backend, interval, progress, port=None):
    """``(out, in_bounds, checked)`` of the payload ``codes`` through the engine at ``plan``'s
    robot and width, by ``backend`` (``board``: behind ``port``)."""
    from robohw.dynamics.forward.codec import acceleration_codes
    from robohw.hw.payload import payload_rows
    payloads = payload_rows(codes)
    if backend == FORWARD_BOARD:
        from robohw.dynamics.forward.board import forward_on_board
        outputs = forward_on_board(plan, payloads, port, interval, progress)
    else:
        outputs = _simulated(plan, payloads, backend, interval, progress)
    flags = [np.array([o[flag] for o in outputs], dtype=bool)
             for flag in ("in_bounds", "checked")]
    return acceleration_codes(plan, outputs), *flags


def _simulated(plan, payloads, backend, interval, progress):
    """The output payloads of ``payloads`` through the engine of ``plan`` simulated by
    ``backend`` (``rtl`` or ``compiled``)."""
    from robohw.dynamics.forward.engine import ForwardDynamicsEngine, forward_interval
    from robohw.robots.toml_file import description_identity
    from robohw.sim.run import run_backend
    from robohw.support.progress import Progress
    dut = ForwardDynamicsEngine.for_plan(plan, interval=interval or forward_interval(plan))
    return run_backend(dut, payloads, backend, dut.progress_label(),
                       Progress(len(payloads), progress),
                       f"forward-dynamics {plan.formulation} width={plan.width} "
                       f"interval={dut.interval} {description_identity(plan.robot)}").outputs
