"""``robohw dynamics``: joint torques of robot states from a CSV file (inverse dynamics)."""

import argparse
import math
import sys

from robohw.commands.arguments import integer, positive, usage
from robohw.commands.file_command import FileTable, Solved, file_command, run_file_command
from robohw.commands.options import HARDWARE, add_dynamics_width, inapplicable

__all__ = ["register", "run"]


def wrench(text):
    """``--wrench``: six finite numbers ``FX,FY,FZ,MX,MY,MZ``."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        values = []
    if len(values) != 6 or not all(map(math.isfinite, values)):
        raise argparse.ArgumentTypeError(f"--wrench must be six finite numbers "
                                         f"FX,FY,FZ,MX,MY,MZ, not {text!r}")
    return values


def register(commands):
    dynamics = file_command(
        commands, "dynamics", "joint torques of robot states from a CSV file (inverse "
        "dynamics)", "robohw dynamics --states s.csv --out tau.csv --formulation scan",
        "--states", "header q1..qN,qd1..qdN,qdd1..qddN (rad or m, per s, per s^2)",
        "written with the header tau1,...,tauN,valid (N m or N)",
        ["float", "model", "rtl", "compiled"],
        "float64 reference, or a Newton-Euler design (--design, default the engine): its "
        "bit-exact model, its Amaranth RTL, or the RTL compiled by Verilator")
    dynamics.add_argument("--formulation", choices=["link", "scan", "lagrange"],
                          help="the float backend's: link-frame Newton-Euler, Lee & Chang's "
                               "base-coordinate scans, or H qdd + C qd + g (default link)")
    dynamics.add_argument("--wrench", type=wrench, metavar="FX,FY,FZ,MX,MY,MZ",
                          help="constant wrench the environment exerts on the tool, in the "
                               "last link's frame (N, N m; float backend only)")
    add_dynamics_width(dynamics, "the design's for the robot, robohw sim --robot's: the "
                                 "narrowest within 1e-4 of max |tau|; the CORDICs' sin and "
                                 "cos at up to 40")
    dynamics.add_argument("--design", choices=["pipelined", "array", "engine"],
                          help="the hardware backends' design: one pipelined datapath or Lee "
                               "& Chang's processor array (the paper's base-coordinate steps), "
                               "or the modulo-scheduled engine (link frames; default engine)")
    dynamics.add_argument("--processors", type=integer("--processors", 1, 64),
                          help="elements of the array, 1..64 (default: one per joint)")
    dynamics.add_argument("--network", choices=["direct", "shuffle"],
                          help="the array's interconnect: recursive-doubling links or an "
                               "Omega (inverse perfect shuffle) network (default direct)")
    dynamics.add_argument("--ii", type=integer("--ii", 2, 1024),
                          help="the engine's initiation interval: cycles per state, 2..1024 "
                               "(default: the engine's for the robot, robohw sim --robot's)")
    dynamics.add_argument("--bound-fraction", type=positive("--bound-fraction"),
                          help="the hardware backends' largest accepted share of the largest "
                               "torque the robot's limits allow for their proven error bound "
                               "(default 0.01, robohw.dynamics.inverse.accuracy.BOUND_FRACTION: a "
                               "design whose bound exceeds 1 %% of it is refused)")
    dynamics.add_argument("--bounds", action="store_true",
                          help="add bound1..boundN beside tau1..tauN: each torque's proven "
                               "bound (the hardware backends'; on a row not valid, zeros)")
    dynamics.add_argument("--reasons", action="store_true",
                          help="add a reason column, by precedence: ok, not_finite (a "
                               "state or a torque that is not finite), out_of_format (a "
                               "hardware backend's angle beyond its binary angles), "
                               "outside_limits (a hardware backend's state outside the robot "
                               "file's limits)")
    dynamics.set_defaults(run=run)
    return dynamics


def run(args):
    from robohw.dynamics import (
        BOUND_FRACTION,
        solve_dynamics,
        split_states,
        state_columns,
        torque_header,
        torque_rows,
    )

    hardware, array = args.backend != "float", args.design == "array"
    engine = args.design in (None, "engine")        # the default design takes its options
    bad = inapplicable(args, [
        ("--formulation", not hardware, "the float backend: the hardware computes its "
                                        "--design's Newton-Euler"),
        ("--wrench", not hardware, "the float backend: the hardware takes no tool wrench"),
        ("--width", hardware, HARDWARE),
        ("--design", hardware, HARDWARE),
        ("--bound-fraction", hardware, f"{HARDWARE}: the float backend has no error bound "
                                       f"to check"),
        ("--bounds", hardware, f"{HARDWARE}: the float backend proves no bound"),
        ("--processors", hardware and array, "--design array"),
        ("--network", hardware and array, "--design array"),
        ("--ii", hardware and engine, "--design engine")])
    if bad:
        return usage("dynamics", bad)

    def table(robot):
        return FileTable(state_columns(robot.dof),
                         torque_header(robot.dof, args.reasons, args.bounds), "states")

    def solve(robot, values):
        q, qd, qdd = split_states(values, robot.dof)
        fraction = BOUND_FRACTION if args.bound_fraction is None else args.bound_fraction
        got = solve_dynamics(robot, q, qd, qdd, args.backend, args.formulation or "link",
                             args.wrench, width=args.width,
                             design=args.design or "engine", processors=args.processors,
                             network=args.network, interval=args.ii, bound_fraction=fraction,
                             progress=sys.stderr)
        note = None if got.accuracy is None else got.accuracy.sentence()
        bounds = got.accuracy.bounds if args.bounds else None
        return Solved(len(got.tau), int(got.valid.sum()), torque_rows(
            got.tau, got.valid, got.reason if args.reasons else None, bounds), note)
    return run_file_command(args, "dynamics", "states", table, solve)
