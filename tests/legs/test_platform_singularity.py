"""The one singularity rule of the platform commands (robohw.legs.singularity): a pose whose
condition number times the backend's unit error passes 1e-3 is near_singular, on ik,
jacobian, dynamics and fk alike, and --max-cond replaces the limit on each."""

import numpy as np
import pytest

from robohw.commands import main
from robohw.legs import solve_platform
from robohw.legs.dynamics_graph import state_fields
from robohw.legs.platform_kinematics import inverse_kinematics, jacobian
from robohw.legs.singularity import condition_limit, condition_numbers
from robohw.robots.platform import load_platform

HEXAPOD = load_platform("hexapod")
# Turned by a quarter turn less d about its axis, the hexapod is singular at d = 0 (its legs
# all inside their strokes): cond(K/rho) is about 5.8 / d.
DISTANCES = (1e-1, 1e-3, 1e-5, 1e-7, 1e-9, 1e-11, 1e-13, 1e-15)


def turned(distances):
    return np.array([[0.0, 0.0, 0.35, 0.0, 0.0, np.pi / 2 - d] for d in distances])


def expected(backend, width=24, **unit):
    condition = condition_numbers(jacobian(HEXAPOD, turned(DISTANCES))[1])
    return np.where(condition > condition_limit(backend, width, **unit), "near_singular", "ok")


def test_the_poses_approach_a_singularity_inside_the_strokes():
    lengths = inverse_kinematics(HEXAPOD, turned(DISTANCES))
    assert (lengths >= 0.45).all() and (lengths <= 0.85).all()
    condition = condition_numbers(jacobian(HEXAPOD, turned(DISTANCES))[1])
    assert np.all(np.diff(condition) > 0) and condition[0] < 100 and condition[-1] > 1e14


def test_the_limit_scales_with_the_backends_precision():
    assert condition_limit("float") == pytest.approx(4.5e12, rel=1e-3)
    assert condition_limit("model", 24) == pytest.approx(8389, rel=1e-3)
    assert condition_limit("rtl", 16) == pytest.approx(32.8, rel=1e-2)
    assert condition_limit("float", tolerance=1e-12, shortest=0.45) == pytest.approx(4.5e8)
    assert condition_limit("model", 24, max_cond=50.0) == 50.0


@pytest.mark.parametrize("command", ["ik", "jacobian"])
@pytest.mark.parametrize("backend", ["float", "model"])
def test_poses_near_the_singularity_are_near_singular(command, backend):
    _, valid, reason = solve_platform(HEXAPOD, command, turned(DISTANCES), backend)
    want = expected(backend)
    assert reason.tolist() == want.tolist() and valid.tolist() == (want == "ok").tolist()
    assert 0 < valid.sum() < len(DISTANCES)


def test_a_platform_at_rest_near_the_singularity():
    # At rest, the actuators hold the platform's weight: toward the singularity the forces
    # grow as 1 / d (they are right, huge), until the rule's limit (float: at 1e-13 of a
    # quarter turn; 24 bits: the hardware's format gives out first, by its own flag).
    states = np.column_stack([turned(DISTANCES), np.zeros((len(DISTANCES), 12))])
    assert states.shape[1] == len(state_fields(HEXAPOD))
    forces, valid, reason = solve_platform(HEXAPOD, "dynamics", states)
    assert reason.tolist() == expected("float").tolist()
    assert not valid[-2:].any() and (forces[~valid] == 0).all()
    # The hardware's valid rows agree with float64 within the rule's promise.
    model, valid_model, _ = solve_platform(HEXAPOD, "dynamics", states, "model")
    assert 0 < valid_model.sum() and not (valid_model & ~valid).any()
    rows = valid_model
    error = np.abs(model[rows] - forces[rows]).max(1) / np.abs(forces[rows]).max(1)
    assert error.max() <= 1e-3


def test_forward_kinematics_takes_its_tolerance_into_the_rule():
    # The rule reads the condition number at the pose found. Near the singularity the legs
    # pin the pose down only to cond times the tolerance: a valid answer keeps that within
    # the rule's promise.
    truth = turned(DISTANCES)
    lengths = inverse_kinematics(HEXAPOD, truth)
    poses, valid, reason = solve_platform(HEXAPOD, "fk", lengths, guess=turned([1e-2])[0])
    found = condition_numbers(jacobian(HEXAPOD, poses[:, :6])[1])
    limit = condition_limit("float", tolerance=1e-12, shortest=0.45)
    converged = reason != "unreachable"
    assert (reason[converged] == np.where(found > limit, "near_singular", "ok")[converged]).all()
    assert valid.all()
    assert np.abs(poses[:, :6] - truth).max() <= 1e-3
    # A tighter limit marks the same answers near-singular past it.
    _, valid, reason = solve_platform(HEXAPOD, "fk", lengths, guess=turned([1e-2])[0],
                                      max_cond=1e4)
    assert reason.tolist() == np.where(found > 1e4, "near_singular", "ok").tolist()


def test_max_cond_applies_to_every_command(tmp_path, capsys):
    poses = tmp_path / "poses.csv"
    poses.write_text("x,y,z,roll,pitch,yaw\n" + "".join(
        ",".join(repr(float(v)) for v in row) + "\n" for row in turned(DISTANCES[:3])))
    lengths = tmp_path / "lengths.csv"
    rho = inverse_kinematics(HEXAPOD, turned(DISTANCES[:3]))
    lengths.write_text(",".join(f"rho{k}" for k in range(1, 7)) + "\n" + "".join(
        ",".join(repr(float(v)) for v in row) + "\n" for row in rho))
    for action, source, path in (("ik", "--poses", poses), ("jacobian", "--poses", poses),
                                 ("fk", "--lengths", lengths)):
        out = tmp_path / f"{action}.csv"
        assert main(["platform", action, source, str(path), "--out", str(out), "--max-cond",
                     "100", "--reasons"]) == 0
        reasons = [line.rsplit(",", 1)[1] for line in out.read_text().splitlines()[1:]]
        assert reasons == ["ok", "near_singular", "near_singular"], action


def wide_planar_poses():
    """Planar poses over three times the workspace, every leg inside its stroke, and their
    lengths: many admit another assembly mode with the same legs."""
    from robohw.robots.sampling import sample_poses
    planar = load_platform("planar_3rpr")
    truth = sample_poses(planar, 3000, np.random.default_rng(4), scale=3.0)
    lengths = inverse_kinematics(planar, truth)
    low = [leg.stroke[0] for leg in planar.legs]
    high = [leg.stroke[1] for leg in planar.legs]
    inside = np.all((lengths >= low) & (lengths <= high), axis=1)
    return planar, truth[inside], lengths[inside]


def test_forward_kinematics_finds_the_solution_nearest_its_start():
    planar, truth, lengths = wide_planar_poses()
    poses, valid, _ = solve_platform(planar, "fk", lengths)
    other = valid & (np.abs(poses[:, :3] - truth).max(1) > 1e-6)
    # From home, a third of the valid rows are another assembly mode (every leg right).
    assert other.sum() > 0.2 * valid.sum()
    assert np.abs(inverse_kinematics(planar, poses[other, :3]) - lengths[other]).max() < 1e-9
    # From each row's own start near the wanted pose, every valid row is that pose.
    start = truth + np.random.default_rng(1).normal(0, 1e-5, truth.shape)
    poses, valid, _ = solve_platform(planar, "fk", np.column_stack([lengths, start]),
                                     guess="columns")
    assert valid.mean() > 0.95
    assert np.abs(poses[valid, :3] - truth[valid]).max() < 1e-6


def test_forward_kinematics_along_a_trajectory_starts_from_the_answer_before(tmp_path):
    from robohw.robots.sampling import sample_trajectory
    planar = load_platform("planar_3rpr")
    truth = sample_trajectory(planar, 300, np.random.default_rng(2))
    lengths = inverse_kinematics(planar, truth)
    poses, valid, _ = solve_platform(planar, "fk", lengths, guess="previous")
    assert valid.all() and np.abs(poses[:, :3] - truth).max() < 1e-9
    # On the command line: --guess previous, and columns read from the file.
    path = tmp_path / "lengths.csv"
    path.write_text("rho1,rho2,rho3,guess_x,guess_y,guess_phi\n" + "".join(
        ",".join(repr(float(v)) for v in row) + "\n"
        for row in np.column_stack([lengths, truth])))
    for option in ("previous", "columns"):
        out = tmp_path / f"{option}.csv"
        assert main(["platform", "fk", "--platform", "planar_3rpr", "--lengths", str(path),
                     "--out", str(out), "--guess", option]) == 0
        got = np.array([[float(v) for v in line.split(",")[:3]]
                        for line in out.read_text().splitlines()[1:]])
        assert np.abs(got - truth).max() < 1e-9


def test_a_tolerance_float64_cannot_meet_is_refused(tmp_path, capsys):
    path = tmp_path / "lengths.csv"
    path.write_text("rho1,rho2,rho3,rho4,rho5,rho6\n" + ",".join(["0.66"] * 6) + "\n")
    out = tmp_path / "poses.csv"
    assert main(["platform", "fk", "--lengths", str(path), "--out", str(out), "--tolerance",
                 "1e-16"]) == 2
    err = capsys.readouterr().err
    assert err == ("robohw platform fk: tolerance must be at least 8.9e-16 m, not 1e-16: "
                   "float64 resolves a leg's length only to about that (8 units in the last "
                   "place of the longest stroke)\n")
    assert not out.exists()
    assert main(["platform", "fk", "--lengths", str(path), "--out", str(out), "--tolerance",
                 "1e-15"]) == 0
