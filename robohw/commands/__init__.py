"""``robohw``: the command line, one module per command.

Each command module has ``register(commands)``, which adds its parser (importing no family, so
that ``robohw --help`` stays fast) with ``run`` as its default, and ``run(args)``, which does
the work and returns the exit status.

Examples::

    robohw bench cordic                  # latency, throughput, simulator speeds
    robohw bench cordic --widths 16 --no-verilator
    robohw report                        # measure everything, write report/
    robohw report --quick --out /tmp/r
    robohw ik-graph --graph best --timing pipelined --json graph.json
    robohw ik --poses poses.csv --out joints.csv --backend model --elbow down
    robohw inertia --q q.csv --out h.csv --backend model --array logdepth
    robohw dynamics --states s.csv --out tau.csv --robot stanford --formulation scan
    robohw forward-dynamics --states s.csv --out qdd.csv --robot ur5
    robohw dynamics-gradient --states s.csv --out grad.csv --robot ur5
    robohw platform ik --poses poses.csv --out legs.csv --platform hexapod
    robohw platform fk --lengths legs.csv --out poses.csv
    robohw transputer --processors 1,3,6,7,8 --allocation optimal --gantt sample.png
    robohw distributed --trajectory 1 --duration 2 --scheme zero --out tau.csv
    robohw sim inertia-logdepth --count 8 --vcd inertia.vcd
    robohw export --out verilog --designs cordic-pipelined --widths 16
    robohw synth --designs cordic-pipelined --widths 16 --device ecp5-85k
    robohw board build --board ulx3s-85f --design dynamics-engine --robot ur5
    robohw sweep --designs inertia-linear --widths 18,24 --folds 4,6,8 --out build/sweep
"""

import argparse
import os
import sys
import warnings

from robohw import __version__
from robohw.commands import (
    bench,
    board,
    distributed,
    dynamics,
    dynamics_gradient,
    export,
    forward_dynamics,
    ik,
    ik_graph,
    inertia,
    platform,
    report,
    sim,
    sweep,
    synth,
    transputer,
)
from robohw.commands.arguments import CommandParser, usage
from robohw.commands.options import add_quiet
from robohw.commands.paths import bad_outputs, input_files, output_files
from robohw.support.atomic import OutputError, inputs_kept
from robohw.support.progress import Progress

__all__ = ["main"]

# In the order of ``robohw --help``.
COMMANDS = (bench, ik_graph, ik, inertia, dynamics, forward_dynamics, dynamics_gradient, platform,
            sim, export, synth, board, transputer, distributed, sweep, report)


def parser():
    """The parser of every command."""
    top = CommandParser(
        prog="robohw", description="Cycle-accurate hardware for robot computations.",
        epilog="examples:\n"
               "  robohw report --quick --out /tmp/report\n"
               "  robohw sim inertia-logdepth --count 8 --vcd inertia.vcd\n"
               "  robohw export --out verilog --designs cordic-pipelined --widths 16\n"
               "  robohw synth --designs cordic-pipelined --widths 16 --device ecp5-85k\n"
               "  robohw <command> --help   (each command's own example)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    top.add_argument("--version", action="version", version=f"robohw {__version__}")
    commands = top.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                  parser_class=CommandParser)
    for command in COMMANDS:
        added = command.register(commands)
        if command not in (platform, board):       # their actions have it
            add_quiet(added)
    return top


def command_name(args):
    """The command as its errors name it: ``platform ik``, ``dynamics``."""
    action = getattr(args, "action", None)
    return f"{args.command} {action}" if args.command in ("platform", "board") and action \
        else args.command


def _once(show):
    """``warnings.showwarning`` that shows each message once."""
    if getattr(show, "once", False):
        return show
    shown = set()

    def once(message, category, *args, **kwargs):
        if str(message) not in shown:
            shown.add(str(message))
            show(message, category, *args, **kwargs)
    once.once = True
    return once


def main(argv=None):
    # Model-only runs build components they never elaborate: not a mistake here.
    # (Amaranth's UnusedElaboratable, matched by its message: importing Amaranth for its class
    # would double a float command's start-up.)
    warnings.filterwarnings("ignore", message=r".* created but never used$")
    # Warnings (a robot file's oddities) are one line each, like errors, and each once a run
    # however often the file is loaded.
    warnings.formatwarning = lambda message, *_, **__: f"robohw: warning: {message}\n"
    warnings.showwarning = _once(warnings.showwarning)
    args = parser().parse_args(argv)
    Progress.silenced = args.quiet
    # Every output file is checked before any work, against every input file too (a robot's
    # sidecar and xacro includes among them); each command checks its own folders. What a
    # command then writes anywhere, into an output folder too, is held to its inputs.
    name = command_name(args)
    try:
        inputs = input_files(args)
    except OSError as error:
        return usage(name, error)
    bad = bad_outputs(output_files(args), inputs)
    if bad:
        return usage(name, bad)
    try:
        try:
            with inputs_kept(inputs):
                return args.run(args)
        finally:
            # Before any error line: a progress line left open is ended first.
            Progress.end_line()
    except BrokenPipeError:
        # Standard output's reader went away (| head): what it read stands; no traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OutputError as error:
        # An output that cannot be written (/proc/x.csv): the path as the user gave it.
        return usage(name, error)
    except OSError as error:
        # A file that failed under the command (a disk full, a file gone): one line.
        print(f"robohw {name}: {error}", file=sys.stderr)
        return 1
    except RuntimeError as error:
        # The compiled backend could not be built (no compiler, a tool failed): one line. The
        # import waits for it: the backend's modules would double the command's start-up.
        from robohw.sim.compiled import CompiledBuildError
        if not isinstance(error, CompiledBuildError):
            raise
        print(f"robohw {name}: {error}", file=sys.stderr)
        return 2
