"""One width range per design (Design.width_range): every design builds at both ends of it and
is refused one past each end with a line naming the design, the range and the width typed; the
commands check it before any work, and the file commands' --width ranges are their designs'."""

import re
import warnings

import pytest
from amaranth.hdl import UnusedElaboratable

from robohw.commands import main, parser
from robohw.registry import DESIGNS, FAMILIES


@pytest.mark.parametrize("name", list(DESIGNS))
def test_a_design_builds_across_its_range_and_refuses_past_it(name):
    design = DESIGNS[name]
    low, high = design.width_range
    assert low <= design.default_width <= high
    assert all(low <= w <= high for w in design.widths)
    warnings.filterwarnings("ignore", category=UnusedElaboratable)
    floor = low
    if design.family == "dynamics":
        floor = max(low, 18)    # the PUMA's torques miss the accuracy bound below
    for width in (floor, high):
        assert design.width_of(design.build(width)) == width
    for width in (low - 1, high + 1):
        with pytest.raises(ValueError, match=rf"^{name}: width must be an integer in "
                                             rf"\[{low}, {high}\], not {width}$"):
            design.check_width(width)


def _file_commands():
    """``[(command path, family)]``: the command of every family with registered designs (read
    from its declaration, robohw.sim.family.Family) and, for one with actions (platform), each
    action that has a --width."""
    out = []
    for family in FAMILIES:
        if not family.registered_designs():
            continue
        for name in family.commands:
            command = _subcommand(parser(), name)
            actions = [a for a in command._actions
                       if a.__class__.__name__ == "_SubParsersAction"]
            names = [(name,)] if not actions else \
                [(name, action) for action in actions[0].choices]
            out += [(path, family) for path in names if _width_option(*path) is not None]
    return out


def _subcommand(command, name):
    return next(a for a in command._actions
                if a.__class__.__name__ == "_SubParsersAction").choices[name]


def _width_option(*names):
    command = parser()
    for name in names:
        command = _subcommand(command, name)
    return next((a for a in command._actions if "--width" in a.option_strings), None)


# The application's own commands: they serve every family's designs.
APPLICATION_COMMANDS = {"bench", "sim", "export", "synth", "board", "sweep", "report"}


def test_every_command_is_a_familys_or_the_applications():
    # Each family declares every command it runs (robohw.sim.family.Family.commands), once.
    commands = parser()
    known = set(next(a for a in commands._actions
                     if a.__class__.__name__ == "_SubParsersAction").choices)
    declared = [name for family in FAMILIES for name in family.commands]
    assert len(declared) == len(set(declared)), declared
    assert set(declared) | APPLICATION_COMMANDS == known, sorted(known ^ set(declared))
    assert not set(declared) & APPLICATION_COMMANDS
    assert {"ik", "ik-graph", "inertia", "dynamics", "forward-dynamics", "platform"} <= \
        set(declared)


@pytest.mark.parametrize("command, family", _file_commands(),
                         ids=lambda value: " ".join(value) if isinstance(value, tuple) else "")
def test_a_file_commands_width_range_is_its_designs(command, family):
    # The range the command states and checks is the range of the family's designs it
    # builds: one of them, each of whose ranges it then is.
    option = _width_option(*command)
    found = re.search(r"\b(\d+)\.\.(\d+)\b", option.help)
    low, high = int(found[1]), int(found[2])
    assert (low, high) in {d.width_range for d in family.registered_designs()}, option.help
    option.type(str(low)), option.type(str(high))
    for outside in (low - 1, high + 1):
        with pytest.raises(Exception, match=rf"--width must be an integer \[{low}, {high}\], "
                                            rf"not '{outside}'"):
            option.type(str(outside))


@pytest.mark.parametrize("args, message", [
    (["sim", "dynamics-pipelined", "--width", "57", "--backend", "model"],
     "robohw sim: dynamics-pipelined: width must be an integer in [16, 56], not 57"),
    (["sim", "platform-ik-pipelined", "--width", "39", "--backend", "model"],
     "robohw sim: platform-ik-pipelined: width must be an integer in [16, 38], not 39"),
    (["export", "--widths", "3", "--designs", "ik-best-word-serial", "--out", "{out}"],
     "robohw export: --widths: ik-best-word-serial: width must be an integer in [16, 39], "
     "not 3"),
    (["synth", "--widths", "32", "--designs", "inertia-linear", "--out", "{out}"],
     "robohw synth: --widths: inertia-linear: width must be an integer in [12, 31], not 32"),
])
def test_the_commands_refuse_a_width_outside_the_designs_range_before_work(
        tmp_path, capsys, args, message):
    assert main([a.format(out=tmp_path) for a in args]) == 2
    assert capsys.readouterr().err == message + "\n"
    assert list(tmp_path.iterdir()) == []


def test_sim_takes_a_wide_dynamics_width_as_the_dynamics_command_does(capsys):
    assert main(["sim", "dynamics-pipelined", "--width", "48", "--backend", "model",
                 "--count", "2", "--quiet"]) == 0
    assert "width            48" in capsys.readouterr().out
