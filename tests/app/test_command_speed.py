"""robohw bench commands: Pinocchio, built from our robot descriptions, agrees with our float64
references (when the bench extra is installed); the benchmark times every path as a whole
command and says "not measured" for Pinocchio without it."""

import pathlib

import pytest

from robohw.flows.command_speed import bench_commands, check_pinocchio, format_command_bench
from robohw.robots import load_robot
from robohw.robots import pinocchio as peer


@pytest.mark.parametrize("robot", ["puma560", "stanford"])
def test_pinocchio_agrees_with_our_float64_references(robot):
    pytest.importorskip("pinocchio")
    differences = check_pinocchio(load_robot(robot), count=100)
    assert differences["tau"] < 1e-12 and differences["H"] < 1e-12


@pytest.mark.heavy
def test_the_benchmark_times_every_path_and_says_what_it_did_not_measure(monkeypatch):
    monkeypatch.setattr(peer, "pinocchio_module", lambda: None)
    # A shipped name and a user's URDF file (its sidecar names its tip) alike.
    arm = str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "seven_joint_arm.urdf")
    rows = bench_commands(robots=("stanford", arm), states=20, widths=(24,), repeats=1)
    paths = [(r["robot"], r["path"]) for r in rows]
    assert paths == [
        (None, "robohw --help"), (None, "robohw dynamics, one state"),
        *((robot, path) for robot in ("stanford", arm) for path in (
            "robohw dynamics, float", "robohw dynamics, model, default width",
            "robohw dynamics, model, 24 bits", "Pinocchio rnea, Python loop",
            "robohw inertia, float", "robohw inertia, model, default width",
            "robohw inertia, model, 24 bits", "Pinocchio crba, Python loop"))]
    assert all(r["seconds"] > 0 for r in rows if not r["path"].startswith("Pinocchio"))
    assert all(r["seconds"] is None for r in rows if r["path"].startswith("Pinocchio"))
    table = format_command_bench(rows)
    assert table.count("not measured") == 4
