"""``robohw bench cordic|buffers|sim|commands|dynamics``: the CORDIC processors' latency,
throughput and simulator speeds; the buffer assignment on random graphs; every design's
simulation speed; the command paths against Pinocchio; the inverse- and forward-dynamics
engines as placed against Pinocchio's RNEA and ABA from Python and C++, timed in one run."""

import argparse

from robohw.commands.arguments import design_names, integer, simulators, usage, widths
from robohw.commands.paths import declare_inputs
from robohw.support.atomic import write_json
from robohw.support.formats import versioned

__all__ = ["register", "run"]


def register(commands):
    bench = commands.add_parser(
        "bench", help="benchmark a design family",
        epilog="example: robohw bench cordic --widths 16 --no-verilator")
    bench.add_argument("design", choices=["cordic", "buffers", "sim", "commands", "dynamics"],
                       help="CORDIC processors, the buffer assignment on random graphs, the "
                            "simulators' speed on every design (compiled and Amaranth), "
                            "the dynamics and inertia commands against Pinocchio, or the "
                            "inverse- and forward-dynamics engines as placed and routed "
                            "(--synth) against Pinocchio's RNEA and ABA from Python and C++ "
                            "(the bench extra: pip install 'robohw[bench]')")
    bench.add_argument("--widths", type=widths, default=(16, 24, 32),
                       help="data widths, comma-separated (default 16,24,32)")
    bench.add_argument("--no-verilator", action="store_true",
                       help="skip the Verilator runs (each build takes ~10 s)")
    bench.add_argument("--nodes", type=integer("--nodes", 1), nargs="+",
                       default=[1_000, 10_000],
                       help="graph sizes for 'bench buffers' (default 1000 10000)")
    bench.add_argument("--designs", type=design_names, metavar="NAMES",
                       help="comma-separated designs for 'bench sim' (default: all)")
    bench.add_argument("--cycles", type=integer("--cycles", 1), default=1_000_000,
                       help="cycles of each compiled run in 'bench sim' (default 1000000)")
    bench.add_argument("--simulators", type=simulators, default=("verilator",),
                       metavar="NAMES", help="compiled simulators for 'bench sim', "
                       "comma-separated: verilator, cxxrtl (default verilator; CXXRTL builds "
                       "of the large designs take many minutes)")
    bench.add_argument("--cocotb", type=integer("--cocotb", 0), default=0, metavar="CYCLES",
                       help="also run cocotb + Verilator for about this many cycles in 'bench "
                            "sim' (default 0: not; its build takes minutes for a large design)")
    bench.add_argument("--threads", type=integer("--threads", 1), default=1,
                       help="Verilator model threads for 'bench sim' (default 1; its threads "
                            "wait busily: only on idle cores)")
    bench.add_argument("--states", type=integer("--states", 1, 1_000_000), default=100_000,
                       help="states a command solves in 'bench commands' (default 100000)")
    bench.add_argument("--repeats", type=integer("--repeats", 1, 20), default=3,
                       help="runs of each command in 'bench commands'; the fastest counts "
                            "(default 3)")
    bench.add_argument("--robots", type=robot_list, metavar="NAMES",
                       help="robots for 'bench dynamics' and 'bench commands': shipped names "
                            "or robot files, comma-separated (default puma560,ur5,panda,iiwa14 "
                            "and ur5)")
    bench.add_argument("--synth", metavar="FILE", default="docs/synth.json",
                       help="the robohw synth rows 'bench dynamics' takes the engine's Fmax "
                            "from (default docs/synth.json)")
    bench.add_argument("--calls", type=integer("--calls", 100, 1_000_000), default=20_000,
                       help="Pinocchio calls a loop in 'bench dynamics' (default 20000)")
    bench.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    declare_inputs(bench, "--synth")
    bench.set_defaults(run=run)
    return bench


def robot_list(text):
    """Comma-separated robots: shipped names or robot files, each once."""
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names:
        raise argparse.ArgumentTypeError(f"robots must be names or files separated by commas, "
                                         f"not {text!r}")
    return names


def run(args):
    import sys
    if args.design == "dynamics":
        import dataclasses

        from robohw.flows.dynamics_speed import (
            BENCH_ROBOTS,
            PROBLEMS,
            bench_dynamics,
            format_dynamics_bench,
        )
        from robohw.support.formats import read_rows
        try:
            synth_rows = read_rows(args.synth)
        except (OSError, ValueError) as error:
            return usage("bench", f"--synth {args.synth}: {error}")
        tables = {}
        try:
            for problem in PROBLEMS:
                tables[problem] = bench_dynamics(synth_rows, args.robots or BENCH_ROBOTS,
                                                 calls=args.calls, progress=sys.stderr,
                                                 problem=problem)
        except (OSError, ValueError) as error:     # a robot file, or one without dynamics
            return usage("bench", str(error))
        print("\n\n".join(f"## {PROBLEMS[problem].title}: the engine against "
                          f"Pinocchio's {PROBLEMS[problem].algorithm}\n\n"
                          f"{format_dynamics_bench(rows, problem)}"
                          for problem, rows in tables.items()))
        rows = [{"problem": problem, **dataclasses.asdict(row)}
                for problem, found in tables.items() for row in found]
    elif args.design == "buffers":
        from robohw.buffers.bench import bench_buffers, format_buffer_bench
        rows = bench_buffers(args.nodes)
        print(format_buffer_bench(rows))
    elif args.design == "commands":
        from robohw.flows.command_speed import (
            COMMAND_ROBOTS,
            bench_commands,
            format_command_bench,
        )
        try:
            rows = bench_commands(args.robots or COMMAND_ROBOTS, states=args.states,
                                  repeats=args.repeats, stream=sys.stderr)
        except (OSError, ValueError) as error:     # a robot file
            return usage("bench", str(error))
        print(format_command_bench(rows))
    elif args.design == "sim":
        from robohw.flows.sim_speed import bench_sim, format_sim_bench
        from robohw.registry import DESIGNS
        rows = bench_sim(args.designs or list(DESIGNS), cycles=args.cycles,
                         simulators=args.simulators, threads=args.threads,
                         cocotb_cycles=args.cocotb)
        print(format_sim_bench(rows))
    else:
        from robohw.cordic import bench_cordic, format_bench
        rows = bench_cordic(args.widths, verilator=not args.no_verilator)
        print(format_bench(rows))
    if args.json:
        write_json(args.json, versioned({"rows": rows}))
    return 0
