"""The command line's parser and option types: one-line usage errors (:class:`CommandParser`,
:func:`usage`), integers and numbers in a range, lists, design names."""

import argparse
import math
import sys

__all__ = ["ARGUMENT_ERRORS", "CommandParser", "integer", "positive", "widths", "known_names",
           "design_names", "integer_list", "simulators", "width_list", "folds", "choice_list",
           "lazy_choice_list", "usage"]


# What the library's argument checks raise (robohw.hw.checks): a command reports either as its
# one-line usage error.
ARGUMENT_ERRORS = (TypeError, ValueError)


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


def usage(command, error):
    """Print ``robohw COMMAND: error`` on stderr; the usage error's exit status, 2."""
    print(f"robohw {command}: {error}", file=sys.stderr)
    return 2
