"""``robohw export``: Verilog, JSON sidecars and lint waivers of every top-level design."""

import os
import sys

from robohw.commands.arguments import (
    ARGUMENT_ERRORS,
    design_names,
    folds,
    integer,
    usage,
    width_list,
)
from robohw.commands.options import (
    FOLD_HELP,
    ROBOT_LINKS,
    add_ii,
    add_robot,
    bad_fold,
    bad_widths,
    folds_for,
    ii_as_fold,
    inapplicable,
)
from robohw.commands.paths import bad_folder
from robohw.hw.devices import DEVICES
from robohw.support.progress import Progress

__all__ = ["register", "run"]


def register(commands):
    export = commands.add_parser(
        "export", help="Verilog, JSON sidecars and lint waivers of every top-level design",
        lists_designs=True,
        epilog="example: robohw export --out verilog --designs cordic-pipelined --widths 16")
    export.add_argument("--out", required=True, metavar="DIR", help="output folder")
    export.add_argument("--designs", type=design_names, metavar="NAMES",
                        help="comma-separated design names (default: all; with --robot, the "
                             "inertia and dynamics designs)")
    add_robot(export, what="default: each design's own; generates the inertia and dynamics "
                           "designs for it")
    export.add_argument("--widths", type=width_list, metavar="WIDTHS",
                        help="comma-separated widths (default: each design's widths)")
    export.add_argument("--fold", type=folds, metavar="FOLDS",
                        help="comma-separated folds; " + FOLD_HELP)
    add_ii(export, several=True)
    export.add_argument("--jobs", type=integer("--jobs", 1, 64),
                        help="modules exported at a time, each in a process of its own "
                             "(default: the machine's cores)")
    export.add_argument("--no-lint", action="store_true",
                        help="skip verilator --lint-only -Wall")
    export.add_argument("--device", choices=list(DEVICES), metavar="DEVICE",
                        help="elaborate for this FPGA (" + ", ".join(DEVICES) + "): an ECP5's "
                        "folded designs keep their multipliers' registers in the DSP tiles, "
                        "M.primitives.v models the tiles for simulation (default: generic "
                        "Verilog)")
    export.set_defaults(run=run)
    return export


def run(args):
    bad = bad_folder(args.out)
    if bad:
        return usage("export", bad)
    from robohw.flows.export import LintError, export_all
    from robohw.registry import DESIGNS, robot_designs
    from robohw.robots import RobotFileError
    names = args.designs or (robot_designs(every=True) if args.robot else list(DESIGNS))
    bad = ii_as_fold(args, names) or bad_widths(names, args.widths) or \
        bad_fold(names, args.fold) or \
        (args.robot is None and inapplicable(args, ROBOT_LINKS))
    if bad:
        return usage("export", bad)
    fold_lists = folds_for(names, args.fold)
    total = sum(len(args.widths or DESIGNS[n].widths) * len(fold_lists[n]) for n in names)
    try:
        sidecars = export_all(args.out, names, args.widths, folds=fold_lists,
                              check_lint=not args.no_lint, progress=Progress(total),
                              device=args.device, robot=args.robot, base=args.base,
                              tip=args.tip, jobs=args.jobs or os.cpu_count() or 1)
    except LintError as error:
        print(f"robohw export: {error}", file=sys.stderr)
        return 1
    except (RobotFileError, *ARGUMENT_ERRORS) as error:
        print(f"robohw export: {error}", file=sys.stderr)
        return 2
    for s in sidecars:
        lint = "lint clean" if "lint" in s else "not linted"
        waived = ", ".join(s.get("lint", {}).get("waivers", {})) or "none"
        print(f"{args.out}/{s['module']}.v  latency {s['latency_cycles']} cycles, interval "
              f"{s['interval_cycles']}, {s['register_bits']:,} register bits, {lint} "
              f"(waived: {waived})")
    return 0
