"""``robohw dynamics-gradient``: the gradient of the joint torques of robot states from a CSV
file (dtau/dq and dtau/dqd)."""

from robohw.commands.file_command import FileTable, Solved, file_command, run_file_command

__all__ = ["register", "run"]


def register(commands):
    gradient = file_command(
        commands, "dynamics-gradient", "the gradient of the joint torques of robot states from "
        "a CSV file (dtau/dq and dtau/dqd)",
        "robohw dynamics-gradient --states s.csv --out grad.csv --robot ur5",
        "--states", "header q1..qN,qd1..qdN,qdd1..qddN (rad or m, per s, per s^2)",
        "written with the header dtau1_dq1,...,dtauN_dqN,dtau1_dqd1,...,dtauN_dqdN,valid "
        "(row-major: torque i by joint j; N m per rad, N m per rad/s)",
        ["float"], "the float64 reference, by complex step through the link-frame recursion "
        "(the hardware's model is to come)")
    gradient.add_argument("--reasons", action="store_true",
                          help="add a reason column, by precedence: ok, not_finite (a state "
                               "or a gradient that is not finite)")
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

    def table(robot):
        return FileTable(state_columns(robot.dof), gradient_header(robot.dof, args.reasons),
                         "states")

    def solve(robot, values):
        got = solve_gradient(robot, *split_states(values, robot.dof), args.backend)
        return Solved(len(got.dq), int(got.valid.sum()), gradient_rows(
            got.dq, got.dqd, got.valid, got.reason if args.reasons else None))
    return run_file_command(args, "dynamics-gradient", "states", table, solve)
