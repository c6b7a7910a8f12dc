"""``robohw ik-graph``: a PUMA IK task graph with its optimal buffer assignment."""

import sys

from robohw.commands.arguments import ARGUMENT_ERRORS, integer
from robohw.commands.options import HARDWARE_WIDTH
from robohw.commands.paths import declare_inputs
from robohw.support.atomic import write_json
from robohw.support.formats import versioned

__all__ = ["register", "run"]

# The solution's figures printed, in this order (all of them go to --json).
_PRINTED = ("robot", "graph", "timing", "ccms", "critical_path_ccms", "depth",
            "total_buffer_stages", "shared_buffer_stages", "data_buffer_stages",
            "shared_data_buffer_stages", "delay_lines", "tapped_delay_lines", "operand_adders")


def register(commands):
    ik_graph = commands.add_parser(
        "ik-graph", help="PUMA IK task graph with its optimal buffer assignment",
        epilog="example: robohw ik-graph --graph best --timing pipelined --json graph.json")
    ik_graph.add_argument("--graph", choices=["paper", "best"], default="best",
                          help="the reconstruction of the paper's or the best decomposition "
                               "(default best)")
    declare_inputs(ik_graph, "--robot")
    ik_graph.add_argument("--robot", default="puma560", metavar="FILE",
                          help="robot TOML or URDF file, or shipped name, of the PUMA family "
                               "(a URDF robot in its DH form; default puma560)")
    ik_graph.add_argument("--timing", choices=["stage", "pipelined"], default="stage",
                          help="node latency: one stage, or pipelined CCM cycles (default stage)")
    # The IK designs' widths (robohw ik's --width): the pipelined CCMs the hardware builds.
    ik_graph.add_argument("--width", type=integer("--width", 16, 39), default=HARDWARE_WIDTH,
                          help=f"data width for --timing pipelined, 16..39 (default "
                               f"{HARDWARE_WIDTH})")
    ik_graph.add_argument("--align-outputs", action="store_true",
                          help="all six joint angles out on the same cycle")
    ik_graph.add_argument("--json", metavar="FILE", help="write the graph and its solution")
    ik_graph.set_defaults(run=run)
    return ik_graph


def run(args):
    from robohw.ik import graph_solution
    from robohw.robots import Chain, RobotFileError, load_robot
    from robohw.robots.closed_forms import puma_form
    try:
        robot = load_robot(args.robot)
        if isinstance(robot, Chain):
            robot = puma_form(robot).robot
        solution = graph_solution(robot, args.graph, args.timing, args.width,
                                  args.align_outputs)
    except (RobotFileError, *ARGUMENT_ERRORS) as error:
        print(f"robohw ik-graph: {error}", file=sys.stderr)
        return 2
    for key in _PRINTED:
        print(f"{key:26} {solution[key]}")
    if args.json:
        write_json(args.json, versioned(solution))
    return 0
