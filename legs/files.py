"""``robohw platform``: parallel-manipulator poses, states and leg lengths from CSV to CSV.

Columns (any order in the input; a planar platform's in brackets):

- ``ik``: IN ``x,y,z,roll,pitch,yaw`` [``x,y,phi``] (m, rad; ``R = Rz(yaw) Ry(pitch)
  Rx(roll)``), OUT ``rho1..rho6`` [``rho1..rho3``] (m).
- ``jacobian``: IN as ``ik``; OUT the rows of ``K / rho`` (``k{leg}_{column}``: ``rho_dot =
  (K / rho) t``, ``t = (wx, wy, wz, vx, vy, vz)`` [``(wz, vx, vy)``]) and ``cond``, its
  2-norm condition number.
- ``dynamics``: IN the pose, then ``vx,vy,vz,wx,wy,wz,dvx,dvy,dvz,dwx,dwy,dwz``
  [``vx,vy,wz,dvx,dvy,dwz``]: the platform origin's velocity, the angular velocity and their
  derivatives, base frame; OUT ``f1..f6`` [``f1..f3``], the actuators' forces along the legs
  (N, positive extending), gravity included.
- ``fk``: IN ``rho1..rho6`` [``rho1..rho3``] (and, with ``guess="columns"``, each row's
  starting pose ``guess_x..guess_yaw`` [``guess_x,guess_y,guess_phi``]); OUT the pose (pitch
  in [-pi/2, pi/2], the other angles in (-pi, pi]) and ``iterations``. Newton-Raphson gives
  the solution whose basin holds the row's start: from the platform's home, a given pose,
  each row's own (``"columns"``) or the previous row's answer (``"previous"``, for
  trajectories); where the lengths admit several poses (assembly modes), a start far from
  the wanted pose can give another one, with every leg right.

Every OUT ends with ``valid`` (and ``reason`` on request). A row is ``valid = 0`` with zeros
when a leg is outside its stroke (``outside_limits``), when its pose is near a singularity
by the one rule of every command and backend (:mod:`robohw.legs.singularity`: the condition
number of ``K / rho`` times the backend's unit error beyond 1e-3, or beyond ``--max-cond``;
``near_singular``), or when forward kinematics does not converge (``unreachable``); the first
of :data:`REASONS` that applies is the row's reason, after ``not_finite`` (a value of the row, or
a result with no other reason, that is not finite). Long files show progress on a
terminal.

Backends: ``float`` (the references) for every command; for ``ik``, ``jacobian`` and
``dynamics`` also the leg processors (:mod:`robohw.legs.ik_graph`,
:mod:`robohw.legs.dynamics_graph`): ``model`` (bit-exact), ``rtl`` (the hardware simulated
cycle by cycle: ``timing`` pipelined, word-serial or Gosselin's machine,
:mod:`robohw.legs.leg_machine`) and ``compiled`` (the same compiled by Verilator). There a
position outside the hardware's number format (beyond the platform's reach,
:func:`robohw.legs.ik_graph.platform_format`) or an angle too large for a binary angle
(2**(47 - width) turns or more) is ``out_of_format``, and a value the hardware flags as
overflowing, which only a leg longer than the format's range makes,
``outside_limits``; the ``cond`` column of the hardware's rows is computed in float64.
For ``fk`` the hardware backends run the servo loop (:mod:`robohw.legs.servo`, any timing): a
fixed number of Newton iterations a row, 1 to 8, each row from the previous valid answer, the
first from home; a row the iterations cannot solve is ``unreachable`` and leaves the estimate
where it was, as is a row whose pose leaves a leg more than
:data:`~robohw.legs.servo.SERVO_RESIDUAL_LSB` LSBs from its measured length (the hardware
computes the legs of its answer once more: the iterations did not converge; that answer is
the next row's start), lengths beyond the number format are ``out_of_format`` and skipped,
and ``iterations`` is that fixed number.
"""

import numpy as np

from robohw.hw.checks import check_choice
from robohw.hw.fixed import FixedFormat, angle_fits
from robohw.legs.designs import TIMINGS, command_design
from robohw.legs.dynamics_graph import (
    STATE_LIMITS,
    dynamics_format,
    dynamics_graph,
    dynamics_scale,
    rate_fields,
    reference_dynamics,
    state_codes,
    state_fields,
    state_inputs,
)
from robohw.legs.fk_graph import MAX_ITERATIONS, fk_format
from robohw.legs.ik_graph import leg_ik_graph, platform_format, pose_codes, pose_inputs
from robohw.legs.platform_kinematics import (
    FK_ITERATIONS,
    FK_TOLERANCE,
    forward_kinematics,
    inverse_kinematics,
    jacobian,
)
from robohw.legs.servo import SERVO_ITERATIONS, servo_model
from robohw.legs.singularity import condition_limit, condition_numbers
from robohw.robots.magnitudes import platform_largest_value
from robohw.robots.toml_file import description_identity
from robohw.sim.run import run_backend
from robohw.support.csv_table import read_columns, result_header, result_rows, write_rows
from robohw.support.progress import Progress
from robohw.support.validity import NOT_FINITE, finite_rows, keep_valid
from robohw.taskgraph.model import evaluate_model

__all__ = ["BACKENDS", "HARDWARE_COMMANDS", "TIMINGS", "COMMANDS", "GUESSES", "input_columns",
           "guess_columns", "output_columns", "read_platform_input", "solve_platform",
           "write_platform_output", "REASONS", "independent_rows", "platform_header",
           "platform_rows"]

BACKENDS = ("float", "model", "rtl", "compiled")
# The commands the leg processors compute.
HARDWARE_COMMANDS = ("ik", "jacobian", "dynamics", "fk")
# Rows solved at a time: progress between chunks (forward kinematics takes about 30 us a row).
CHUNK = 20_000
COMMANDS = ("ik", "jacobian", "dynamics", "fk")
# The first that applies is the row's reason.
REASONS = ("out_of_format", "unreachable", "near_singular", "outside_limits")


# The forward kinematics' starts besides a pose: each row's columns, the previous answer.
GUESSES = ("columns", "previous")


def guess_columns(platform):
    """The input columns of each row's starting pose (``guess="columns"``)."""
    return [f"guess_{field}" for field in platform.pose_fields]


def input_columns(platform, command, guess=None):
    """The input columns of ``command`` for ``platform`` (``guess="columns"``: fk's starts
    too)."""
    legs = [f"rho{k}" for k in range(1, len(platform.legs) + 1)]
    if command == "fk":
        return legs + (guess_columns(platform) if guess == "columns" else [])
    pose = list(platform.pose_fields)
    if command == "dynamics":
        return list(state_fields(platform))
    return pose


def output_columns(platform, command):
    """The result columns of ``command`` (``valid`` and ``reason`` follow)."""
    legs = range(1, len(platform.legs) + 1)
    if command == "ik":
        return [f"rho{k}" for k in legs]
    if command == "jacobian":
        dof = 6 if platform.spatial else 3
        return [f"k{i}_{j}" for i in legs for j in range(1, dof + 1)] + ["cond"]
    if command == "dynamics":
        return [f"f{k}" for k in legs]
    return list(platform.pose_fields) + ["iterations"]


def read_platform_input(path, platform, command, guess=None):
    """The input rows of ``command``: an ``(N, columns)`` float array (:func:`input_columns`)."""
    check_choice("command", command, COMMANDS)
    return read_columns(path, input_columns(platform, command, guess))


def _outside_stroke(platform, lengths):
    low = np.array([leg.stroke[0] for leg in platform.legs])
    high = np.array([leg.stroke[1] for leg in platform.legs])
    return np.any((lengths < low) | (lengths > high), axis=1)


def solve_platform(platform, command, rows, backend="float", *, width=24, timing="pipelined",
                   max_cond=None, guess=None, tolerance=FK_TOLERANCE, iterations=FK_ITERATIONS,
                   progress=None):
    """``(values, valid, reason)``: the result columns of ``command`` (zeros where not
    valid), and per row ``valid`` and ``reason`` (``ok`` or the first of :data:`REASONS`).
    ``max_cond`` replaces the singularity rule's limit (:mod:`robohw.legs.singularity`).
    ``guess`` (float ``fk``): where each row starts, a pose, ``"columns"`` (``rows`` then end
    with :func:`guess_columns`) or ``"previous"`` (module docstring). The float backend
    solves :data:`CHUNK` rows at a time, the hardware ones (``width``-bit ports, ``timing``
    of :data:`TIMINGS`) all at once; progress on ``progress`` (a terminal)."""
    check_choice("backend", backend, BACKENDS)
    check_choice("command", command, COMMANDS)
    if max_cond is not None and not max_cond >= 1:
        raise ValueError(f"max_cond must be at least 1, not {max_cond!r}")
    check_choice("timing", timing, TIMINGS)
    rows = np.asarray(rows, dtype=float)
    finite = finite_rows(rows)
    with np.errstate(all="ignore"):     # a value beyond float64 is never valid (below)
        values, valid, reason = _solved(platform, command, np.where(
            finite[:, None], rows, 0.0), backend, width, timing, max_cond, guess, tolerance,
            iterations, progress)
    # Not finite: a row's input first; a result that is not and no other reason says why.
    # Such a row is zeros (the others keep the columns _solved keeps, fk's iterations).
    results = finite_rows(values)
    reason = np.where(finite, reason, NOT_FINITE)
    reason = np.where(valid & ~results, NOT_FINITE, reason)
    valid = valid & finite & results
    return keep_valid(values, finite & results), valid, reason.astype(object)


def _solved(platform, command, rows, backend, width, timing, max_cond, guess, tolerance,
            iterations, progress):
    """:func:`solve_platform` on finite rows."""
    if backend != "float":
        return _solved_in_hardware(platform, command, rows, backend, width, timing, max_cond,
                                   guess, iterations, progress)
    return _solved_in_float(platform, command, rows, max_cond, guess, tolerance, iterations,
                            progress)


def _solved_in_hardware(platform, command, rows, backend, width, timing, max_cond, guess,
                        iterations, progress):
    """:func:`solve_platform` by a hardware backend."""
    if command not in HARDWARE_COMMANDS:
        raise ValueError(f"the {backend} backend computes {', '.join(HARDWARE_COMMANDS)} "
                         f"only so far; {command} is float")
    if command == "fk":
        if guess is not None:
            raise ValueError("--guess applies to the float backend: the servo loop "
                             "starts from home and then from each row's answer")
        return _hardware_fk(platform, rows, backend, width, iterations, timing, max_cond,
                            progress)
    if command == "dynamics":
        return _hardware_dynamics(platform, rows, backend, width, timing, max_cond, progress)
    return _hardware(platform, command, rows, backend, width, timing, max_cond, progress)


def _solved_in_float(platform, command, rows, max_cond, guess, tolerance, iterations,
                     progress):
    """:func:`solve_platform` by the float backend, in chunks of :data:`CHUNK` rows."""
    if command == "fk" and isinstance(guess, str):
        check_choice("guess", guess, GUESSES)
        if guess == "columns":
            legs = len(platform.legs)
            rows, guess = rows[:, :legs], rows[:, legs:]
        else:
            return _previous_fk(platform, rows, max_cond, tolerance, iterations,
                                Progress(len(rows), progress))
    bar = Progress(len(rows), progress)
    parts = []
    for first in range(0, len(rows), CHUNK):
        start = guess[first:first + CHUNK] if np.ndim(guess) == 2 else guess
        parts.append(_solve(platform, command, rows[first:first + CHUNK], max_cond, start,
                            tolerance, iterations))
        bar.update(min(first + CHUNK, len(rows)), f"platform {command} rows")
    if not parts:                    # a file of a header alone
        columns = len(output_columns(platform, command))
        return np.zeros((0, columns)), np.zeros(0, dtype=bool), np.zeros(0, dtype=object)
    return tuple(np.concatenate(column) for column in zip(*parts))


def _previous_fk(platform, lengths, max_cond, tolerance, iterations, bar):
    """Forward kinematics along a trajectory: each row from the previous valid answer, the
    first from home (as the hardware's servo loop does)."""
    start = np.asarray(platform.home, dtype=float)
    values, valid, reason = [], [], []
    fields = len(platform.pose_fields)
    for k in range(len(lengths)):
        row = _solve(platform, "fk", lengths[k:k + 1], max_cond, start, tolerance, iterations)
        for out, got in zip((values, valid, reason), row):
            out.append(got)
        if row[1][0]:
            start = row[0][0, :fields]
        if k % 1000 == 999 or k == len(lengths) - 1:
            bar.update(k + 1, "platform fk rows, each from the one before")
    if not values:
        return np.zeros((0, fields + 1)), np.zeros(0, dtype=bool), np.zeros(0, dtype=object)
    return tuple(np.concatenate(column) for column in (values, valid, reason))


def _solve(platform, command, rows, max_cond, guess, tolerance, iterations):
    count = len(rows)
    reason = np.full(count, "ok", dtype=object)

    def mark(flags, why):            # the first reason that applies stays
        reason[flags & (reason == "ok")] = why

    pose_columns = len(platform.pose_fields)
    if command == "fk":
        poses, steps, why = forward_kinematics(platform, rows, guess=guess,
                                               tolerance=tolerance, iterations=iterations)
        for name in REASONS:
            mark(why == name, name)
        limit = condition_limit("float", tolerance=tolerance, shortest=_shortest(platform),
                                max_cond=max_cond)
        mark(condition_numbers(jacobian(platform, poses)[1]) > limit, "near_singular")
        values, lengths = np.column_stack([poses, steps]), rows
    else:
        poses = rows[:, :pose_columns]
        lengths, k_rows = jacobian(platform, poses)
        condition = condition_numbers(k_rows)
        if command == "ik":
            values = lengths
        elif command == "jacobian":
            values = np.column_stack([k_rows.reshape(count, -1), condition])
        else:
            values, condition = reference_dynamics(platform, rows)
            condition = np.where(np.isfinite(condition), condition, np.inf)
        mark(condition > condition_limit("float", max_cond=max_cond), "near_singular")
    # Only a division by a zero length or a singular matrix makes infinities.
    mark(~np.all(np.isfinite(values), axis=1), "near_singular")
    mark(_outside_stroke(platform, lengths), "outside_limits")
    valid = reason == "ok"
    kept = np.zeros(values.shape[1], dtype=bool)
    if command == "fk":
        kept[-1] = True              # the iterations, of a failure too
    values = np.where(valid[:, None] | kept, values, 0.0)
    return values, valid, reason


def _through(dut, codes, names, backend, what, identity, progress):
    """``(valid, codes (N, len(names)))``: the payload ``codes`` (``{field: int64 array}``)
    through ``dut`` on ``backend`` (:func:`robohw.sim.run.run_backend`; ``identity`` is the
    compiled build's cache key), the outputs ``names`` and neither ``unreachable`` nor (the
    servo loop's) ``unconverged``."""
    count = len(next(iter(codes.values())))
    payloads = [{name: int(column[k]) for name, column in codes.items()} for k in range(count)]
    run = run_backend(dut, payloads, backend, f"{what} through the {dut.latency}-cycle "
                                              f"{type(dut).__name__}",
                      Progress(count, progress), identity)
    valid = np.array([not (o["unreachable"] or o.get("unconverged", 0)) for o in run.outputs],
                     dtype=bool)
    return valid, np.array([[o[name] for name in names] for o in run.outputs],
                           dtype=np.int64).reshape(-1, len(names))


def _design(platform, command, width, timing, iterations=SERVO_ITERATIONS):
    """The hardware of ``command`` for ``platform`` at ``width``-bit ports on ``timing``'s
    processors, built through its design (:func:`robohw.legs.designs.command_design`), without
    a tag."""
    return command_design(command, timing, iterations=iterations).hardware(platform, width,
                                                                           tag_width=0)


def _sized(platform, size, *args):
    """``size(platform, *args)``: the hardware's scale or number formats sized for
    ``platform``. A platform file's finite numbers whose products pass float64 there are one
    line naming its largest value, not a traceback."""
    try:
        return size(platform, *args)
    except OverflowError:
        raise ValueError(f"{platform.source or platform.name}: its numbers overflow float64 in "
                         f"the hardware's scales and formats (its largest value: "
                         f"{platform_largest_value(platform)})") from None


def _shortest(platform):
    """The shortest leg the platform's strokes allow (m)."""
    return min(leg.stroke[0] for leg in platform.legs)


def _near_singular(platform, poses, backend, width, max_cond):
    """Rows whose pose's float64 condition number breaks the singularity rule at ``width``
    bits (:mod:`robohw.legs.singularity`)."""
    condition = condition_numbers(jacobian(platform, poses)[1])
    return condition > condition_limit(backend, width, max_cond=max_cond)


def _hardware(platform, command, poses, backend, width, timing, max_cond, progress):
    """The leg lengths (and the rows of ``K / rho``) by the leg processors: the bit-exact
    model, or the pipeline by :func:`robohw.sim.run.run_backend`."""
    count, legs = len(poses), len(platform.legs)
    jacobian_rows = command == "jacobian"
    graph = leg_ik_graph(platform, jacobian=jacobian_rows)
    formats = _sized(platform, platform_format, width)
    real = FixedFormat(width, formats["frac_bits"])
    position = 3 if platform.spatial else 2
    in_format = real.fits(poses[:, :position]).all(-1) & \
        angle_fits(poses[:, position:], width).all(-1)
    rows = np.flatnonzero(in_format)
    names = list(graph.outputs)
    values, flagged = np.zeros((count, len(names))), np.zeros(count, dtype=bool)
    if backend == "model":
        out, valid, _ = evaluate_model(graph, pose_inputs(platform, poses[rows]), **formats)
        values[rows] = np.stack([out[name] for name in names], -1)
    else:
        dut = _design(platform, command, width, timing)
        valid, codes = _through(dut, pose_codes(platform, poses[rows], width), names, backend,
                                "poses", f"platform-{command} {timing} width={width} "
                                         f"{description_identity(platform)}", progress)
        values[rows] = real.to_float(codes)
    flagged[rows] = ~valid
    lengths = values[:, [names.index(f"rho{i}") for i in range(1, legs + 1)]]
    reason = np.full(count, "ok", dtype=object)
    reason[~in_format] = "out_of_format"
    if jacobian_rows:
        columns = 6 if platform.spatial else 3         # a row's: (w, v); planar (wz, vx, vy)
        k_rows = values[:, [names.index(name) for name in output_columns(platform, command)
                            if name != "cond"]].reshape(count, legs, columns)
        values = np.column_stack([k_rows.reshape(count, legs * columns),
                                  condition_numbers(k_rows)])
    else:
        values = lengths
    near = _near_singular(platform, poses, backend, width, max_cond)
    reason[(reason == "ok") & ~flagged & near] = "near_singular"
    reason[(reason == "ok") & (flagged | _outside_stroke(platform, lengths))] = "outside_limits"
    valid = reason == "ok"
    return np.where(valid[:, None], values, 0.0), valid, reason


def _hardware_dynamics(platform, states, backend, width, timing, max_cond, progress):
    """Actuator forces by the leg processors and the platform solve
    (:mod:`robohw.legs.dynamics_graph`): the bit-exact model, or the pipeline by
    :func:`robohw.sim.run.run_backend`. A state beyond the number format never reaches them; a
    state beyond :data:`~robohw.legs.dynamics_graph.STATE_LIMITS` is ``outside_limits``; the
    condition number is the float reference's, as the float backend reports it."""
    count, legs = len(states), len(platform.legs)
    pose, dof = len(platform.pose_fields), len(rate_fields(platform))
    scale = _sized(platform, dynamics_scale)
    formats = _sized(platform, dynamics_format, width)
    real = FixedFormat(width, formats["frac_bits"])
    position = 3 if platform.spatial else 2
    inputs = state_inputs(platform, states, scale)
    scaled = np.column_stack(list(inputs.values()))
    in_format = real.fits(np.delete(scaled, np.s_[position:pose], axis=1)).all(-1) & \
        angle_fits(states[:, position:pose], width).all(-1)
    rows = np.flatnonzero(in_format)
    graph = dynamics_graph(platform, scale)
    names = [f"f{i}" for i in range(1, legs + 1)]
    forces, flagged = np.zeros((count, legs)), np.zeros(count, dtype=bool)
    if backend == "model":
        out, valid, _ = evaluate_model(graph, {n: v[rows] for n, v in inputs.items()},
                                       **formats)
        forces[rows] = np.stack([out[name] for name in names], -1) * scale.force
    else:
        dut = _design(platform, "dynamics", width, timing)
        valid, codes = _through(dut, state_codes(platform, states[rows], width, scale), names,
                                backend, "states", f"platform-dynamics {timing} width={width} "
                                                   f"{description_identity(platform)}", progress)
        forces[rows] = real.to_float(codes) * scale.force
    flagged[rows] = ~valid
    _, condition = reference_dynamics(platform, states)
    limits = STATE_LIMITS[platform.kind]
    outside = _outside_stroke(platform, inverse_kinematics(platform, states[:, :pose])) | \
        ~limits.within(platform, states[:, pose:pose + dof], states[:, pose + dof:])
    reason = np.full(count, "ok", dtype=object)
    reason[~in_format] = "out_of_format"
    near = ~(condition <= condition_limit(backend, width, max_cond=max_cond))
    # The hardware flags a state whose solve has no room (a pivot too small, a force beyond
    # the format): near-singular, unless the state is outside its limits anyway.
    reason[(reason == "ok") & (near | (flagged & ~outside))] = "near_singular"
    reason[(reason == "ok") & (flagged | outside)] = "outside_limits"
    valid = reason == "ok"
    return np.where(valid[:, None], forces, 0.0), valid, reason


def _hardware_fk(platform, lengths, backend, width, iterations, timing, max_cond, progress):
    """Poses of measured lengths by the servo loop (:mod:`robohw.legs.servo`): each row from
    the previous valid answer, the first from home; its bit-exact model, or
    :class:`~robohw.legs.servo.FkServo` by :func:`robohw.sim.run.run_backend`. Rows beyond the
    number format never reach it."""
    if not 1 <= iterations <= MAX_ITERATIONS:
        raise ValueError(f"--iterations: the hardware takes 1..{MAX_ITERATIONS} Newton steps "
                         f"a row, not {iterations}")
    count, fields = len(lengths), platform.pose_fields
    real = FixedFormat(width, _sized(platform, fk_format, width)["frac_bits"])
    in_format = real.fits(lengths).all(-1)
    rows = np.flatnonzero(in_format)
    codes, flagged = np.zeros((count, len(fields)), dtype=np.int64), np.zeros(count, bool)
    if backend == "model":
        bar = Progress(len(rows), progress)
        answers, valid = servo_model(platform, iterations, lengths[rows], width=width,
                                     on_row=lambda done: bar.update(done, "rows through the "
                                                                          "servo loop's model"))
        codes[rows] = np.stack([answers[f] for f in fields], -1).reshape(-1, len(fields))
    else:
        dut = _design(platform, "fk", width, timing, iterations)
        measured = real.from_float(lengths[rows])
        valid, codes[rows] = _through(
            dut, {f"rho_m{i + 1}": measured[:, i] for i in range(measured.shape[1])}, fields,
            backend, "rows", f"platform-fk servo {timing} iterations={iterations} "
                             f"width={width} {description_identity(platform)}", progress)
    flagged[rows] = ~valid
    poses = real.to_float(codes)
    angles = 3 if platform.spatial else 1
    # Turns to radians in (-pi, pi] (pitch stays within [-pi/2, pi/2] near home).
    poses[:, -angles:] = np.pi - np.remainder(np.pi - 2 * np.pi * poses[:, -angles:],
                                              2 * np.pi)
    reason = np.full(count, "ok", dtype=object)
    reason[~in_format] = "out_of_format"
    reason[(reason == "ok") & flagged] = "unreachable"
    reason[(reason == "ok") & _near_singular(platform, poses, backend, width, max_cond)] = \
        "near_singular"
    reason[(reason == "ok") & _outside_stroke(platform, lengths)] = "outside_limits"
    valid = reason == "ok"
    values = np.column_stack([np.where(valid[:, None], poses, 0.0), np.full(count, iterations)])
    return values, valid, reason


def independent_rows(command, backend="float", guess=None):
    """Whether each row of ``command`` is solved on its own, so a file may be solved in chunks:
    all but ``fk`` on the hardware (a servo loop, each row from the answer before it) and
    ``fk`` with ``guess="previous"``."""
    return not (command == "fk" and (backend != "float" or guess == "previous"))


def platform_header(platform, command, reasons=False):
    """``OUT.csv``'s header: :func:`output_columns`, ``valid`` (and ``reason``)."""
    return result_header(output_columns(platform, command), reasons)


def platform_rows(platform, command, values, valid, reason=None):
    """``OUT.csv``'s rows, :func:`platform_header`'s columns (``reason`` when given)."""
    cells = [int if name == "iterations" else float
             for name in output_columns(platform, command)]
    return result_rows(values, valid, reason, cells)


def write_platform_output(path, platform, command, values, valid, reason=None):
    """Write ``OUT.csv`` atomically (``valid`` last, or ``valid,reason``)."""
    write_rows(path, platform_header(platform, command, reason is not None),
               platform_rows(platform, command, values, valid, reason))
