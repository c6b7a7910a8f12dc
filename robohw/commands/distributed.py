"""``robohw distributed``: the thesis's distributed Newton-Euler, one computer per link, waiting
for its neighbours or predicting them."""

import math
import sys

from robohw.commands.arguments import ARGUMENT_ERRORS, integer, positive, usage
from robohw.commands.options import HARDWARE, inapplicable
from robohw.commands.paths import declare_file_outputs, declare_inputs
from robohw.support.atomic import write_json
from robohw.support.formats import versioned

__all__ = ["register", "run", "MAX_DURATION_S"]

# The longest trajectory a run takes: it holds every control sample, 0.36 MB a second of
# trajectory (measured: 61.6 MB at 2 s, 68.1 MB at 20 s), so an hour stays near 1.3 GB.
MAX_DURATION_S = 3600
# The hardware backends' width when --width is not given.
DEFAULT_WIDTH = 48


def register(commands):
    distributed = commands.add_parser(
        "distributed", help="the thesis's distributed Newton-Euler: one computer per link, "
        "waiting for its neighbours or predicting them",
        epilog="example: robohw distributed --trajectory 1 --duration 2 --scheme zero "
               "--out tau.csv")
    distributed.add_argument("--trajectory", type=int, choices=[1, 2], required=True,
                             help="the thesis's trajectory 1 (J0 to J3 through J1, J2) or 2 "
                                  "(J0 to J3, stopping at a via point)")
    distributed.add_argument("--duration", type=positive("--duration", MAX_DURATION_S),
                             required=True, metavar="SECONDS",
                             help=f"the trajectory's duration, up to {MAX_DURATION_S:,} s (the "
                                  f"thesis uses 8, 6, 4, 2, 1; a run holds every sample, "
                                  f"0.36 MB a second)")
    distributed.add_argument("--scheme", required=True, choices=[
        "serial", "v1", "v2", "zero", "first", "hybrid", "bejczy"],
        help="serial or parallel (v1, v2) with buffers, zero- or first-order prediction, the "
             "hybrid (Aa and An predicted), or Bejczy's simplified model")
    declare_inputs(distributed, "--robot")
    declare_file_outputs(distributed, "--out")
    distributed.add_argument("--robot", default="stanford_thesis", metavar="FILE.toml",
                             help="robot file or shipped name, six joints (default "
                                  "stanford_thesis)")
    distributed.add_argument("--backend", choices=["float", "model", "rtl", "compiled"],
                             default="float", help="float64 link computers, their bit-exact "
                             "model, their Amaranth RTL, or the RTL compiled by Verilator "
                             "(default float)")
    distributed.add_argument("--width", type=integer("--width", 24, 64),
                             help=f"data width of the hardware backends, 24..64 (default "
                                  f"{DEFAULT_WIDTH})")
    distributed.add_argument("--via-q6", type=float, default=None, metavar="DEGREES",
                             help="trajectory 2's via point, q6 (not printed; default 66.7, "
                                  "which reproduces Table 6.4; inverse kinematics gives 45)")
    distributed.add_argument("--out", metavar="OUT.csv", help="write t,tau1..tau6,"
                             "exact1..exact6,valid (s, N m or N)")
    distributed.add_argument("--json", metavar="FILE", help="also write the run's errors and "
                             "cycles as JSON")
    distributed.set_defaults(run=run)
    return distributed


def run(args):
    from robohw.distributed import VIA_Q6, hardware_runner, run_study, write_run
    from robohw.robots import RobotFileError, load_robot
    bad = inapplicable(args, [("--width", args.backend != "float", HARDWARE)])
    if bad:
        return usage("distributed", bad)
    if args.via_q6 is not None and (args.trajectory != 2 or not math.isfinite(args.via_q6)):
        return usage("distributed", "--via-q6 must be a finite number of degrees, with "
                                    "--trajectory 2 only")
    try:
        robot = load_robot(args.robot)
        hardware = hardware_runner(args.backend, sys.stderr) \
            if args.backend in ("rtl", "compiled") else None
        result = run_study(robot, args.trajectory, args.duration, args.scheme,
                           backend=args.backend,
                           via_q6=VIA_Q6 if args.via_q6 is None else args.via_q6,
                           width=args.width or DEFAULT_WIDTH, hardware=hardware)
    except (RobotFileError, *ARGUMENT_ERRORS) as error:
        return usage("distributed", error)
    cycles = result.cycles_per_sample
    print(f"trajectory {result.trajectory}, {result.duration:g} s, {result.scheme} "
          f"({result.backend}): {len(result.t)} samples, "
          f"{'no link computers' if cycles is None else f'{cycles} cycles per sample'}")
    print("joint    " + "".join(f"{k:>9}" for k in range(1, len(result.error_percent) + 1)))
    print("error %  " + "".join(f"{e:9.3f}" for e in result.error_percent))
    if not result.valid.all():
        print(f"{int((~result.valid).sum())} samples not valid (outside the proven ranges, or "
              f"depending on one that was); the error is over the valid ones", file=sys.stderr)
    if args.out:
        write_run(args.out, result)
    if args.json:
        write_json(args.json, versioned(result.as_json()))
    return 0
