"""The file commands (ik, inertia, dynamics) stream: the input is read and solved in chunks of
CHUNK_ROWS rows and written as it goes, memory bounded at any size, the same bytes as in one
piece; a bad row after output has started ends the run with exit 2 and one line, a regular
file left as it was, standard output keeping the rows before it."""

import numpy as np
import pytest

from robohw.commands import main
from robohw.support import csv_table
from robohw.support.csv_table import CsvFileError, read_column_chunks

STATES = [f"{k}{j}" for k in ("q", "qd", "qdd") for j in range(1, 7)]


def _states(path, rows, bad_line=None):
    rng = np.random.default_rng(4)
    lines = [",".join(STATES)] + [",".join(f"{v:.6f}" for v in rng.uniform(-0.5, 0.5, 18))
                                  for _ in range(rows)]
    if bad_line is not None:
        lines[bad_line - 1] = lines[bad_line - 1].replace("-", "x", 1).replace("0.", "x.", 1)
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("command, option, backend", [
    ("dynamics", "--states", "model"), ("dynamics", "--states", "float"),
    ("inertia", "--q", "model"), ("ik", "--poses", "float")])
def test_chunks_give_the_bytes_one_piece_gives(tmp_path, monkeypatch, command, option,
                                               backend):
    if command == "ik":
        source = tmp_path / "in.csv"
        rng = np.random.default_rng(2)
        rows = ["nx,ny,nz,ox,oy,oz,ax,ay,az,px,py,pz"]
        for angle in rng.uniform(-3, 3, 7):
            c, s = np.cos(angle), np.sin(angle)
            rows.append(f"{c},{s},0,{-s},{c},0,0,0,1,0.3,0.2,0.1")
        source.write_text("\n".join(rows) + "\n")
    else:
        source = _states(tmp_path / "in.csv", 7)
    args = [command, option, str(source), "--backend", backend, "--quiet", "--reasons"]
    assert main([*args, "--out", str(tmp_path / "whole.csv")]) == 0
    sizes = []
    import robohw.support.csv_table as module
    original = module._chunks

    def spy(*a):
        for chunk in original(*a):
            sizes.append(len(chunk))
            yield chunk
    monkeypatch.setattr(module, "_chunks", spy)
    monkeypatch.setattr(csv_table, "CHUNK_ROWS", 3)
    assert main([*args, "--out", str(tmp_path / "chunked.csv")]) == 0
    assert sizes == [3, 3, 1]
    assert (tmp_path / "chunked.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()


def test_a_bad_row_after_output_started_keeps_what_standard_output_has(tmp_path, monkeypatch,
                                                                        capsys):
    monkeypatch.setattr(csv_table, "CHUNK_ROWS", 2)
    source = _states(tmp_path / "in.csv", 6, bad_line=6)       # the fifth row
    assert main(["dynamics", "--states", str(source), "--out", "-", "--quiet"]) == 2
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0].startswith("tau1,") and \
        len(captured.out.splitlines()) == 1 + 4          # the header and two chunks
    assert captured.err.startswith(f"robohw dynamics: {source}, line 6, column ")
    assert captured.err.count("\n") == 1


def test_a_bad_row_after_output_started_leaves_a_regular_file_as_it_was(tmp_path, monkeypatch):
    monkeypatch.setattr(csv_table, "CHUNK_ROWS", 2)
    source = _states(tmp_path / "in.csv", 6, bad_line=6)
    out = tmp_path / "tau.csv"
    out.write_text("old\n")
    assert main(["dynamics", "--states", str(source), "--out", str(out), "--quiet"]) == 2
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", "tau.csv"]


def test_a_header_only_file_writes_the_header(tmp_path, capsys):
    source = tmp_path / "in.csv"
    source.write_text(",".join(STATES) + "\n")
    assert main(["dynamics", "--states", str(source), "--out", "-", "--quiet"]) == 0
    assert capsys.readouterr().out == "tau1,tau2,tau3,tau4,tau5,tau6,valid\n"


def test_chunks_name_the_line_of_a_bad_row_in_the_whole_file(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("a,b\n1,2\n3,4\n5,6\n7,x\n")
    chunks = read_column_chunks(path, ["a", "b"], 2)
    assert next(chunks).tolist() == [[1, 2], [3, 4]]
    with pytest.raises(CsvFileError, match=r", line 5, column b: not a number: 'x'$"):
        next(chunks)


def test_blank_lines_are_ignored_at_the_end_only(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("a\n1\n\n\n")
    assert [c.tolist() for c in read_column_chunks(path, ["a"], 5)] == [[[1.0]]]
    path.write_text("a\n1\n\n2\n")
    with pytest.raises(CsvFileError, match=r", line 3: 0 fields, the header has 1$"):
        list(read_column_chunks(path, ["a"], 5))
    path.write_text("\n\na\n1\n")             # blank lines before the header: it is line 3
    assert [c.tolist() for c in read_column_chunks(path, ["a"], 5)] == [[[1.0]]]
    path.write_text("\n")
    with pytest.raises(CsvFileError, match=r", line 1: empty file; expected the header a$"):
        list(read_column_chunks(path, ["a"], 5))


def test_rows_are_written_as_the_csv_module_writes_them_with_unix_line_ends(tmp_path):
    # The csv module's quoting, but lines ended by \n as numpy, pandas and awk expect: a last
    # column read with awk -F, is "0", not "0\r".
    import csv
    import io

    from robohw.support.csv_table import write_rows
    rows = [[0.1, 1e-05, -0.0, 1.0, 2**-40, 1, "ok"], [np.float64(2.5), np.int64(3), 0, 7.0,
            1e300, 0, 'a "b", c']]
    write_rows(tmp_path / "x.csv", ["h1", "h,2", "h3", "h4", "h5", "valid", "reason"], rows)
    expected = io.StringIO(newline="")
    writer = csv.writer(expected, lineterminator="\n")
    writer.writerow(["h1", "h,2", "h3", "h4", "h5", "valid", "reason"])
    writer.writerows([[repr(float(v)) if isinstance(v, (float, np.floating)) else v for v in r]
                      for r in rows])
    assert (tmp_path / "x.csv").read_bytes() == expected.getvalue().encode()
    assert b"\r" not in (tmp_path / "x.csv").read_bytes()


@pytest.mark.parametrize("action, option, columns", [
    ("ik", "--poses", "x,y,z,roll,pitch,yaw"),
    ("jacobian", "--poses", "x,y,z,roll,pitch,yaw")])
def test_platform_commands_stream_too(tmp_path, monkeypatch, action, option, columns):
    rng = np.random.default_rng(6)
    rows = [columns] + [",".join(f"{v:.5f}" for v in [*rng.uniform(-0.02, 0.02, 2),
                                                     0.6 + rng.uniform(-0.02, 0.02),
                                                     *rng.uniform(-0.05, 0.05, 3)])
                        for _ in range(7)]
    source = tmp_path / "in.csv"
    source.write_text("\n".join(rows) + "\n")
    args = ["platform", action, option, str(source), "--reasons", "--quiet"]
    assert main([*args, "--out", str(tmp_path / "whole.csv")]) == 0
    monkeypatch.setattr(csv_table, "CHUNK_ROWS", 3)
    assert main([*args, "--out", str(tmp_path / "chunked.csv")]) == 0
    assert (tmp_path / "chunked.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()
    assert len((tmp_path / "whole.csv").read_text().splitlines()) == 8


def test_rows_that_follow_the_row_before_are_one_chunk():
    from robohw.legs import independent_rows
    assert independent_rows("ik") and independent_rows("fk") and independent_rows(
        "fk", guess="columns")
    assert not independent_rows("fk", guess="previous")
    assert not independent_rows("fk", backend="model")


def test_the_whole_file_helpers_write_what_the_streamed_command_writes(tmp_path):
    # The families' Python API (one file in, one file out) and the command give one file.
    from robohw.dynamics import read_states, solve_dynamics, write_torques
    from robohw.robots import load_robot
    source = _states(tmp_path / "in.csv", 5)
    assert main(["dynamics", "--states", str(source), "--out", str(tmp_path / "cmd.csv"),
                 "--reasons", "--quiet"]) == 0
    robot = load_robot("puma560")
    got = solve_dynamics(robot, *read_states(source, robot.dof))
    write_torques(tmp_path / "api.csv", got.tau, got.valid, got.reason)
    assert (tmp_path / "api.csv").read_bytes() == (tmp_path / "cmd.csv").read_bytes()
