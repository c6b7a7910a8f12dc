"""``robohw platform ik|jacobian|dynamics|fk``: parallel manipulators (Gosselin): leg
lengths, Jacobians, actuator forces, forward kinematics, from a CSV file."""

import argparse
import math
import sys

from robohw.commands.arguments import CommandParser, integer, positive, usage
from robohw.commands.file_command import FileTable, Solved, run_file_command
from robohw.commands.options import HARDWARE, HARDWARE_WIDTH, add_quiet, inapplicable
from robohw.commands.paths import declare_file_outputs, declare_inputs

__all__ = ["register", "run"]

# The widest ports of the platform's graphs: their CCMs are the ports' width plus guard bits
# (robohw.legs.ik_graph.GUARD_BITS = 2; FK_GUARD_BITS, DYNAMICS_GUARD_BITS = 4) wide, at most
# robohw.cordic.config.MAX_WIDTH = 40 (tests/legs/test_platform_dynamics.py checks the sums).
PLATFORM_MAX_WIDTH = {"ik": 38, "jacobian": 38, "dynamics": 36, "fk": 36}


# Each action's (summary, input option, the input's header, the output's columns).
_ACTIONS = {
        "ik": ("leg lengths of platform poses", "--poses",
               "header x,y,z,roll,pitch,yaw (m, rad; planar x,y,phi)",
               "rho1..rho6 (m; planar rho1..rho3)"),
        "jacobian": ("the rows of K/rho and their condition number", "--poses",
                     "header x,y,z,roll,pitch,yaw (m, rad; planar x,y,phi)",
                     "k1_1..k6_6 (rho_dot = (K/rho) (w, v)), cond"),
        "dynamics": ("actuator forces of platform states (inverse dynamics)", "--states",
                     "the pose, then vx,vy,vz,wx,wy,wz,dvx,dvy,dvz,dwx,dwy,dwz (base frame; "
                     "planar x,y,phi,vx,vy,wz,dvx,dvy,dwz)",
                     "f1..f6 (N along the legs, positive extending; planar f1..f3)"),
        "fk": ("platform poses of leg lengths (forward kinematics, Newton-Raphson)",
               "--lengths", "header rho1..rho6 (m; planar rho1..rho3)",
               "x,y,z,roll,pitch,yaw,iterations (planar x,y,phi,iterations)"),
}
# What an action's hardware backends add to --backend's help.
_BACKEND_NOTES = {
    "dynamics": "; with the platform solve, for states inside the velocity and acceleration "
                "limits of the README (others: outside_limits)",
    "fk": "; a servo loop, each row from the answer before it"}


def register(commands):
    platform = commands.add_parser(
        "platform", help="parallel manipulators (Gosselin): leg lengths, Jacobians, actuator "
        "forces, forward kinematics",
        epilog="example: robohw platform ik --poses poses.csv --out legs.csv")
    actions = platform.add_subparsers(dest="action", metavar="ACTION", required=True,
                                      parser_class=CommandParser)
    for action, spec in _ACTIONS.items():
        command = _add_action(actions, action, *spec)
        if action == "fk":
            _add_fk_options(command)
        add_quiet(command)
    platform.set_defaults(run=run)
    return platform


def _add_action(actions, action, summary, source, source_help, out_help):
    """The parser of ``robohw platform ACTION`` with the options every action takes."""
    command = actions.add_parser(
        action, help=summary,
        epilog=f"example: robohw platform {action} {source} in.csv --out out.csv")
    declare_inputs(command, source, "--platform")
    declare_file_outputs(command, "--out")
    command.add_argument(source, required=True, metavar="IN.csv",
                         help=f"{source_help} ('-': standard input)")
    command.add_argument("--out", required=True, metavar="OUT.csv",
                         help=f"written with the header {out_help},valid ('-': "
                              f"standard output)")
    command.add_argument("--platform", default="hexapod", metavar="FILE.toml",
                         help="platform file or shipped name: hexapod (default), "
                              "planar_3rpr")
    command.add_argument("--backend", choices=["float", "model", "rtl", "compiled"],
                         default="float",
                         help="float64 reference, or the leg processors: bit-exact "
                              "model, Amaranth RTL, RTL compiled by Verilator "
                              "(default float)" + _BACKEND_NOTES.get(action, ""))
    top = PLATFORM_MAX_WIDTH[action]
    command.add_argument("--width", type=integer("--width", 16, top),
                         help=f"data width of the leg processors, 16..{top} (default "
                              f"{HARDWARE_WIDTH})")
    command.add_argument("--timing", choices=["pipelined", "word-serial", "machine"],
                         help="the leg processors' CCMs: pipelined (a pose per clock), "
                              "word-serial (a CORDIC each), or machine: a processor per "
                              "leg running its CCMs on one CORDIC, on a one-word bus "
                              "(default pipelined)")
    command.add_argument("--reasons", action="store_true",
                         help="add a reason column, by precedence: ok, not_finite (a "
                              "value or a result that is not finite), out_of_format "
                              "(hardware: beyond the number format), unreachable, "
                              "near_singular, outside_limits (a leg outside its stroke)")
    command.add_argument("--max-cond", type=positive("--max-cond"), metavar="C",
                         help="mark rows whose pose's condition number (of K/rho) exceeds "
                              "C invalid (near_singular); default: the singularity rule, "
                              "cond times the backend's unit error at most 1e-3 (float: "
                              "4.5e12; 24-bit hardware: 8,389)")
    return command


def _add_fk_options(command):
    """The forward kinematics' own options: where Newton-Raphson starts and when it stops."""
    command.add_argument("--guess", type=guess, metavar="POSE|columns|previous",
                         help="where Newton-Raphson starts, so which solution it "
                              "finds: a pose X,Y,Z,ROLL,PITCH,YAW (planar X,Y,PHI) "
                              "for every row; columns: each row's own, the input's "
                              "guess_x..guess_yaw; previous: the previous row's "
                              "answer (trajectories); default the platform's home")
    command.add_argument("--tolerance", type=positive("--tolerance"),
                         help="converged when every leg is this close to its "
                              "length, m (default 1e-12; at least 8 units in the "
                              "last place of the longest stroke, 8.9e-16 on the "
                              "hexapod)")
    command.add_argument("--iterations", type=integer("--iterations", 1, 1000),
                         help="Newton steps before giving up, 1..1000 (default 50); "
                              "hardware: the steps every row takes, 1..8 (default 2)")


def guess(text):
    """``--guess``: a pose of six (planar: three) finite numbers, ``columns`` or
    ``previous``."""
    if text in ("columns", "previous"):
        return text
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        values = []
    if len(values) not in (3, 6) or not all(map(math.isfinite, values)):
        raise argparse.ArgumentTypeError(f"--guess must be six finite numbers "
                                         f"x,y,z,roll,pitch,yaw (planar: three, x,y,phi), "
                                         f"columns or previous, not {text!r}")
    return values


def run(args):
    from robohw.legs import (
        FK_ITERATIONS,
        FK_TOLERANCE,
        SERVO_ITERATIONS,
        check_tolerance,
        independent_rows,
        input_columns,
        platform_header,
        platform_rows,
        solve_platform,
    )
    from robohw.robots.platform import PlatformFileError, load_platform
    source_option = {"fk": "lengths", "dynamics": "states"}.get(args.action, "poses")
    name = f"platform {args.action}"
    hardware = args.backend != "float"
    bad = inapplicable(args, [
        ("--width", hardware, HARDWARE), ("--timing", hardware, HARDWARE),
        *([("--tolerance", not hardware, "the float backend: the hardware runs its "
                                         "--iterations steps on every row"),
           ("--guess", not hardware, "the float backend: the hardware starts each row "
                                     "from the answer before it")]
          if args.action == "fk" else [])])
    if bad:
        return usage(name, bad)

    def load():
        platform = load_platform(args.platform)
        if args.action == "fk":
            if isinstance(args.guess, list) and len(args.guess) != len(platform.pose_fields):
                raise ValueError(f"--guess: a {platform.kind} platform's pose is "
                                 f"{','.join(platform.pose_fields)}, not {len(args.guess)} "
                                 f"numbers")
            if args.backend == "float":
                check_tolerance(platform, tolerance)      # before the file is read
        return platform

    options = {"max_cond": args.max_cond, "width": args.width or HARDWARE_WIDTH,
               "timing": (args.timing or "pipelined").replace("-", "_")}
    guess = getattr(args, "guess", None)
    tolerance = FK_TOLERANCE if getattr(args, "tolerance", None) is None else args.tolerance
    if args.action == "fk":
        iterations = args.iterations or (FK_ITERATIONS if args.backend == "float" else
                                         SERVO_ITERATIONS)
        options.update(guess=guess, tolerance=tolerance, iterations=iterations)

    def table(platform):
        return FileTable(input_columns(platform, args.action, guess),
                         platform_header(platform, args.action, args.reasons), "rows")

    def solve(platform, rows):
        values, valid, reason = solve_platform(platform, args.action, rows, args.backend,
                                               progress=sys.stderr, **options)
        return Solved(len(values), int(valid.sum()), platform_rows(
            platform, args.action, values, valid, reason if args.reasons else None))
    # A servo loop or --guess previous takes each row from the one before: one chunk.
    chunk = None if independent_rows(args.action, args.backend, guess) else sys.maxsize
    return run_file_command(args, name, source_option, table, solve, (PlatformFileError,),
                            load, chunk)
