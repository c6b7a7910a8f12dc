"""``robohw dynamics-gradient``: the gradient of the joint torques of robot states from a CSV
file (dtau/dq and dtau/dqd)."""

import sys

from robohw.commands.arguments import integer, usage
from robohw.commands.file_command import FileTable, Solved, file_command, run_file_command
from robohw.commands.options import HARDWARE, add_dynamics_width, inapplicable

__all__ = ["register", "run"]


def register(commands):
    gradient = file_command(
        commands, "dynamics-gradient", "the gradient of the joint torques of robot states from "
        "a CSV file (dtau/dq and dtau/dqd)",
        "robohw dynamics-gradient --states s.csv --out grad.csv --robot ur5 --backend model",
        "--states", "header q1..qN,qd1..qdN,qdd1..qddN (rad or m, per s, per s^2)",
        "written with the header dtau1_dq1,...,dtauN_dqN,dtau1_dqd1,...,dtauN_dqdN,valid "
        "(row-major: torque i by joint j; N m per rad, N m per rad/s)",
        ["float", "model", "rtl", "compiled"], "the float64 reference (complex step through "
        "the link-frame recursion), or the traced gradient (forward mode, every entry within "
        "its proven bound): its bit-exact model, its engine's Amaranth RTL, or the RTL "
        "compiled by Verilator")
    add_dynamics_width(gradient, "the narrowest whose every entry's bound is within 0.2 %% of "
                                 "its matrix's largest entry")
    gradient.add_argument("--ii", type=integer("--ii", 2, 1024),
                          help="the engine's initiation interval (rtl, compiled): cycles per "
                               "state, 2..1024 (default: the engine's for the robot, robohw "
                               "sim dynamics-gradient --robot's)")
    gradient.add_argument("--bounds", action="store_true",
                          help="add bound_dtau1_dq1,... after the entries: each entry's proven "
                               "bound (the model's; on a row not valid, zeros)")
    gradient.add_argument("--reasons", action="store_true",
                          help="add a reason column, by precedence: ok, not_finite (a state "
                               "or a gradient that is not finite), out_of_format (the model's "
                               "angle beyond its binary angles), outside_limits (the model's "
                               "state outside the robot file's limits)")
    gradient.set_defaults(run=run)
    return gradient


def run(args):
    from robohw.dynamics import (
        gradient_header,
        gradient_rows,
        solve_gradient,
        split_states,
        state_columns,
    )
    hardware = args.backend != "float"
    bad = inapplicable(args, [("--width", hardware, HARDWARE),
                              ("--bounds", hardware, f"{HARDWARE}: the float backend proves "
                                                     f"no bound"),
                              ("--ii", args.backend in ("rtl", "compiled"),
                               "the engine's backends (rtl, compiled)")])
    if bad:
        return usage("dynamics-gradient", bad)

    def table(robot):
        return FileTable(state_columns(robot.dof),
                         gradient_header(robot.dof, args.reasons, args.bounds), "states")

    def solve(robot, values):
        got = solve_gradient(robot, *split_states(values, robot.dof), args.backend,
                             width=args.width, interval=args.ii, progress=sys.stderr)
        return Solved(len(got.dq), int(got.valid.sum()), gradient_rows(
            got.dq, got.dqd, got.valid, got.reason if args.reasons else None,
            got.promise if args.bounds else None),
            None if got.promise is None else got.promise.sentence())
    return run_file_command(args, "dynamics-gradient", "states", table, solve)
