"""``robohw dynamics``: robot states from CSV to joint torques in CSV, by any backend.

``IN.csv`` has the header ``q1..qN,qd1..qdN,qdd1..qddN`` (rad, rad/s, rad/s^2 for revolute
joints; m, m/s, m/s^2 for prismatic ones; any column order). ``OUT.csv`` has
``tau1..tauN,valid`` (``reason`` last when asked; N m or N: what each joint must exert, gravity
included). Backends: ``float`` (:mod:`robohw.dynamics.inverse.reference`, by the ``link``, ``scan``
or ``lagrange`` formulation), and the hardware's: ``model`` (the bit-exact model,
:mod:`robohw.dynamics.inverse.model`), ``rtl`` (the Amaranth design, simulated cycle by cycle) and
``compiled`` (the same design compiled by Verilator, :mod:`robohw.sim.compiled`), of any
design: ``pipelined`` (:class:`robohw.dynamics.NewtonEulerPipeline`), ``array`` (Lee &
Chang's processor array, :class:`robohw.dynamics.inverse.array.NewtonEulerArray`, on ``processors``
elements and a ``direct`` or ``shuffle`` network) or ``engine`` (the modulo-scheduled engine,
:class:`robohw.dynamics.inverse.engine.NewtonEulerEngine`, one state every ``interval`` cycles).

The hardware proves its torques for states within the robot file's position, velocity and
acceleration limits only, each within its bound (:mod:`robohw.dynamics.inverse.accuracy`; a design
whose bound exceeds the allowed share of the largest torque the limits allow is refused
before any row): a state outside them (a rate or acceleration beyond its limit by more than half
a step of its code: one within rounds to the limit's code, which the proven ranges cover) is
``valid = 0``, reason ``outside_limits``, with zeros, and the rest of the file is computed; so
is a state with an angle of 2**(47 - w) turns or more (``w`` the CORDICs' width), which float64
holds too coarsely for a binary angle, reason ``out_of_format``.
"""

from dataclasses import dataclass

import numpy as np

from robohw.dynamics.inverse.accuracy import BOUND_FRACTION, AccuracyPromise
from robohw.dynamics.inverse.reference import FORMULATIONS, inverse_dynamics
from robohw.hw.checks import check_choice
from robohw.robots.toml_file import robot_digest
from robohw.support.csv_table import read_columns, result_header, result_rows, write_rows
from robohw.support.held import Held
from robohw.support.validity import (
    NOT_FINITE,
    finite_rows,
    keep_valid,
    real_values,
    row_reasons,
)

__all__ = ["state_rows", "read_states", "write_torques", "solve_dynamics", "Torques", "BACKENDS",
           "DESIGNS", "REASONS", "state_columns", "split_states", "torque_header", "torque_rows",
           "board_digest", "board_design"]

# The reasons a row can have, in precedence order after "ok" (docs/conventions.md).
REASONS = ("ok", "not_finite", "out_of_format", "outside_limits")

BACKENDS = ("float", "model", "rtl", "compiled")
# The backends solve_dynamics takes beside the command's: a design on a board behind a port.
BOARD = "board"
DESIGNS = ("pipelined", "array", "engine")


def board_digest(design, robot, width, interval):
    """The digest a board holding ``design`` (a :data:`DESIGNS` name) for ``robot`` at
    ``width`` bits (and the engine's ``interval``) answers with
    (:func:`robohw.board.frames.design_digest`): the design, the robot's description and the
    formats."""
    from robohw.board.frames import design_digest
    from robohw.robots.toml_file import description_identity
    return design_digest(f"dynamics {design} width={width} interval={interval} "
                         f"{description_identity(robot)}")


def state_columns(dof):
    """The columns ``IN.csv`` must have: ``q1..qN,qd1..qdN,qdd1..qddN``."""
    return [f"{kind}{k}" for kind in ("q", "qd", "qdd") for k in range(1, dof + 1)]


def split_states(values, dof):
    """``(q, qd, qdd)``, each ``(rows, dof)``, of ``values`` in :func:`state_columns`'s
    order."""
    return values[:, :dof], values[:, dof:2 * dof], values[:, 2 * dof:]


def read_states(path, dof):
    """``(q, qd, qdd)``, each ``(rows, dof)``, from a CSV file (see the module docstring)."""
    return split_states(read_columns(path, state_columns(dof)), dof)


def torque_header(dof, reasons=False, bounds=False):
    """``OUT.csv``'s header: ``tau1..tauN`` (with ``bounds``, ``bound1..boundN``), ``valid``
    (and ``reason``)."""
    return result_header([f"tau{k}" for k in range(1, dof + 1)], reasons,
                         [f"bound{k}" for k in range(1, dof + 1)] if bounds else ())


def torque_rows(tau, valid, reason=None, bounds=None):
    """``OUT.csv``'s rows, :func:`torque_header`'s columns (``reason`` when given; ``bounds``:
    each joint's proven bound, written on the valid rows)."""
    return result_rows(tau, valid, reason, bounds=bounds)


def write_torques(path, tau, valid, reason=None):
    """Write ``OUT.csv`` (``tau1..tauN,valid``, and ``reason`` when given) atomically: a
    failure leaves no file behind."""
    write_rows(path, torque_header(tau.shape[1], reason is not None),
               torque_rows(tau, valid, reason))


def state_rows(robot, **arrays):
    """``(finite, arrays)``: a file command's state ``arrays`` (by name, each ``(rows, N)`` for
    ``robot``'s N joints; ``ValueError`` naming them all otherwise) as float64, with whether
    each row is finite; a row that is not holds zeros in every array (it comes out not
    valid)."""
    values = [np.atleast_2d(real_values(name, v)) for name, v in arrays.items()]
    if any(v.shape != (len(values[0]), robot.dof) for v in values):
        names, shapes = list(arrays), [str(v.shape) for v in values]
        raise ValueError(f"{', '.join(names[:-1])} and {names[-1]} must each have shape (rows, "
                         f"{robot.dof}), not {', '.join(shapes[:-1])} and {shapes[-1]}")
    finite = finite_rows(*values)
    return finite, [np.where(finite[:, None], v, 0.0) for v in values]


@dataclass
class Torques:
    """What :func:`solve_dynamics` gives: ``tau`` ``(rows, N)`` (zeros where not valid), per row
    ``valid`` and ``reason``, and a hardware backend's
    :class:`~robohw.dynamics.inverse.accuracy.AccuracyPromise` (``None`` for the float backend)."""
    tau: np.ndarray
    valid: np.ndarray
    reason: np.ndarray
    accuracy: "AccuracyPromise | None" = None


def solve_dynamics(robot, q, qd, qdd, backend="float", formulation="link", wrench=None, *,
                   width=None, design="engine", processors=None, network=None,
                   interval=None, bound_fraction=BOUND_FRACTION, progress=None, port=None):
    """The :class:`Torques` of the states by ``backend``: the reasons are, by precedence
    (:data:`REASONS`), ``not_finite`` for a state or a torque that is not finite,
    ``out_of_format`` for a hardware backend's angle no binary angle holds, ``outside_limits``
    for a hardware backend's state outside the robot's limits, else ``ok``. ``formulation``
    and ``wrench`` are the float backend's; the hardware (``design``, ``width`` bits; the
    array's ``processors``, default N, and ``network``, default ``direct``; the engine's
    ``interval``; ``None``: the design's defaults for the robot, ``robohw sim --robot``'s,
    :func:`~robohw.dynamics.inverse.designs.default_machine`) carries no tool load, and is refused
    (``ValueError``) where its proven bound exceeds ``bound_fraction`` of the largest torque the
    limits allow (:mod:`robohw.dynamics.inverse.accuracy`). The backend ``"board"`` runs the design
    on a board behind ``port`` (an open serial port, or
    :class:`~robohw.board.sim_port.SimulatedPort`; :class:`~robohw.board.driver.Board`), whose
    identity must be :func:`board_digest`'s; ``port`` is refused with any other backend."""
    check_choice("backend", backend, (*BACKENDS, BOARD))
    if (port is not None) != (backend == BOARD):
        raise ValueError("port is the board backend's: it needs backend 'board'"
                         if port is not None else "the board backend needs a port")
    check_choice("design", design, DESIGNS)
    if network is not None:
        from robohw.dynamics.inverse.network import NETWORKS
        check_choice("network", network, NETWORKS)
    if design != "array" and (processors is not None or network is not None):
        raise ValueError("processors and network are the array's: they need design 'array'")
    if design != "engine" and interval is not None:
        raise ValueError("interval is the engine's: it needs design 'engine'")
    network = network or "direct"
    check_choice("formulation", formulation, FORMULATIONS)
    finite, (q, qd, qdd) = state_rows(robot, q=q, qd=qd, qdd=qdd)
    if backend == "float":
        with np.errstate(all="ignore"):     # a torque beyond float64 is not_finite
            tau = inverse_dynamics(robot, q, qd, qdd, formulation, wrench)
        failures, accuracy = [], None
    else:
        if wrench is not None:
            raise ValueError(f"a wrench needs the float backend: the {backend} backend's "
                             f"hardware computes without a tool load")
        tau, failures, accuracy = _hardware(
            robot, q, qd, qdd, backend, design, width,
            {"processors": processors, "network": network, "interval": interval,
             "port": port}, bound_fraction, progress)
    valid, reason = row_reasons(len(q), [(NOT_FINITE, ~(finite & finite_rows(tau))),
                                         *failures])
    return Torques(keep_valid(tau, valid), valid, reason, accuracy)


def _hardware(robot, q, qd, qdd, backend, design, width, options, bound_fraction, progress):
    """:func:`solve_dynamics` by a hardware backend: ``(tau, failures, accuracy)``, the
    failures as :func:`robohw.support.validity.row_reasons` takes them. The machine is built
    through its design (:func:`robohw.dynamics.inverse.designs.machine_design`), as every flow
    builds it.
    Its modules are imported here: the float backend's command loads the references alone (a
    fast start)."""
    from robohw.dynamics.inverse.codec import decode_torques, encode_states, torque_codes
    from robohw.dynamics.inverse.designs import machine_design
    from robohw.dynamics.inverse.model import model_outputs
    from robohw.dynamics.inverse.pipeline import MAX_TRIG_WIDTH
    from robohw.hw.payload import payload_rows
    from robohw.robots.toml_file import description_identity
    from robohw.sim.run import run_backend
    from robohw.support.joints import angles_fit
    from robohw.support.progress import Progress
    plan, dut = _built(robot, backend, design, width, options, bound_fraction)
    # The angles' binary codes are the CORDICs' width (at most 40 bits; robohw.dynamics).
    fits = angles_fit(robot, q, min(plan.width, MAX_TRIG_WIDTH))
    q = np.where(fits[:, None], q, 0.0)     # computed, then not valid
    if backend == "model":
        out, valid = model_outputs(plan, encode_states(plan, q, qd, qdd))
    else:
        payloads = payload_rows(encode_states(plan, q, qd, qdd))
        if backend == BOARD:
            shown = Progress(len(payloads), progress)
            outputs = _on_board(dut, payloads, options["port"],
                                _digest_of(dut, design, robot, plan.width),
                                lambda done: shown.update(done, "on the board"))
            shown.update(len(payloads), "on the board", force=True)
        else:
            machine = machine_design(design, robot, processors=options["processors"],
                                     network=options["network"])
            outputs = run_backend(
                dut, payloads, backend, machine.progress_label(dut),
                Progress(len(payloads), progress),
                f"dynamics {design} width={plan.width} processors={options['processors']} "
                f"network={options['network']} "
                f"{f'interval={dut.interval} ' if design == 'engine' else ''}"
                f"{description_identity(robot)}").outputs
        out = torque_codes(plan, outputs)
        valid = np.array([o["in_bounds"] for o in outputs], dtype=bool)
    with np.errstate(all="ignore"):         # a torque beyond float64 is not_finite
        tau = decode_torques(plan, out)
    return tau, [("out_of_format", ~fits), ("outside_limits", ~valid)], plan.accuracy


# This run's last plans and machines by what builds them (:func:`_built`).
_BUILT = Held(4)


def _built(robot, backend, design, width, options, bound_fraction):
    """``(plan, dut)``: what the hardware backend ``backend`` runs ``design`` for ``robot`` on,
    once a run: the bit-exact model's plan (``dut`` ``None``; the engine's at no interval, its
    bits the same at every one), else the machine (with a board's tag for the board backend)
    and its plan. The width and the engine's interval given, or the design's defaults for the
    robot."""
    key = (robot_digest(robot), backend == "model", backend == BOARD, design, width,
           options["processors"], options["network"], options["interval"], bound_fraction)
    return _BUILT.get(key, lambda: _build(robot, backend, design, width, options,
                                          bound_fraction))


def _build(robot, backend, design, width, options, bound_fraction):
    machine, hardware, width, interval = _machine(robot, design, width, options,
                                                  backend != "model")
    if backend == "model":
        return machine.plan(hardware, width, interval, bound_fraction=bound_fraction), None
    from robohw.board.frame_decoder import TAG_BITS
    dut = machine.hardware(hardware, width, interval, bound_fraction=bound_fraction,
                           tag_width=TAG_BITS if backend == BOARD else 0)
    return dut.plan, dut


def _machine(robot, design, width, options, interval_needed=True):
    """``(machine, hardware robot, width, interval)`` of ``design`` for ``robot``: the width and
    the engine's interval given, or the design's defaults for the robot (the interval ``None``
    where not ``interval_needed``: the bit-exact model's)."""
    from robohw.dynamics.inverse.designs import default_machine, machine_design
    from robohw.robots.loading import hardware_robot
    machine = machine_design(design, robot, processors=options["processors"],
                             network=options["network"])
    interval = options["interval"]
    if width is None or (design == "engine" and interval is None and interval_needed):
        defaults = default_machine(design, robot)
        hardware = defaults.hardware_robot      # the robot's hardware form, converted once
        width = width or defaults.default_width
        if interval_needed:
            interval = interval or (defaults.default_fold if design == "engine" else None)
    else:
        hardware = hardware_robot(robot, terms=())
    return machine, hardware, width, interval


def _digest_of(dut, design, robot, width):
    return board_digest(design, robot, width, dut.interval if design == "engine" else None)


def board_design(robot, design="engine", *, width=None, interval=None, processors=None,
                 network=None, bound_fraction=BOUND_FRACTION):
    """``(dut, digest)``: the hardware of ``design`` (a :data:`DESIGNS` name) for ``robot``
    with a board's tag (:data:`robohw.board.frame_decoder.TAG_BITS` bits), as the board
    backend of :func:`solve_dynamics` talks to it, and its :func:`board_digest`. ``None``
    options are the design's defaults for the robot, as :func:`solve_dynamics`'s."""
    from robohw.board.frame_decoder import TAG_BITS
    check_choice("design", design, DESIGNS)
    if design != "engine" and interval is not None:
        raise ValueError("interval is the engine's: it needs design 'engine'")
    machine, hardware, width, interval = _machine(
        robot, design, width, {"processors": processors, "network": network or "direct",
                               "interval": interval})
    dut = machine.hardware(hardware, width, interval, bound_fraction=bound_fraction,
                           tag_width=TAG_BITS)
    return dut, _digest_of(dut, design, robot, width)


def _on_board(dut, payloads, port, digest, on_result=None):
    """The outputs of ``payloads`` on the board behind ``port`` holding ``dut``
    (:class:`~robohw.board.driver.Board`, its identity ``digest``); ``on_result`` hears the
    count received after each."""
    from robohw.board.core import frame_format_of
    from robohw.board.driver import Board
    return Board(port, frame_format_of(dut), digest=digest, outstanding=None).run(
        payloads, on_result)
