"""``robohw distributed``: the torque file, the JSON, the printed errors and one-line refusals."""

import json
import re

import numpy as np
import pytest

from robohw.commands import main
from robohw.dynamics.inverse.reference import link_frame_torques
from robohw.robots import load_robot


def test_a_run_writes_its_torques_errors_and_cycles(tmp_path, capsys):
    out, summary = tmp_path / "tau.csv", tmp_path / "run.json"
    assert main(["distributed", "--trajectory", "1", "--duration", "2", "--scheme", "zero",
                 "--out", str(out), "--json", str(summary)]) == 0
    printed = capsys.readouterr().out
    assert "401 samples, 257 cycles per sample" in printed
    assert re.search(r"error %\s+3\.215\s+1\.541\s+0\.978\s+1\.886\s+3\.636\s+6\.523", printed)
    lines = out.read_text().splitlines()
    assert lines[0] == ("t,tau1,tau2,tau3,tau4,tau5,tau6,exact1,exact2,exact3,exact4,exact5,"
                        "exact6,valid")
    rows = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    assert rows.shape == (401, 14) and np.all(rows[:, -1] == 1)
    assert np.allclose(rows[:, 0], np.arange(401) * 0.005)
    # The exact columns are the Newton-Euler torques of the trajectory's states.
    from robohw.distributed.thesis import sample_trajectory
    _, q, qd, qdd = sample_trajectory(1, 2.0)
    assert np.allclose(rows[:, 7:13], link_frame_torques(load_robot("stanford_thesis"), q, qd,
                                                         qdd), atol=1e-12, rtol=0)
    data = json.loads(summary.read_text())
    assert set(data) == {"format_version", "trajectory", "duration", "scheme", "backend",
                         "error_percent", "cycles_per_sample"}
    assert (data["trajectory"], data["duration"], data["scheme"], data["backend"],
            data["cycles_per_sample"]) == (1, 2.0, "zero", "float", 257)
    assert abs(data["error_percent"][0] - 3.215) < 5e-4


@pytest.mark.parametrize("scheme, cycles", [("serial", 1542), ("v1", 1052), ("v2", 812),
                                            ("first", 334), ("hybrid", 497), ("bejczy", None)])
def test_every_scheme_reports_its_cycles(scheme, cycles, tmp_path, capsys):
    summary = tmp_path / "run.json"
    assert main(["distributed", "--trajectory", "2", "--duration", "1", "--scheme", scheme,
                 "--json", str(summary)]) == 0
    data = json.loads(summary.read_text())
    assert data["cycles_per_sample"] == cycles
    exact = scheme in ("serial", "v1", "v2")
    assert (max(data["error_percent"]) < 1e-10) == exact


def test_the_model_backend_regenerates_the_tables_error(tmp_path, capsys):
    summary = tmp_path / "run.json"
    assert main(["distributed", "--trajectory", "1", "--duration", "2", "--scheme", "hybrid",
                 "--backend", "model", "--width", "32", "--json", str(summary)]) == 0
    data = json.loads(summary.read_text())
    assert (data["backend"], data["cycles_per_sample"]) == ("model", 497)
    # Table 6.6's row from the model's bits: the float's to the printed digits.
    assert np.allclose(data["error_percent"][:5], [1.727, 1.109, 0.563, 1.398, 3.505],
                       atol=5e-4)
    assert data["error_percent"][5] < 0.01
    # Faster than the formats are proven for: samples out of bounds are flagged, not wrong.
    out = tmp_path / "fast.csv"
    assert main(["distributed", "--trajectory", "1", "--duration", "0.8", "--scheme", "zero",
                 "--backend", "model", "--out", str(out)]) == 0
    assert "samples not valid" in capsys.readouterr().err
    rows = [line.split(",") for line in out.read_text().splitlines()[1:]]
    invalid = [row for row in rows if row[-1] == "0"]
    assert invalid and all(float(v) == 0 for row in invalid for v in row[1:7])


@pytest.mark.slow
def test_model_rtl_and_compiled_write_the_same_file(tmp_path, compiled_models, monkeypatch):
    # A short run (0.02 s: 5 samples, after 10 of warm-up) at 24 bits.
    monkeypatch.setenv("ROBOHW_CACHE", str(compiled_models.parent))
    files = {}
    for backend in ("model", "rtl", "compiled"):
        files[backend] = tmp_path / f"{backend}.csv"
        assert main(["distributed", "--trajectory", "1", "--duration", "0.02", "--scheme",
                     "zero", "--backend", backend, "--width", "24", "--out",
                     str(files[backend])]) == 0
    assert files["rtl"].read_bytes() == files["model"].read_bytes() == \
        files["compiled"].read_bytes()


@pytest.mark.parametrize("argv, message", [
    (["--duration", "0"], "--duration must be a positive number, not '0'"),
    (["--scheme", "fast"], "invalid choice: 'fast'"),
    (["--trajectory", "3"], "invalid choice: 3"),
    (["--out", "/nonexistent/tau.csv"], "cannot write /nonexistent/tau.csv: directory "
                                        "/nonexistent does not exist"),
    (["--via-q6", "50"], "--via-q6 must be a finite number of degrees, with --trajectory 2"),
    (["--robot", "planar_2r"], "planar_2r"),
    (["--backend", "rtl", "--scheme", "bejczy"], "scheme 'bejczy' (Bejczy's simplified model, "
                                                 "the thesis's baseline) runs on the float"),
    (["--width", "16"], "--width must be an integer [24, 64], not '16'"),
])
def test_bad_input_is_one_line(argv, message, capsys):
    base = {"--trajectory": "1", "--duration": "1", "--scheme": "zero"}
    for option, value in zip(argv[::2], argv[1::2]):
        base[option] = value
    args = ["distributed", *[x for pair in base.items() for x in pair]]
    try:
        code = main(args)
    except SystemExit as exit_info:
        code = exit_info.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_robot_with_other_than_six_joints_is_refused(tmp_path, capsys):
    robot = tmp_path / "two.toml"
    robot.write_text('name = "two"\n' + '[[joint]]\ntype = "revolute"\na = 0.5\nalpha = 0.0\n'
                     'd = 0.0\noffset = 0.0\nmass = 1.0\ncom = [0.0, 0.0, 0.0]\n'
                     'inertia = [0.1, 0.1, 0.1, 0.0, 0.0, 0.0]\n' * 2)
    assert main(["distributed", "--trajectory", "1", "--duration", "1", "--scheme", "zero",
                 "--robot", str(robot)]) == 2
    assert "the thesis's trajectories move 6 joints, not 2" in capsys.readouterr().err


@pytest.mark.parametrize("backend", ["float", "model"])
def test_a_robot_the_trajectory_does_not_fit_is_refused(backend, capsys):
    # The thesis's q3 is in metres: an all-revolute arm would take it as radians.
    assert main(["distributed", "--trajectory", "1", "--duration", "1", "--scheme", "zero",
                 "--robot", "puma560", "--backend", backend]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if "warning" not in line]
    assert err == [f"robohw distributed: {load_robot('puma560').source}: the thesis's "
                   f"trajectories move joint 3 in metres, a prismatic joint; this robot's "
                   f"joint 3 is revolute"]
