"""``robohw ik``: inverse kinematics of hand poses from a CSV file."""

import sys

from robohw.commands.arguments import integer, usage
from robohw.commands.file_command import FileTable, Solved, file_command, run_file_command
from robohw.commands.options import HARDWARE, HARDWARE_WIDTH, inapplicable

__all__ = ["register", "run"]


def register(commands):
    ik = file_command(
        commands, "ik", "inverse kinematics of hand poses from a CSV file",
        "robohw ik --poses poses.csv --out joints.csv --backend model", "--poses",
        "header nx,ny,nz,ox,oy,oz,ax,ay,az,px,py,pz (metres)",
        "written with the header q1,...,q6,valid (radians)",
        ["float", "model", "rtl", "compiled"],
        "closed form, bit-exact model, Amaranth RTL, or the RTL compiled by Verilator")
    ik.add_argument("--graph", choices=["best", "paper"],
                    help="CCM graph of the hardware backends: the best decomposition or "
                         "the reconstruction of Lee & Chang's (default best)")
    ik.add_argument("--width", type=integer("--width", 16, 39),
                    help=f"data width of the hardware backends, 16..39 (default "
                         f"{HARDWARE_WIDTH})")
    ik.add_argument("--arm", choices=["right", "left"],
                    help="right: the wrist centre on the +x1 side of the shoulder (default)")
    ik.add_argument("--elbow", choices=["up", "down"],
                    help="up: sin of the elbow angle >= 0 (default)")
    ik.add_argument("--wrist", choices=["noflip", "flip"],
                    help="noflip: sin q5 >= 0 (default)")
    ik.add_argument("--all-branches", action="store_true",
                    help="eight rows per pose with a branch column 0-7 whose bits are arm "
                         "(4: left), elbow (2: down), wrist (1: flip); not with --arm, "
                         "--elbow, --wrist")
    ik.add_argument("--within-limits", action="store_true",
                    help="write each angle as its value inside the robot file's joint "
                         "limits (of its turns, the one nearest its angle in (-pi, pi]); a "
                         "solution with no such value is invalid, outside_limits")
    ik.add_argument("--reasons", action="store_true",
                    help="add a reason column, by precedence: ok, not_finite (a value or an "
                         "angle that is not finite), out_of_format, not_orthonormal (n, o, a "
                         "off a right-handed orthonormal frame by more than 1e-4), unreachable, "
                         "near_singular, outside_limits")
    ik.set_defaults(run=run)
    return ik


def run(args):
    from robohw.ik import (
        POSE_COLUMNS,
        PoseFileError,
        branch_index,
        joint_header,
        joint_rows,
        poses_from_inputs,
        solve_ik,
    )
    chosen = [f"--{name}" for name in ("arm", "elbow", "wrist") if getattr(args, name)]
    if args.all_branches and chosen:
        return usage("ik", f"--all-branches does not combine with {', '.join(chosen)}")
    hardware = args.backend != "float"
    bad = inapplicable(args, [("--graph", hardware, f"{HARDWARE}: float is the closed form"),
                              ("--width", hardware, HARDWARE)])
    if bad:
        return usage("ik", bad)

    def table(robot):
        return FileTable(POSE_COLUMNS, joint_header(reasons=args.reasons,
                                                    branches=args.all_branches), "rows")

    def solve(robot, values):
        poses = poses_from_inputs(values)
        if args.all_branches:
            import numpy as np
            branch = np.tile(np.arange(8), len(poses))
            poses = np.repeat(poses, 8, axis=0)
        else:
            branch = int(branch_index(-1 if args.arm == "left" else 1,
                                      -1 if args.elbow == "down" else 1,
                                      -1 if args.wrist == "flip" else 1))
        solution = solve_ik(robot, poses, args.backend, branch,
                            width=args.width or HARDWARE_WIDTH, graph=args.graph or "best",
                            within_limits=args.within_limits, progress=sys.stderr)
        return Solved(len(solution.q), int(solution.valid.sum()), joint_rows(
            solution, reasons=args.reasons, branches=args.all_branches))
    return run_file_command(args, "ik", "poses", table, solve, (PoseFileError,))
