"""Outputs as docs/conventions.md says they are written (robohw.support.atomic): a regular file
atomically with the umask's mode, a symlink's target with the link kept, FIFOs and devices and
``-`` directly, two outputs of a command never on one path; ``-`` as standard input; CSV numbers
in plain notation only, another delimiter named."""

import io
import os
import stat
import sys
import threading

import pytest

from robohw.commands import main
from robohw.support.atomic import OutputError, atomic_open, write_text
from robohw.support.csv_table import CsvFileError, read_columns

STATE = "q1,q2,q3,q4,q5,q6\n0,0.1,0.2,0,0,0\n"


@pytest.fixture
def states(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text(STATE)
    return path


def _inertia(states, out):
    return main(["inertia", "--q", str(states), "--out", str(out), "--quiet"])


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_output_has_the_mode_the_umask_gives(states, tmp_path, umask, mode):
    previous = os.umask(umask)
    try:
        assert _inertia(states, tmp_path / "h.csv") == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "h.csv").stat().st_mode) == mode


def test_a_replaced_output_keeps_its_mode_and_no_temporary_stays(states, tmp_path):
    out = tmp_path / "h.csv"
    out.write_text("old")
    out.chmod(0o640)
    assert _inertia(states, out) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert out.read_text().startswith("H11,")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.csv", "q.csv"]


def test_a_symlink_stays_a_link_and_its_target_is_written(states, tmp_path):
    (tmp_path / "data").mkdir()
    target = tmp_path / "data" / "h.csv"
    link = tmp_path / "link.csv"
    link.symlink_to(target)             # dangling: the target appears
    assert _inertia(states, link) == 0
    assert link.is_symlink() and target.read_text().startswith("H11,")
    target.write_text("old")
    assert _inertia(states, link) == 0
    assert link.is_symlink() and target.read_text().startswith("H11,")


def test_a_fifo_is_written_directly(states, tmp_path):
    fifo = tmp_path / "h.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    assert _inertia(states, fifo) == 0
    reader.join(timeout=30)
    assert got and got[0].startswith("H11,") and stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_character_device_is_written_directly(states):
    assert _inertia(states, "/dev/null") == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_dash_is_standard_output_and_standard_input(states, capsys, monkeypatch):
    assert _inertia(states, "-") == 0
    written = capsys.readouterr().out
    assert written.startswith("H11,") and written.count("\n") == 2
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(STATE.encode())))
    assert main(["inertia", "--q", "-", "--out", "-", "--quiet"]) == 0
    assert capsys.readouterr().out == written


def test_an_unwritable_place_is_one_line_naming_the_path_given(states, capsys):
    assert _inertia(states, "/proc/x.csv") == 2
    err = capsys.readouterr().err
    assert err.startswith("robohw inertia: cannot write /proc/x.csv: ") and err.count("\n") == 1


def test_atomic_open_fails_with_the_path_given_and_leaves_nothing(tmp_path):
    with pytest.raises(OutputError, match="cannot write /proc/none/x.json: "):
        write_text("/proc/none/x.json", "x")
    out = tmp_path / "x.txt"
    with pytest.raises(RuntimeError):
        with atomic_open(out) as file:
            file.write("half")
            raise RuntimeError("the run failed")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, message", [
    (["transputer", "--processors", "1", "--json", "{0}", "--gantt", "{0}"],
     "robohw transputer: --json and --gantt name one file ({0}): give each its own"),
    (["sim", "cordic-pipelined", "--json", "{0}", "--vcd", "{0}"],
     "robohw sim: --json and --vcd name one file ({0}): give each its own"),
    (["sim", "cordic-pipelined", "--json", "-", "--vcd", "-"],
     "robohw sim: --json and --vcd name one file (standard output): give each its own"),
    (["sim", "cordic-pipelined", "--vcd", "-"],
     "robohw sim: --vcd needs a file: a waveform does not go to standard output"),
    (["transputer", "--processors", "1", "--gantt", "{0}.txt"],
     "robohw transputer: --gantt {0}.txt: name a .png, .svg or .pdf file"),
])
def test_outputs_that_would_collide_or_mislead_are_refused(tmp_path, capsys, args, message):
    path = str(tmp_path / "x.svg")
    assert main([a.format(path) for a in args]) == 2
    assert capsys.readouterr().err == message.format(path) + "\n"
    assert list(tmp_path.iterdir()) == []


def test_a_gantt_chart_is_written_in_the_format_its_suffix_names(tmp_path):
    for suffix, magic in ((".svg", b"<?xml"), (".png", b"\x89PNG"), (".pdf", b"%PDF")):
        path = tmp_path / f"g{suffix}"
        assert main(["transputer", "--processors", "1", "--gantt", str(path), "--quiet"]) == 0
        assert path.read_bytes().startswith(magic)


def test_sim_json_to_standard_output_is_the_only_output(capsys):
    import json
    assert main(["sim", "cordic-pipelined", "--count", "2", "--json", "-", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["design"] == "cordic-pipelined"


@pytest.mark.parametrize("text, message", [
    ("q\n1_5\n", "line 2, column q: not a number: '1_5'"),
    ("q\n\uff11\uff15\n", "line 2, column q: not a number: '\uff11\uff15'"),
    ("q\n0x10\n", "line 2, column q: not a number: '0x10'"),
    ("q\n1e999\n", "line 2, column q: not finite: '1e999'"),
    ("q\n-inf\n", "line 2, column q: not finite: '-inf'"),
    ("q\nnan\n", "line 2, column q: not finite: 'nan'"),
])
def test_csv_numbers_are_plain_decimal_or_exponent_notation(tmp_path, text, message):
    path = tmp_path / "in.csv"
    path.write_text(text)
    with pytest.raises(CsvFileError, match=f"^{path}, {message}$".replace("(", r"\(")):
        read_columns(path, ["q"])


def test_csv_numbers_in_every_plain_form_are_read(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("q\n1\n-2.5\n+.5\n3.\n1e-3\n-2E+2\n")
    assert read_columns(path, ["q"])[:, 0].tolist() == [1.0, -2.5, 0.5, 3.0, 1e-3, -200.0]


@pytest.mark.parametrize("separator, said", [(";", "';'"), ("\t", "tabs"), ("|", "'|'")])
def test_another_delimiter_is_named(tmp_path, separator, said):
    path = tmp_path / "in.csv"
    path.write_text(separator.join(["q1", "q2"]) + "\n" + separator.join(["0", "1"]) + "\n")
    with pytest.raises(CsvFileError, match=f"line 1: fields separated by {said}; separate "
                                           f"them by commas"):
        read_columns(path, ["q1", "q2"])
