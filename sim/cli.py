"""``robohw``: the command line.

Examples::

    robohw bench cordic                  # latency, throughput, simulator speeds
    robohw bench cordic --widths 16 --no-verilator
    robohw report                        # measure everything, write report/
    robohw report --quick --out /tmp/r
"""

import argparse
import json
import sys

__all__ = ["main"]


def _widths(text):
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"widths must be integers separated by commas, not {text!r}")
    if any(not 4 <= w <= 40 for w in widths):
        raise argparse.ArgumentTypeError(f"widths must be in [4, 40], not {text!r}")
    return widths


def _parser():
    parser = argparse.ArgumentParser(
        prog="robohw", description="Cycle-accurate hardware for robot computations.",
        epilog="example: robohw bench cordic --widths 16,24 --no-verilator",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    bench = commands.add_parser(
        "bench", help="benchmark a design family",
        epilog="example: robohw bench cordic --widths 16 --no-verilator")
    bench.add_argument("design", choices=["cordic"], help="what to benchmark")
    bench.add_argument("--widths", type=_widths, default=(16, 24, 32),
                       help="data widths, comma-separated (default 16,24,32)")
    bench.add_argument("--no-verilator", action="store_true",
                       help="skip the Verilator runs (each build takes ~10 s)")
    bench.add_argument("--json", metavar="FILE", help="also write the rows as JSON")

    report = commands.add_parser(
        "report", help="measure every design and write the report",
        epilog="example: robohw report --quick --out /tmp/report")
    report.add_argument("--out", default="report", metavar="DIR",
                        help="output folder (default: report)")
    report.add_argument("--quick", action="store_true", help="fewer widths and vectors")
    report.add_argument("--no-verilator", action="store_true", help="skip the Verilator runs")
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        if args.command == "bench":
            from sim.cordic_bench import bench_cordic, format_bench
            rows = bench_cordic(args.widths, verilator=not args.no_verilator)
            print(format_bench(rows))
            if args.json:
                with open(args.json, "w") as file:
                    json.dump(rows, file, indent=1)
        elif args.command == "report":
            from sim.cordic_report import write_cordic_report
            print(write_cordic_report(args.out, quick=args.quick,
                                      verilator=not args.no_verilator))
            print(f"written: {args.out}/cordic.md, {args.out}/cordic.json", file=sys.stderr)
    except OSError as error:
        print(f"robohw: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
