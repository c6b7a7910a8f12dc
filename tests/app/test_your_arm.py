"""A user's own arm end to end (examples/seven_joint_arm.urdf: seven joints, robohw does not ship
it): the model backend plans once a run and never schedules the engine; the closing lines give
every joint's bound and ``--bounds`` writes them beside the values, each valid value within its
bound of float64; the engine's options need no ``--design``; a refusal names the file, the
design, the widths and what to change; ``robohw board run --port sim`` gives the model's file
byte for byte."""

import csv
import pathlib

import numpy as np
import pytest
from state_files import write_state_file

import robohw.dynamics.inverse.designs as inverse_designs
import robohw.dynamics.inverse.files as inverse_files
from robohw.commands import main
from robohw.dynamics import solve_dynamics
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.robots import hardware_robot, load_robot
from robohw.robots.sampling import sample_states
from robohw.support.figures import figure_list
from robohw.support.held import Held
from robohw.systolic import solve_inertia
from robohw.systolic.reference import jacobian_inertia

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
ARM = EXAMPLES / "seven_joint_arm.urdf"
TIP = "wrist"


@pytest.fixture(scope="module")
def arm():
    return load_robot(str(ARM), tip=TIP)


def _states(robot, count, seed=3):
    return sample_states(robot, count, np.random.default_rng(seed))


def _read(path):
    with open(path) as file:
        return list(csv.DictReader(file))


def test_the_model_plans_once_a_run_and_never_schedules_the_engine(arm, monkeypatch):
    # A fresh run: no machine held. The model takes the traced plan; the engine's schedule
    # (its interval search and compile_program) is the hardware's alone.
    monkeypatch.setattr(inverse_designs, "_DEFAULT_MACHINES", Held(8))
    monkeypatch.setattr(inverse_files, "_BUILT", Held(4))

    def no_schedule(*args, **kwargs):
        raise AssertionError("the model backend compiled the engine's schedule")
    monkeypatch.setattr("robohw.engine.plan.compile_program", no_schedule)
    chosen = []
    original = inverse_designs.DynamicsDesign.for_robot

    def counted(self, *args, **kwargs):
        chosen.append(self.name)
        return original(self, *args, **kwargs)
    monkeypatch.setattr(inverse_designs.DynamicsDesign, "for_robot", counted)
    q, qd, qdd = _states(arm, 40)
    first = solve_dynamics(arm, q[:20], qd[:20], qdd[:20], "model")
    second = solve_dynamics(arm, q[20:], qd[20:], qdd[20:], "model")
    assert chosen == ["dynamics-engine"]                    # the defaults chosen once
    assert first.accuracy == second.accuracy and first.valid.all() and second.valid.all()


def test_the_closing_lines_and_bound_columns_give_every_joints_bound(arm, tmp_path, capsys):
    q, qd, qdd = _states(arm, 30)
    qd[::10] *= 5.0                                         # beyond the limits: not valid
    write_state_file(tmp_path / "s.csv", q, qd, qdd)
    # The engine's interval needs no --design: the engine is the default.
    assert main(["dynamics", "--states", str(tmp_path / "s.csv"), "--out",
                 str(tmp_path / "tau.csv"), "--robot", str(ARM), "--tip", TIP, "--backend",
                 "model", "--bounds", "--ii", "12"]) == 0
    err = capsys.readouterr().err
    promise = solve_dynamics(arm, q, qd, qdd, "model").accuracy
    assert f"; each torque proven within its joint's bound, {figure_list(promise.bounds)} N m " \
           f"(joints 1 to 7; the largest " in err
    rows = _read(tmp_path / "tau.csv")
    assert list(rows[0]) == [*(f"tau{k}" for k in range(1, 8)),
                             *(f"bound{k}" for k in range(1, 8)), "valid"]
    tau = np.array([[float(r[f"tau{k}"]) for k in range(1, 8)] for r in rows])
    bounds = np.array([[float(r[f"bound{k}"]) for k in range(1, 8)] for r in rows])
    valid = np.array([r["valid"] == "1" for r in rows])
    assert 0 < valid.sum() < len(valid)
    assert np.array_equal(bounds[valid], np.tile(promise.bounds, (valid.sum(), 1)))
    assert not bounds[~valid].any()
    # Every valid torque within its own joint's bound of float64 (the arm has no friction) on
    # the arm the hardware is generated from (the URDF chain's snapped DH form).
    error = np.abs(tau - inverse_dynamics(hardware_robot(arm, terms=()), q, qd, qdd))[valid]
    assert (error <= bounds[valid]).all()


def test_the_inertia_bounds_are_per_entry_and_per_row(arm, tmp_path, capsys):
    q = _states(arm, 12)[0]
    (tmp_path / "q.csv").write_text(",".join(f"q{k}" for k in range(1, 8)) + "\n" + "".join(
        ",".join(repr(float(v)) for v in row) + "\n" for row in q))
    assert main(["inertia", "--q", str(tmp_path / "q.csv"), "--out", str(tmp_path / "h.csv"),
                 "--robot", str(ARM), "--tip", TIP, "--backend", "model", "--bounds"]) == 0
    err = capsys.readouterr().err
    promise = solve_inertia(arm, q, "model").accuracy
    assert f"; each entry proven within its row's bound, {figure_list(promise.row_bounds)} " \
           f"(rows 1 to 7 of H, SI units; " in err
    rows = _read(tmp_path / "h.csv")
    pairs = [(j, i) for j in range(1, 8) for i in range(1, 8)]
    h = np.array([[float(r[f"H{j}{i}"]) for j, i in pairs] for r in rows])
    bounds = np.array([[float(r[f"bound{j}{i}"]) for j, i in pairs] for r in rows])
    assert all(r["valid"] == "1" for r in rows)
    assert np.array_equal(bounds[0], [promise.bounds.get((j, i), promise.bounds.get((i, j)))
                                      for j, i in pairs])
    # Each entry within its bound of float64 on the arm the hardware is generated from (the
    # URDF chain's snapped DH form: robohw.robots.hardware_form).
    # The bounds are against exact arithmetic: float64's own rounding of the reference beside
    # them (a constant entry's bound is its one rounding), as tests/app/test_cli.py allows.
    reference = jacobian_inertia(hardware_robot(arm, terms=()), q).reshape(len(q), -1)
    slack = 8 * np.finfo(float).eps * np.abs(reference).max()
    assert (np.abs(h - reference) <= bounds + slack).all()


def test_the_float_backend_proves_no_bound_to_write(tmp_path, capsys):
    # Forward dynamics certifies float64's rows too (tests/dynamics/test_forward_command.py).
    write_state_file(tmp_path / "s.csv", *(np.zeros((1, 6)),) * 3)
    for command, source in (("dynamics", "--states"), ("inertia", "--q")):
        assert main([command, source, str(tmp_path / "s.csv"), "--out",
                     str(tmp_path / "o.csv"), "--robot", "ur5", "--bounds"]) == 2
        assert capsys.readouterr().err == (
            f"robohw {command}: --bounds applies to the hardware backends (model, rtl, "
            f"compiled): the float backend proves no bound\n")


def test_an_absurd_mass_is_named_by_every_model(tmp_path, capsys):
    # A link of 1e30 kg: gravity asks 1e26 N m of drives the file limits to 50; the mass, not
    # a velocity limit, is what the refusal names.
    heavy = tmp_path / "heavy.urdf"
    heavy.write_text(ARM.read_text().replace('<mass value="2.3"/>', '<mass value="1e30"/>'))
    (tmp_path / "heavy.urdf.toml").write_text(ARM.with_name(ARM.name + ".toml").read_text())
    robot = load_robot(str(heavy), tip=TIP)
    write_state_file(tmp_path / "s.csv", *_states(robot, 2))
    assert main(["dynamics", "--states", str(tmp_path / "s.csv"), "--out",
                 str(tmp_path / "o.csv"), "--robot", str(heavy), "--tip", TIP, "--backend",
                 "model", "--width", "24"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        f"robohw dynamics: {heavy}: the engine design at 24 bits: its torques are proven "
        f"within ")
    assert "the 50 N m its torque limits allow a joint" in err
    assert err.endswith("; link 5's mass of 1e+30 kg weighs most (halved: "
                        + err.split("(halved: ")[1].split(")")[0]
                        + "): check it in the robot file\n")
    (tmp_path / "q.csv").write_text("q1,q2,q3,q4,q5,q6,q7\n0,0,0,0.5,0,0,0\n")
    assert main(["inertia", "--q", str(tmp_path / "q.csv"), "--out", str(tmp_path / "h.csv"),
                 "--robot", str(heavy), "--tip", TIP, "--backend", "model"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        f"robohw inertia: {heavy}: the inertia-linear design: no width from 18 to 31 keeps its "
        f"bit-exact model within 0.0001 of its largest output")
    assert "its largest value: joint w0's mass of 1e+30); what would serve: --width W" in err
    # At a width given, nothing is measured; a bound beyond the largest entry proves nothing.
    assert main(["inertia", "--q", str(tmp_path / "q.csv"), "--out", str(tmp_path / "h.csv"),
                 "--robot", str(heavy), "--tip", TIP, "--backend", "model", "--width",
                 "24"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        f"robohw inertia: {heavy}: the inertia-linear design at 24 bits: its entries are proven "
        f"within ")
    assert err.endswith("so no entry is known; its largest value: joint w0's mass of 1e+30; "
                        "what would serve: a wider --width, or a robot file whose values are "
                        "its arm's\n")


@pytest.mark.heavy
def test_a_simulated_board_computes_the_models_file(tmp_path, capsys):
    # The two-link fixture: its board compiles in seconds; the protocol is the UR5's.
    two = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "two_link.urdf"
    robot = load_robot(str(two))
    q, qd, qdd = _states(robot, 60)
    qd[::7] *= 30.0
    write_state_file(tmp_path / "s.csv", q, qd, qdd)
    common = ["--states", str(tmp_path / "s.csv"), "--robot", str(two), "--reasons"]
    assert main(["board", "run", "--port", "sim", "--out", str(tmp_path / "board.csv"),
                 *common, "--quiet"]) == 0
    assert main(["dynamics", "--backend", "model", "--out", str(tmp_path / "model.csv"),
                 *common]) == 0
    board, model = (tmp_path / "board.csv").read_bytes(), (tmp_path / "model.csv").read_bytes()
    assert board == model and b"outside_limits" in model
    capsys.readouterr()
    assert main(["board", "run", "--port", "sim", "--baud", "115200", "--out",
                 str(tmp_path / "o.csv"), *common]) == 2
    assert "--baud applies to a serial port, not --port sim" in capsys.readouterr().err
