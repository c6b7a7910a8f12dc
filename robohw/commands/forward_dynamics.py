"""``robohw forward-dynamics``: joint accelerations of robot states and torques from a CSV file
(forward dynamics)."""

import sys

from robohw.commands.arguments import integer, positive, usage
from robohw.commands.file_command import file_command, run_file_command
from robohw.commands.forward_files import forward_file
from robohw.commands.options import HARDWARE, add_dynamics_width, inapplicable

__all__ = ["register", "run"]


def register(commands):
    forward = file_command(
        commands, "forward-dynamics", "joint accelerations of robot states and torques from a "
        "CSV file (forward dynamics)",
        "robohw forward-dynamics --robot ur5 --states s.csv --out qdd.csv",
        "--states", "header q1..qN,qd1..qdN,tau1..tauN (rad or m, per s, N m or N)",
        "written with the header qdd1,...,qddN,valid (rad/s^2 or m/s^2)",
        ["float", "model", "rtl", "compiled"],
        "the articulated-body algorithm in float64, a bit-exact model (the articulated-body "
        "algorithm or the inertia matrix solved, traced in fixed point, every row certified), "
        "or the engine built from that model: its Amaranth RTL, or the RTL compiled by "
        "Verilator")
    add_dynamics_width(forward, "the narrowest of 28 to 35, then 40, 48 and 56, at which a "
                                "probe of states within the limits is certified within "
                                "--bound-fraction")
    forward.add_argument("--ii", type=integer("--ii", 2, 1024),
                         help="the engine's initiation interval (rtl, compiled): cycles per "
                              "state, 2..1024 (default: the engine's for the robot, robohw sim "
                              "--robot's)")
    forward.add_argument("--bound-fraction", type=positive("--bound-fraction"),
                         help="the hardware backends' promise: a row is valid only where each "
                              "acceleration's certified bound is within this share of its "
                              "joint's acceleration limit (default 0.001)")
    forward.add_argument("--bounds", action="store_true",
                         help="add bound1..boundN beside qdd1..qddN: each acceleration's "
                              "certified bound, from the row's inverse-dynamics residual "
                              "(every backend; on a row not valid, zeros; inf on a float row "
                              "beyond the limits the certificate covers)")
    forward.add_argument("--reasons", action="store_true",
                         help="add a reason column, by precedence: ok, not_finite (a state, a "
                              "torque or an acceleration that is not finite), out_of_format "
                              "(the model's angle beyond its binary angles), outside_limits "
                              "(the model's state or torque outside the robot file's limits), "
                              "beyond_acceleration_limits (the model's accelerations not "
                              "proven within the file's acceleration limits), not_certified "
                              "(the model's certified bound beyond --bound-fraction)")
    forward.set_defaults(run=run)
    return forward


def run(args):
    from robohw.dynamics import FORWARD_PROMISE
    model = args.backend != "float"
    engine = args.backend in ("rtl", "compiled")
    bad = inapplicable(args, [
        ("--width", model, HARDWARE),
        ("--ii", engine, "the engine's backends (rtl, compiled)"),
        ("--bound-fraction", model, f"{HARDWARE}: the float backend has no error bound "
                                    f"to check")])
    if bad:
        return usage("forward-dynamics", bad)
    promise = FORWARD_PROMISE if args.bound_fraction is None else args.bound_fraction
    table, solve = forward_file(args, args.backend, promise, progress=sys.stderr)
    return run_file_command(args, "forward-dynamics", "states", table, solve)
