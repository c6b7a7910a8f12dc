"""``robohw sim``: simulate one design on a seeded workload, optionally dumping waveforms."""

import sys

from robohw.commands.arguments import ARGUMENT_ERRORS, integer, usage
from robohw.commands.options import (
    FOLD_HELP,
    ROBOT_LINKS,
    add_ii,
    add_robot,
    bad_fold,
    ii_as_fold,
    inapplicable,
)
from robohw.support.atomic import STANDARD_STREAM, write_json
from robohw.support.formats import versioned

__all__ = ["register", "run", "MAX_COUNT"]

# The most results one run simulates: a run holds its workload, outputs and model outputs in
# memory, up to 11 KB a result (dynamics-pipelined: 1.2 GB per 100,000, measured), so a
# million stay within the project's 24 GiB machine.
MAX_COUNT = 1_000_000


def register(commands):
    sim = commands.add_parser(
        "sim", help="simulate one design on a seeded workload, optionally dumping waveforms",
        lists_designs=True,
        epilog="example: robohw sim inertia-logdepth --count 8 --vcd inertia.vcd")
    sim.add_argument("design", metavar="DESIGN", help="one of the designs listed above")
    sim.add_argument("--backend", choices=["amaranth", "compiled", "verilator", "model"],
                     default="amaranth", help="Amaranth simulator, the RTL compiled by Verilator, "
                     "exported Verilog under cocotb + Verilator, or the bit-exact model alone "
                     "(default amaranth)")
    sim.add_argument("--width", type=integer("--width", 1),
                     help="data width, in the design's range (listed above; default: the "
                          "design's width)")
    sim.add_argument("--fold", type=integer("--fold", 1), help=FOLD_HELP)
    add_ii(sim)
    sim.add_argument("--count", type=integer("--count", 1, MAX_COUNT), default=32,
                     help=f"results to compute, 1..{MAX_COUNT:,} (default 32; a run holds its "
                          f"results in memory, up to 11 KB each)")
    sim.add_argument("--seed", type=integer("--seed", 0), default=0,
                     help="workload seed (default 0)")
    add_robot(sim, what="default: the design's own, the PUMA 560; the inertia and dynamics "
                        "designs")
    sim.add_argument("--vcd", metavar="FILE", help="write the waveform for GTKWave")
    sim.add_argument("--json", metavar="FILE", help="also write the result as JSON ('-': "
                     "to standard output, instead of the summary)")
    sim.set_defaults(run=run)
    return sim


def run(args):
    from robohw.flows.simulate import simulate
    if args.vcd == STANDARD_STREAM:
        return usage("sim", "--vcd needs a file: a waveform does not go to standard output")
    from robohw.registry import DESIGNS
    bad = args.design in DESIGNS and bad_fold([args.design], args.fold and [args.fold])
    if bad:
        return usage("sim", bad)
    bad = ii_as_fold(args, [args.design])
    if bad:
        return usage("sim", bad)
    from robohw.robots import RobotFileError
    bad = args.robot is None and inapplicable(args, ROBOT_LINKS)
    if bad:
        return usage("sim", bad)
    try:
        result = simulate(args.design, args.backend, args.width, args.count, args.seed,
                          args.vcd, fold=args.fold, robot=args.robot, base=args.base,
                          tip=args.tip)
    except (RobotFileError, *ARGUMENT_ERRORS) as error:
        print(f"robohw sim: {error}", file=sys.stderr)
        return 2
    if args.json != STANDARD_STREAM:         # with --json -, the JSON is the output
        for key, value in result.items():
            print(f"{key:16} {value['file'] if key == 'robot' else value}")
    if args.json:
        write_json(args.json, versioned(result))
    if result["backend"] != "model" and not result["equals_model"]:
        print("robohw sim: the outputs differ from the bit-exact model", file=sys.stderr)
        return 1
    return 0
