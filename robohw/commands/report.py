"""``robohw report``: measure every design and write the report."""

import os
import pathlib
import sys

from robohw.commands.arguments import integer, usage
from robohw.commands.paths import bad_folder, declare_file_outputs

__all__ = ["register", "run"]


def register(commands):
    report = commands.add_parser(
        "report", help="measure every design and write the report",
        epilog="example: robohw report --quick --out /tmp/report")
    report.add_argument("--out", default="report", metavar="DIR",
                        help="output folder (default: report)")
    report.add_argument("--quick", action="store_true",
                        help="fewer widths, vectors and simulated results (about a minute)")
    declare_file_outputs(report, "--results")
    report.add_argument("--results", metavar="FILE.md",
                        help="also write the results page here (make results: docs/results.md):"
                             " every row stamped with its commit and Verilog digest, stale "
                             "ones marked")
    report.add_argument("--table-only", action="store_true",
                        help="the table and the results page alone, without the plots and the "
                             "families' sections (seconds when the rows are cached)")
    report.add_argument("--jobs", type=integer("--jobs", 1, 64),
                        help="simulations and sections at a time, each in a process of its own "
                             "(default: the machine's cores)")
    report.add_argument("--verilator", action="store_true",
                        help="also measure the CORDICs' Verilator speed (adds ~2 min)")
    report.set_defaults(run=run)
    return report


def run(args):
    bad = bad_folder(args.out)
    if bad:
        return usage("report", bad)
    from robohw.report import write_report
    print(write_report(args.out, quick=args.quick, verilator=args.verilator,
                       results=args.results, table_only=args.table_only,
                       jobs=args.jobs or os.cpu_count() or 1))
    written = ", ".join(sorted(p.name for p in pathlib.Path(args.out).iterdir()))
    print(f"written to {args.out}/: {written}", file=sys.stderr)
    return 0
