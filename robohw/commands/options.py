"""The options the commands share and which of them apply: the robot and its links, the
quiet flag, widths, folds and the initiation interval, and the refusal of an option that does
not apply to the chosen backend or design."""

import argparse

from robohw.commands.arguments import integer
from robohw.commands.paths import declare_inputs

__all__ = ["HARDWARE_WIDTH", "SHIPPED_NAMES", "FOLD_HELP", "add_quiet", "ROBOT_LINKS", "add_robot",
           "HARDWARE", "inapplicable", "bad_widths", "bad_fold", "DYNAMICS_WIDTHS",
           "add_dynamics_width", "add_ii", "ii_as_fold", "folds_for"]


# The data width of the ik and platform commands' hardware backends when --width is not given:
# 24 bits meet every shipped robot's accuracy bound in the report (docs/results.md's
# accuracy-by-width tables). The inertia and dynamics commands take their design's default for
# the robot (robohw sim --robot's).
HARDWARE_WIDTH = 24


# The shipped robots' names for --help, without importing robohw.robots (a fast start;
# tests/app/test_cli.py holds it equal to robohw.robots.ALL_SHIPPED).
SHIPPED_NAMES = ("puma560", "puma560_fgl", "stanford", "stanford_thesis", "ur5", "panda",
                 "iiwa14")


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
