"""What the commands share: the one-line usage errors of :class:`CommandParser`, the option
types (integers in a range, lists, design names), the output checks made before any work, and
the common options."""

import argparse
import math
import pathlib
import sys
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["CommandParser", "DYNAMICS_WIDTHS", "add_dynamics_width", "integer", "positive",
           "widths", "known_names",
           "design_names", "integer_list", "simulators", "width_list", "folds", "choice_list",
           "lazy_choice_list", "FOLD_HELP", "add_quiet", "file_command", "usage", "bad_folder",
           "bad_outputs", "bad_widths", "bad_fold", "inapplicable", "HARDWARE", "folds_for",
           "ARGUMENT_ERRORS", "Solved", "FileTable", "run_file_command", "HARDWARE_WIDTH",
           "add_robot", "ROBOT_LINKS", "declare_inputs", "declare_file_outputs", "input_files",
           "output_files", "FILE_OUTPUTS"]

# What the library's argument checks raise (robohw.hw.checks): a command reports either as its
# one-line usage error.
ARGUMENT_ERRORS = (TypeError, ValueError)

# The data width of the ik and platform commands' hardware backends when --width is not given:
# 24 bits meet every shipped robot's accuracy bound in the report (docs/results.md's
# accuracy-by-width tables). The inertia and dynamics commands take their design's default for
# the robot (robohw sim --robot's).
HARDWARE_WIDTH = 24

# The shipped robots' names for --help, without importing robohw.robots (a fast start;
# tests/app/test_cli.py holds it equal to robohw.robots.ALL_SHIPPED).
SHIPPED_NAMES = ("puma560", "puma560_fgl", "stanford", "stanford_thesis", "ur5", "panda",
                 "iiwa14")


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr, exit status 2.
    ``lists_designs``: its help's description names every design (read from the registry only
    when the help is shown, so that building the parser imports no family)."""

    def __init__(self, *args, lists_designs=False, **kwargs):
        super().__init__(*args, **kwargs)
        self.lists_designs = lists_designs

    def error(self, message):
        self.exit(2, f"{self.prog}: {message}\n")

    def parse_known_args(self, args=None, namespace=None):
        # A command's parser names the arguments it does not know itself, under its own
        # name ("robohw platform ik: unrecognized arguments: ..."), not the top parser's.
        namespace, extras = super().parse_known_args(args, namespace)
        commands = any(isinstance(a, argparse._SubParsersAction) for a in self._actions)
        if extras and not commands:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    def format_help(self):
        if self.lists_designs and self.description is None:
            from robohw.registry import DESIGNS
            self.description = "designs (widths low..high, default): " + ", ".join(
                f"{name} ({d.width_range[0]}..{d.width_range[1]}, {d.default_width})"
                for name, d in DESIGNS.items())
        return super().format_help()


def integer(name, low, high=None):
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


def positive(name, high=None):
    """An argparse type: a positive finite number (at most ``high``), the option named in the
    message."""
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(f"{name} must be a positive number, not {text!r}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{name} must be at most {high:,}, not {text!r}")
        return value
    return parse


def widths(text):
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"widths must be integers separated by commas, not {text!r}") from None
    if any(not 4 <= w <= 40 for w in widths):
        raise argparse.ArgumentTypeError(f"widths must be in [4, 40], not {text!r}")
    return widths


def known_names(text, choices, unknown_label):
    """The comma-separated names of ``text``, each one of ``choices``, in order, each once;
    otherwise an argparse error ``{unknown_label} 'name'; known: ...``."""
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in choices]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"{unknown_label} {(unknown or [text])[0]!r}; known: "
                                         f"{', '.join(choices)}")
    return names


def design_names(text):
    from robohw.registry import DESIGNS
    return known_names(text, DESIGNS, "unknown design")


def integer_list(option, low, high=None):
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


def simulators(text):
    from robohw.sim.compiled import SIMULATORS
    return tuple(known_names(text, SIMULATORS, "unknown simulator"))


def width_list(text):
    try:
        return tuple(int(w) for w in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"widths must be integers separated by commas, not {text!r}") from None


def folds(text):
    try:
        folds = tuple(int(k) for k in text.split(","))
    except ValueError:
        folds = ()
    if not folds or any(k < 1 for k in folds):
        raise argparse.ArgumentTypeError(
            f"folds must be positive integers separated by commas, not {text!r}")
    return folds


def choice_list(option, choices):
    """An argparse type: comma-separated names from ``choices``."""
    def parse(text):
        return tuple(known_names(text, choices, f"{option}: unknown"))
    return parse


def lazy_choice_list(option, load):
    """:func:`choice_list` of the names ``load()`` returns, called only when the option is
    parsed (the names live in a module the parser should not import)."""
    def parse(text):
        return choice_list(option, load())(text)
    return parse


FOLD_HELP = ("cycles per result of a folded design (the inertia arrays, dynamics-pipelined): "
             "its multipliers and CORDICs shared that many ways (default: the design's, the "
             "smallest that fits an ECP5-85F; a design without a fold takes none, and --fold "
             "for such designs alone is refused)")


def add_quiet(command):
    """The ``--quiet`` option every command has."""
    command.add_argument("--quiet", action="store_true",
                         help="no progress on stderr (on a terminal one line redrawn; in a "
                              "log a line when a long step starts and one when it ends)")


# --base and --tip without --robot (inapplicable's rules).
ROBOT_LINKS = [("--base", False, "a URDF robot given by --robot"),
               ("--tip", False, "a URDF robot given by --robot")]


def add_robot(command, default=None, what=""):
    """``--robot FILE``, ``--base LINK`` and ``--tip LINK``; ``default``: the robot without
    ``--robot`` (``None``: each design's own, said by ``what``)."""
    said = f"default {default}" if default is not None else what
    declare_inputs(command, "--robot")
    command.add_argument("--robot", default=default, metavar="FILE",
                         help="robot file: standard DH (.toml), URDF (.urdf) or xacro "
                              f"(.xacro), or a shipped name ({said}; shipped: "
                              f"{', '.join(SHIPPED_NAMES)})")
    command.add_argument("--base", metavar="LINK",
                         help="a URDF robot's base link (default: its root)")
    command.add_argument("--tip", metavar="LINK",
                         help="a URDF robot's tip link (default: the child of its last "
                              "movable joint, when they lie on one branch; where a hand's "
                              "fingers part, locking them)")


def file_command(commands, name, summary, example, source, source_help, out_help, backends,
                 backend_help):
    """A command from one CSV file to another for a robot (ik, inertia, dynamics): its input
    option ``source``, ``--out``, ``--robot`` and ``--backend`` (first choice the default)."""
    command = commands.add_parser(name, help=summary, epilog=f"example: {example}")
    declare_inputs(command, source)
    declare_file_outputs(command, "--out")
    command.add_argument(source, required=True, metavar="IN.csv",
                         help=f"{source_help} ('-': standard input)")
    command.add_argument("--out", required=True, metavar="OUT.csv",
                         help=f"{out_help} ('-': standard output)")
    add_robot(command, default="puma560")
    command.add_argument("--backend", choices=backends, default=backends[0],
                         help=f"{backend_help} (default {backends[0]})")
    return command


@dataclass
class Solved:
    """What a file command's solve gives :func:`run_file_command` for one chunk of rows: how
    many rows, how many of them valid, ``OUT.csv``'s rows for them, and a note for the closing
    line (a hardware backend's accuracy promise)."""
    rows: int
    valid: int
    table: Iterable
    note: "str | None" = None


@dataclass(frozen=True)
class FileTable:
    """A file command's files for a robot: ``IN.csv``'s ``columns``, ``OUT.csv``'s
    ``header``, and what a row is (``"poses"``)."""
    columns: list
    header: list
    noun: str


def run_file_command(args, name, source, table, solve, file_errors=(), load=None,
                     rows_per_chunk=None):
    """Run a file command (ik, inertia, dynamics) in chunks, memory bounded at any file size:
    load ``--robot``, ``table(robot)`` (a :class:`FileTable`), then for each chunk of the input
    (:func:`~robohw.support.csv_table.read_column_chunks`) ``solve(robot, values)`` (a
    :class:`Solved`) and write its rows, and say what was written. The first chunk is solved
    before the output opens: a bad header or a refused argument writes nothing. A bad robot
    file, input row or argument (``file_errors``, and what the argument checks raise) is one
    line, exit 2; a regular file is then left as it was, while standard output or a FIFO keeps
    the rows written before the bad one. ``--out`` is checked against the inputs by
    :func:`robohw.commands.main`, before any work. ``load``: what loads the robot (default
    ``load_robot(args.robot, base=args.base, tip=args.tip)``); ``rows_per_chunk``: the chunk's
    rows (default :data:`~robohw.support.csv_table.CHUNK_ROWS`; a command whose rows depend on
    the row before reads its file as one chunk)."""
    from robohw.robots import RobotFileError, load_robot
    from robohw.support import csv_table
    from robohw.support.csv_table import CsvFileError, open_rows, read_column_chunks
    rows = valid = 0
    note = None
    try:
        robot = load_robot(args.robot, base=args.base, tip=args.tip) if load is None \
            else load()
        files = table(robot)
        chunks = read_column_chunks(getattr(args, source), files.columns,
                                    rows_per_chunk or csv_table.CHUNK_ROWS)
        first = next(chunks, None)
        if first is None:               # a header alone: no rows
            import numpy as np
            first = np.zeros((0, len(files.columns)))
        solved = solve(robot, first)
        with open_rows(args.out, files.header) as write:
            while solved is not None:
                write(solved.table)
                rows, valid, note = rows + solved.rows, valid + solved.valid, solved.note
                values = next(chunks, None)
                solved = None if values is None else solve(robot, values)
    except (RobotFileError, CsvFileError, *file_errors, *ARGUMENT_ERRORS) as error:
        return usage(name, error)
    note = f"; {note}" if note else ""
    print(f"{rows} {files.noun}, {valid} valid: {args.out}{note}", file=sys.stderr)
    return 0


def usage(command, error):
    """Print ``robohw COMMAND: error`` on stderr; the usage error's exit status, 2."""
    print(f"robohw {command}: {error}", file=sys.stderr)
    return 2


def bad_folder(path):
    """The one-line reason an output folder cannot be made, or ``None``."""
    path = pathlib.Path(path)
    if path.exists() and not path.is_dir():
        return f"cannot write into {path}: it is not a directory"
    if not path.resolve().parent.is_dir():
        return f"cannot write into {path}: directory {path.parent} does not exist"
    return None


def bad_outputs(outputs, inputs=()):
    """The one-line reason an output path cannot be written, or ``None``: checked before any
    work (a missing directory, an output that is one of the ``inputs``, two outputs at one
    path). ``-`` is standard output, once at most. ``outputs``: paths, or ``{option: path}``
    (the options named when two share a path); ``inputs``: ``[(name, path)]``
    (:func:`input_files`). An output is an input when both name one file, whichever path
    names it (a symbolic or a hard link: :func:`os.path.samefile`)."""
    from robohw.support.atomic import STANDARD_STREAM, same_file
    if not isinstance(outputs, dict):
        outputs = {f"output {k + 1}": path for k, path in enumerate(outputs)}
    seen = {}
    for option, path in outputs.items():
        if path is None:
            continue
        key = STANDARD_STREAM if str(path) == STANDARD_STREAM else pathlib.Path(path).resolve()
        if key in seen:
            where = "standard output" if key == STANDARD_STREAM else path
            return f"{seen[key]} and {option} name one file ({where}): give each its own"
        seen[key] = option
        if key == STANDARD_STREAM:
            continue
        path = pathlib.Path(path)
        parent = key.parent
        for name, source in inputs:
            if str(source) != STANDARD_STREAM and same_file(path, source):
                return (f"{option} and {name} name one file ({source}): an output never "
                        f"replaces an input; give {option} a path of its own")
        if not parent.is_dir():
            return f"cannot write {path}: directory {path.parent} does not exist"
        if path.is_dir():
            return f"cannot write {path}: it is a directory"
    return None


def declare_inputs(command, *options):
    """Name ``options`` (``--robot``, ``--states``, ...) as ``command``'s input files:
    :func:`input_files` reads them, and no output of the command may be one of them."""
    known = command.get_default("input_options") or ()
    command.set_defaults(input_options=(*known, *options))


def declare_file_outputs(command, *options):
    """Name ``options`` (``--out``) as ``command``'s output files (:data:`FILE_OUTPUTS`
    always are): a folder option is not."""
    known = command.get_default("file_output_options") or ()
    command.set_defaults(file_output_options=(*known, *options))


# The options that name an output file in every command that has them.
FILE_OUTPUTS = ("--json", "--vcd", "--markdown", "--gantt")


def output_files(args):
    """``{option: path}``: the output files the command's arguments name."""
    options = (*FILE_OUTPUTS, *getattr(args, "file_output_options", ()))
    return {option: getattr(args, option[2:].replace("-", "_"), None) for option in options}


def input_files(args):
    """``[(name, path)]``: every file the command's arguments make it read, ``name`` the
    option (and for ``--robot``, the part: its sidecar, a xacro include)."""
    files = []
    for option in getattr(args, "input_options", ()):
        value = getattr(args, option[2:].replace("-", "_"), None)
        if value is None:
            continue
        if option == "--robot":
            from robohw.robots.loading import robot_files
            files += [(option if what == "file" else f"{option}'s {what}", path)
                      for what, path in robot_files(value)]
        elif option == "--platform":
            from robohw.robots.platform import platform_file
            files.append((option, platform_file(value)))
        else:
            files.append((option, value))
    return files


HARDWARE = "the hardware backends (model, rtl, compiled)"


def inapplicable(args, rules):
    """The one-line reason an option the user gave does not apply, or ``None``: ``rules`` are
    ``(option, applies, where)``, the option given when its value is not ``None`` (or
    ``False``), ``where`` what it applies to. Options are checked before any work: none is
    ever silently ignored (docs/conventions.md)."""
    for option, applies, where in rules:
        value = getattr(args, option.lstrip("-").replace("-", "_"))
        if value is not None and value is not False and not applies:
            return f"{option} applies to {where}"
    return None


def bad_widths(names, widths):
    """The one-line reason one of ``widths`` is outside a design's range (each of ``names``),
    or ``None``: checked before any work. ``widths`` ``None``: each design's own."""
    if not widths:
        return None
    from robohw.registry import DESIGNS
    for name in names:
        for width in widths:
            try:
                DESIGNS[name].check_width(width)
            except ValueError as error:
                return f"--widths: {error}"
    return None


def bad_fold(names, folds):
    """The one-line reason ``--fold`` does not apply to the designs ``names``, or ``None``: it
    applies when one of them has a fold."""
    from robohw.registry import DESIGNS
    folded = [name for name, design in DESIGNS.items() if design.default_fold is not None]
    if folds and not any(DESIGNS[name].default_fold is not None for name in names):
        return (f"--fold applies to the folded designs ({', '.join(folded)}), not "
                f"{', '.join(names)}")
    return None


# The widths the dynamics commands' hardware backends take: the Newton-Euler designs'
# (Design.width_range of dynamics-engine, -array and -pipelined; a test holds them equal),
# written out so that building the parser imports no design.
DYNAMICS_WIDTHS = (16, 56)


def add_dynamics_width(command, default):
    """The ``--width`` of a dynamics command's hardware backends (``robohw dynamics``,
    ``forward-dynamics``, ``board``), :data:`DYNAMICS_WIDTHS`; ``default`` says what leaving
    it out gives."""
    low, high = DYNAMICS_WIDTHS
    command.add_argument("--width", type=integer("--width", low, high),
                         help=f"the hardware backends' data width, {low}..{high} (default: "
                              f"{default})")


def add_ii(command, several=False):
    """The ``--ii`` option of the modulo-scheduled designs: their ``--fold`` by its own name,
    one interval or (``several``) a comma-separated list."""
    def intervals(text):
        try:
            values = tuple(int(k) for k in text.split(","))
        except ValueError:
            values = ()
        if not values or any(not 2 <= k <= 1024 for k in values) or \
                (len(values) > 1 and not several):
            raise argparse.ArgumentTypeError(
                f"--ii must be {'integers' if several else 'an integer'} [2, 1024]"
                f"{' separated by commas' if several else ''}, not {text!r}")
        return values if several else values[0]
    command.add_argument(
        "--ii", type=intervals, metavar="IIS" if several else "N",
        help="initiation interval of the modulo-scheduled designs (dynamics-engine): cycles "
             "per state, 2..1024" + (", comma-separated" if several else "") +
             " (default the design's); their --fold")


def ii_as_fold(args, names):
    """Give ``args.ii`` to ``args.fold`` for the designs ``names``; the one-line reason it
    does not apply, or ``None``: every named design with a fold must be modulo-scheduled (a
    folded design's fold is not an interval), and ``--fold`` not given too."""
    if args.ii is None:
        return None
    from robohw.registry import DESIGNS
    scheduled = [name for name, design in DESIGNS.items() if design.fold_name == "ii"]
    known = [name for name in names if name in DESIGNS]
    folded = [name for name in known if DESIGNS[name].default_fold is not None]
    if known and (not folded or any(DESIGNS[name].fold_name != "ii" for name in folded)):
        return (f"--ii applies to the modulo-scheduled designs ({', '.join(scheduled)}), not "
                f"{', '.join(name for name in known if name not in scheduled)}")
    if args.fold is not None:
        return "--ii and --fold name one thing: give one"
    args.fold = args.ii
    return None


def folds_for(names, folds):
    """``{name: folds}``: the ``--fold`` values for designs with a fold, ``(None,)`` (the
    design's default, or none) otherwise."""
    from robohw.registry import DESIGNS
    return {name: folds if folds and DESIGNS[name].default_fold is not None else (None,)
            for name in names}
