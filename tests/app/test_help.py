"""Help that matches the code: every reason a file command can write is in its --reasons help;
an argument a command does not know is named under the command's own name."""

import pytest

from robohw.commands import main, parser


def _help_of(*names):
    command = parser()
    for name in names:
        command = next(a for a in command._actions if a.__class__.__name__ ==
                       "_SubParsersAction").choices[name]
    return " ".join(next(a.help for a in command._actions if "--reasons" in a.option_strings)
                    .split())


@pytest.mark.parametrize("command, reasons", [
    (("dynamics",), "robohw.dynamics.inverse.files"),
    (("inertia",), "robohw.systolic.files"),
    (("ik",), "robohw.ik.files"),
    (("platform", "ik"), "robohw.legs.files"),
    (("platform", "dynamics"), "robohw.legs.files"),
])
def test_the_reasons_help_names_every_reason_the_command_writes(command, reasons):
    import importlib
    written = importlib.import_module(reasons).REASONS
    text = _help_of(*command)
    missing = [reason for reason in written if reason not in text]
    assert not missing, f"{' '.join(command)} --reasons help omits {missing}"


@pytest.mark.parametrize("args, name", [
    (["platform", "ik", "--poses", "p.csv", "--out", "o.csv", "--max-cond", "10", "--bogus"],
     "robohw platform ik"),
    (["inertia", "--q", "q.csv", "--out", "h.csv", "--bogus"], "robohw inertia"),
])
def test_an_unknown_argument_is_named_under_its_commands_name(args, name, capsys):
    with pytest.raises(SystemExit) as exit:
        main(args)
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{name}: unrecognized arguments: ") and err.count("\n") == 1
