"""``robohw transputer``: Zomaya & Morris's Lagrange-Euler on a T800 network, simulated."""

from robohw.commands.arguments import ARGUMENT_ERRORS, integer_list, positive, usage
from robohw.support.atomic import write_json
from robohw.support.formats import versioned
from robohw.support.plots import image_format
from robohw.support.progress import Progress

__all__ = ["register", "run"]


def processor_list(text):
    """``--processors``: slave counts from 1 to the transputer study's largest network."""
    from robohw.transputer import MAX_PROCESSORS
    return integer_list("--processors", 1, MAX_PROCESSORS)(text)


def register(commands):
    transputer = commands.add_parser(
        "transputer", help="Zomaya & Morris's Lagrange-Euler on a T800 network, simulated",
        epilog="example: robohw transputer --processors 1:16 --allocation lpt")
    transputer.add_argument("--processors", type=processor_list, default=[1, 3, 6, 7, 8],
                            metavar="M,...", help="slave counts, comma-separated or "
                            "START:STOP[:STEP], 1 to 64 (default 1,3,6,7,8, the paper's)")
    transputer.add_argument("--allocation", choices=["paper", "lpt", "optimal"],
                            default="paper", help="the paper's Tables 1-4 (1, 3, 6, 7, 8 "
                            "slaves), longest-processing-time, or least makespan by HiGHS "
                            "(default paper)")
    transputer.add_argument("--costs", choices=["predictive", "calibrated"],
                            default="predictive", help="subtask costs from the work they do "
                            "on a T800, or fitted to the paper's Tables 5-6 (default "
                            "predictive)")
    transputer.add_argument("--link-mbit", type=int, choices=[10, 20], default=20,
                            help="T800 link speed in Mbit/s (default 20)")
    transputer.add_argument("--real", type=int, choices=[32, 64], default=64,
                            help="REAL32 or REAL64 numbers on the links (default 64)")
    transputer.add_argument("--time-limit", type=positive("--time-limit"), default=60.0,
                            metavar="S", help="solver seconds per optimal allocation "
                            "(default 60)")
    transputer.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    transputer.add_argument("--gantt", metavar="FILE.png", help="draw one sample on the "
                            "largest network: computation and link traffic per processor "
                            "(.png, .svg or .pdf)")
    transputer.set_defaults(run=run)
    return transputer


def run(args):
    from robohw.transputer import Links, format_rows, plot_gantt, study
    if args.gantt and image_format(args.gantt) is None:
        return usage("transputer", f"--gantt {args.gantt}: name a .png, .svg or .pdf file")
    links = Links(mbit_per_s=float(args.link_mbit), word_bytes=args.real // 8)
    try:
        progress = Progress(len(args.processors))
        rows = study(args.processors, args.allocation, args.costs, links,
                     time_limit_s=args.time_limit, progress=progress)
    except ARGUMENT_ERRORS as error:
        return usage("transputer", error)
    print(format_rows(rows))
    if args.json:
        write_json(args.json, versioned({"rows": [row.as_json() for row in rows]}))
    if args.gantt:
        largest = max(rows, key=lambda row: row.processors)
        plot_gantt(largest, args.gantt)
    return 0
