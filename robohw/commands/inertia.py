"""``robohw inertia``: manipulator inertia matrices of joint configurations from a CSV file."""

import sys

from robohw.commands.arguments import integer, usage
from robohw.commands.file_command import FileTable, Solved, file_command, run_file_command
from robohw.commands.options import HARDWARE, inapplicable

__all__ = ["register", "run"]


def register(commands):
    inertia = file_command(
        commands, "inertia", "manipulator inertia matrices of joint configurations from a CSV "
        "file", "robohw inertia --q q.csv --out h.csv --backend model --array logdepth", "--q",
        "header q1,...,qN (rad for revolute, m for prismatic joints)",
        "written with the header H11,H12,...,HNN,valid (row-major)",
        ["float", "model", "rtl", "compiled"],
        "float64 algorithm, bit-exact model, Amaranth RTL, or the RTL compiled by Verilator")
    inertia.add_argument("--array", choices=["linear", "logdepth"], default="linear",
                         help="O(N) systolic array (Table 1) or O(log2 N) recursive doubling "
                              "(Table 2) (default linear)")
    inertia.add_argument("--bounds", action="store_true",
                         help="add bound11..boundNN beside H11..HNN: each entry's proven "
                              "bound (the hardware backends'; on a row not valid, zeros)")
    inertia.add_argument("--reasons", action="store_true",
                         help="add a reason column, by precedence: ok, not_finite (a "
                              "configuration or a matrix that is not finite), out_of_format (a "
                              "hardware backend's angle beyond its binary angles), "
                              "outside_limits (a prismatic joint outside the limits its "
                              "formats are proven for)")
    inertia.add_argument("--width", type=integer("--width", 12, 31),
                         help="data width of the hardware backends, 12..31 (default: the "
                              "array's for the robot, robohw sim --robot's: the narrowest "
                              "within 1e-4 of max |H|)")
    inertia.add_argument("--fold", type=integer("--fold", 1),
                         help="cycles per configuration of the rtl and compiled backends' "
                              "array (default: the array's for the robot, the smallest that "
                              "fits an ECP5-85F; the model computes the same bits at every "
                              "fold)")
    inertia.set_defaults(run=run)
    return inertia


def run(args):
    from robohw.systolic import configuration_columns, matrix_header, matrix_rows, solve_inertia

    bad = inapplicable(args, [
        ("--width", args.backend != "float", HARDWARE),
        ("--bounds", args.backend != "float", f"{HARDWARE}: the float backend proves no "
                                              f"bound"),
        ("--fold", args.backend in ("rtl", "compiled"), "the rtl and compiled backends: the "
                                                        "model computes the same bits at "
                                                        "every fold")])
    if bad:
        return usage("inertia", bad)

    def table(robot):
        return FileTable(configuration_columns(robot.dof),
                         matrix_header(robot.dof, args.reasons, args.bounds), "configurations")

    def solve(robot, q):
        got = solve_inertia(robot, q, args.backend, args.array, width=args.width,
                            fold=args.fold, progress=sys.stderr)
        note = None if got.accuracy is None else got.accuracy.sentence()
        bounds = got.accuracy.bounds if args.bounds else None
        return Solved(len(got.h), int(got.valid.sum()),
                      matrix_rows(got.h, got.valid, got.reason if args.reasons else None,
                                  bounds), note)
    return run_file_command(args, "inertia", "q", table, solve)
