"""Parallel manipulators (Gosselin 1996): platform files, and the float references of the
kinematics and dynamics against independent formulations (finite differences, the principle
of virtual power, the energy balance along a trajectory, the paper's planar equations)."""

import math
import re

import numpy as np
import pytest

from robohw.legs.platform_dynamics import gosselin_dynamics, virtual_power_dynamics
from robohw.legs.platform_kinematics import (
    displaced,
    forward_kinematics,
    inverse_kinematics,
    jacobian,
    jacobian_derivative_row,
    leg_geometry,
    pose_arrays,
    rotation,
)
from robohw.robots.algebra import FloatArith
from robohw.robots.platform import (
    SHIPPED_PLATFORMS,
    PlatformFileError,
    PlatformFileWarning,
    load_platform,
)
from robohw.robots.sampling import sample_poses

# --- files ---------------------------------------------------------------------------------

def test_shipped_platforms_load():
    for name in SHIPPED_PLATFORMS:
        platform = load_platform(name)
        assert platform.name == name and platform.citation.startswith("ours")
    hexapod = load_platform()
    assert hexapod.kind == "spatial" and len(hexapod.legs) == 6
    assert hexapod.pose_fields == ("x", "y", "z", "roll", "pitch", "yaw")
    planar = load_platform("planar_3rpr")
    assert planar.kind == "planar" and len(planar.legs) == 3 and planar.gravity == (0.0, 0.0)


GOOD = """name = "t"
kind = "planar"
home = [0.45, 0.3, 0.3]
[platform]
mass = 1.0
com = [0.0, 0.0]
inertia = 0.1
""" + "".join(f"""[[leg]]
base = [{x}, {y}]
platform = [0.1, 0.0]
stroke = [0.1, 1.2]
lower = {{ mass = 1.0, com_distance = 0.1, inertia = 0.01 }}
upper = {{ mass = 1.0, com_distance = 0.1, inertia = 0.01 }}
""" for x, y in ((0, 0), (1, 0), (0.5, 0.8)))


@pytest.mark.parametrize("change, message", [
    (("kind = \"planar\"", "kind = \"delta\""), r"kind: expected \"spatial\" or \"planar\""),
    (("stroke = [0.1, 1.2]", "stroke = [1.2, 0.1]"), r"leg 1: stroke: need 0 < shortest"),
    (("lower = { mass = 1.0", "lower = { mass = -1.0"), r"leg 1: lower.mass: must not be neg"),
    (("upper = { mass = 1.0, com_distance = 0.1, inertia = 0.01 }",
      "upper = { mass = 1.0, com_distance = 0.1 }"), r"leg 1: upper.inertia: missing"),
    (("base = [0, 0]", "base = [0, 0, 0]"), r"leg 1: base: expected a list of 2 numbers"),
    (("home = [0.45, 0.3, 0.3]\n", ""), r"home: missing \(the pose x, y, phi"),
    (("inertia = 0.1", "inertia = -0.1"), r"platform.inertia: must not be negative"),
    (("mass = 1.0\ncom", "mass = 1.0\nwheels = 3\ncom"), r"platform.wheels: unknown field"),
    (("name = \"t\"", "name = \"t\"\ncolour = 1"), r"colour: unknown field"),
    (("com = [0.0, 0.0]", "com = [0.0, nan]"), r"platform.com: expected a finite number"),
])
def test_bad_files_are_one_line_naming_file_leg_and_field(tmp_path, change, message):
    path = tmp_path / "p.toml"
    path.write_text(GOOD.replace(*change, 1))
    with pytest.raises(PlatformFileError, match=message) as info:
        load_platform(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_a_spatial_platform_needs_six_legs_and_a_sane_inertia(tmp_path):
    text = (load_platform().source and open(load_platform().source).read())
    path = tmp_path / "p.toml"
    path.write_text(text.replace("[[leg]]", "[[legless]]", 1))
    with pytest.raises(PlatformFileError, match="legless: unknown field"):
        load_platform(path)
    first = text.index("[[leg]]")
    path.write_text(text[:first] + text[text.index("[[leg]]", first + 1):])
    with pytest.raises(PlatformFileError, match="a spatial platform has 6 .* not 5"):
        load_platform(path)
    path.write_text(text.replace("[0.5, 0.5, 0.9, 0.0, 0.0, 0.0]", "[0.5, 0.5, 0.9, 2.0, 0, 0]"))
    with pytest.raises(PlatformFileError, match="not positive semidefinite"):
        load_platform(path)
    path.write_text(text.replace("[0.5, 0.5, 0.9, 0.0, 0.0, 0.0]", "[0.1, 0.1, 0.9, 0, 0, 0]"))
    with pytest.warns(PlatformFileWarning, match="triangle inequality"):
        load_platform(path)
    with pytest.raises(PlatformFileError, match="no such file .*hexapod, planar_3rpr"):
        load_platform(tmp_path / "none.toml")
    path.write_text("name = [")
    with pytest.raises(PlatformFileError, match="not valid TOML"):
        load_platform(path)


# --- kinematics ------------------------------------------------------------------------------

def test_inverse_kinematics_against_a_direct_formula():
    rng = np.random.default_rng(1)
    platform = load_platform()
    poses = sample_poses(platform, 200, rng)
    Q = np.moveaxis(np.array(rotation(*poses[:, 3:].T)), -1, 0)
    a = np.array([leg.base for leg in platform.legs])
    b = np.array([leg.platform for leg in platform.legs])
    direct = np.linalg.norm(poses[:, None, :3] + np.einsum("nij,lj->nli", Q, b) - a, axis=2)
    assert np.abs(inverse_kinematics(platform, poses) - direct).max() < 1e-14
    # The spec's home pose: every leg 0.66347 m.
    assert np.allclose(inverse_kinematics(platform, [platform.home]), 0.6634699, atol=1e-7)


def test_planar_inverse_kinematics_is_the_papers_eqs_24_to_26():
    rng = np.random.default_rng(2)
    platform = load_platform("planar_3rpr")
    poses = sample_poses(platform, 100, rng)
    x, y, phi = poses.T
    for k, leg in enumerate(platform.legs):
        (ax, ay), (bx, by) = leg.base, leg.platform
        u = x + bx * np.cos(phi) - by * np.sin(phi) - ax
        v = y + bx * np.sin(phi) + by * np.cos(phi) - ay
        assert np.allclose(inverse_kinematics(platform, poses)[:, k], np.hypot(u, v),
                           rtol=0, atol=1e-15)


@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_jacobian_rows_are_the_derivative_of_the_leg_lengths(name):
    # rho_dot = (K / rho) t: the sign of the printed eq. (9) is the other one.
    platform = load_platform(name)
    rng = np.random.default_rng(3)
    poses = sample_poses(platform, 300, rng)
    twist = rng.normal(size=(300, 6 if platform.spatial else 3))
    _, rows = jacobian(platform, poses)
    h = 1e-5
    central = (inverse_kinematics(platform, displaced(platform, poses, twist, h)) -
               inverse_kinematics(platform, displaced(platform, poses, twist, -h))) / (2 * h)
    assert np.abs(np.einsum("nij,nj->ni", rows, twist) - central).max() < 1e-7


def test_jacobian_derivative_rows_against_finite_differences():
    platform = load_platform()
    rng = np.random.default_rng(4)
    poses, twist = sample_poses(platform, 100, rng), rng.normal(size=(100, 6))
    arith, h = FloatArith(), 1e-5

    def rows(p):
        r, Q = pose_arrays(platform, p)
        return np.array([[np.broadcast_to(v, (100,)) for v in
                          (lambda g: (g.qb[1] * g.s[2] - g.qb[2] * g.s[1],
                                      g.qb[2] * g.s[0] - g.qb[0] * g.s[2],
                                      g.qb[0] * g.s[1] - g.qb[1] * g.s[0], *g.s))(
                              leg_geometry(platform, leg, r, Q, arith))]
                         for leg in platform.legs])
    central = (rows(displaced(platform, poses, twist, h)) -
               rows(displaced(platform, poses, twist, -h))) / (2 * h)
    r, Q = pose_arrays(platform, poses)
    omega, r_dot = tuple(twist[:, :3].T), tuple(twist[:, 3:].T)
    for k, leg in enumerate(platform.legs):
        k_dot, _ = jacobian_derivative_row(leg_geometry(platform, leg, r, Q, arith), omega,
                                           r_dot)
        assert np.abs(np.array(k_dot) - central[k]).max() < 1e-7


# --- dynamics --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_gosselins_decomposition_equals_virtual_power(name):
    platform = load_platform(name)
    rng = np.random.default_rng(5)
    dof = 6 if platform.spatial else 3
    poses = sample_poses(platform, 1000, rng)
    velocities, accelerations = rng.normal(0, 0.5, (1000, dof)), rng.normal(0, 2, (1000, dof))
    forces, condition = gosselin_dynamics(platform, poses, velocities, accelerations)
    independent = virtual_power_dynamics(platform, poses, velocities, accelerations)
    scale = np.abs(independent).max(axis=1)
    assert np.all(np.isfinite(condition))
    assert (np.abs(forces - independent).max(axis=1) / scale).max() < 1e-9


def test_static_home_and_the_specs_test_state():
    platform = load_platform()
    zero = np.zeros((1, 6))
    forces, _ = gosselin_dynamics(platform, [platform.home], zero, zero)
    # Statics: the 10 kg platform and each leg's upper part (1 kg), shared by six legs.
    assert np.allclose(forces, 29.67193336, atol=1e-8)
    # The spec's trajectory at t = 0.7 s (its published forces, two decimals).
    from robohw.legs.paper_checks import spec_test_state
    pose, twist, acceleration = spec_test_state()
    forces, _ = gosselin_dynamics(platform, pose, twist, acceleration)
    published = [33.44, 32.92, 25.52, 22.98, 39.49, 22.23]
    assert np.round(forces[0], 2).tolist() == published


def _trajectory(platform, times):
    """A smooth motion about the home pose: poses, velocities and accelerations (closed form)."""
    home = np.array(platform.home)
    if platform.spatial:
        amplitude = np.array([0.03, 0.02, 0.04, 0.1, 0.08, 0.12])
    else:
        amplitude = np.array([0.05, 0.04, 0.2])
    rate = np.linspace(1.0, 2.0, len(home))
    pose = home + amplitude * np.sin(np.outer(times, rate))
    d_pose = amplitude * rate * np.cos(np.outer(times, rate))
    dd_pose = -amplitude * rate ** 2 * np.sin(np.outer(times, rate))
    return pose, d_pose, dd_pose


def _euler_rates(pose, d_pose, dd_pose):
    """omega and its derivative (base frame) from ZYX angles and their derivatives."""
    def omega(angles_, rates):
        roll, pitch, yaw = angles_.T
        droll, dpitch, dyaw = rates.T
        # omega = yaw_dot z + pitch_dot Rz(yaw) y + roll_dot Rz(yaw) Ry(pitch) x
        return np.column_stack([
            -dpitch * np.sin(yaw) + droll * np.cos(yaw) * np.cos(pitch),
            dpitch * np.cos(yaw) + droll * np.sin(yaw) * np.cos(pitch),
            dyaw - droll * np.sin(pitch)])
    h = 1e-6
    w = omega(pose[:, 3:], d_pose[:, 3:])
    w_dot = (omega(pose[:, 3:] + h * d_pose[:, 3:], d_pose[:, 3:] + h * dd_pose[:, 3:]) -
             omega(pose[:, 3:] - h * d_pose[:, 3:], d_pose[:, 3:] - h * dd_pose[:, 3:])) / (2 * h)
    return w, w_dot


@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_actuator_power_is_the_rate_of_the_bodies_energy(name):
    # Independent of both formulations: positions only. Along a smooth motion, the
    # actuators' power sum h_i rho_dot_i equals d/dt (kinetic + potential energy) of the
    # platform and the twelve (six) leg parts, their velocities by differences of positions.
    platform = load_platform(name)
    spatial, dt = platform.spatial, 1e-4
    times = np.arange(0.2, 1.2, 0.1)
    offsets = np.array([-2, -1, 0, 1, 2]) * dt
    pose, d_pose, dd_pose = _trajectory(platform, times)
    if spatial:
        w, w_dot = _euler_rates(pose, d_pose, dd_pose)
        velocities = np.column_stack([w, d_pose[:, :3]])
        accelerations = np.column_stack([w_dot, dd_pose[:, :3]])
    else:
        velocities, accelerations = d_pose[:, [2, 0, 1]], dd_pose[:, [2, 0, 1]]
    forces, _ = gosselin_dynamics(platform, pose, velocities, accelerations)
    lengths = {o: inverse_kinematics(platform, _trajectory(platform, times + o)[0])
               for o in offsets}
    rho_dot = (lengths[dt] - lengths[-dt]) / (2 * dt)
    power = np.einsum("ni,ni->n", forces, rho_dot)

    def energy(t):
        p, _, _ = _trajectory(platform, t)
        r, Q = pose_arrays(platform, p)
        Q = np.moveaxis(np.array([[np.broadcast_to(v, (len(t),)) for v in row] for row in Q]),
                        -1, 0)
        r = np.column_stack([np.broadcast_to(v, (len(t),)) for v in r])
        def pad(v):
            return np.array(tuple(v) + (() if spatial else (0.0,)))
        bodies = [(platform.mass, r + Q @ pad(platform.com))]
        frames = [Q]
        for leg in platform.legs:
            s = r + Q @ pad(leg.platform) - pad(leg.base)
            e = s / np.linalg.norm(s, axis=1)[:, None]
            bodies += [(leg.lower.mass, pad(leg.base) + leg.lower.com_distance * e),
                       (leg.upper.mass, r + Q @ pad(leg.platform) - leg.upper.com_distance * e)]
            frames.append(e)
        return bodies, frames

    def total_energy(t):
        """Kinetic (by central differences of positions) plus potential, at times t."""
        states = [energy(t + o) for o in (-dt, 0.0, dt)]
        kinetic = np.zeros(len(t))
        gravity = np.array(tuple(platform.gravity) + (() if spatial else (0.0,)))
        for k, (mass, _) in enumerate(states[1][0]):
            velocity = (states[2][0][k][1] - states[0][0][k][1]) / (2 * dt)
            kinetic += 0.5 * mass * np.einsum("ni,ni->n", velocity, velocity)
            kinetic -= mass * states[1][0][k][1] @ gravity
        # The platform's rotation: omega from Q_dot Q^T; the legs' from e x e_dot.
        Q0, Q1, Q2 = (s[1][0] for s in states)
        skew = ((Q2 - Q0) / (2 * dt)) @ np.swapaxes(Q1, 1, 2)
        omega = np.column_stack([skew[:, 2, 1], skew[:, 0, 2], skew[:, 1, 0]])
        inertia = (np.array(platform.inertia) if spatial
                   else np.diag([0.0, 0.0, platform.inertia]))
        world = Q1 @ inertia @ np.swapaxes(Q1, 1, 2)
        kinetic += 0.5 * np.einsum("ni,nij,nj->n", omega, world, omega)
        for k, leg in enumerate(platform.legs, start=1):
            e0, e1, e2 = (s[1][k] for s in states)
            w_leg = np.cross(e1, (e2 - e0) / (2 * dt))
            kinetic += 0.5 * (leg.lower.inertia + leg.upper.inertia) * \
                np.einsum("ni,ni->n", w_leg, w_leg)
        return kinetic

    rate = (total_energy(times + dt) - total_energy(times - dt)) / (2 * dt)
    # Measured: 2.3e-9 (hexapod) and 2.5e-8 (planar) of the largest power; the differences'
    # own error is about 1e-8.
    assert np.abs(power - rate).max() < 1e-6 * np.abs(power).max()


# --- forward kinematics ----------------------------------------------------------------------

@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_forward_kinematics_recovers_the_pose(name):
    platform = load_platform(name)
    rng = np.random.default_rng(6)
    poses = sample_poses(platform, 500, rng)
    found, steps, reasons = forward_kinematics(platform, inverse_kinematics(platform, poses))
    assert set(reasons) == {""} and steps.max() < 20
    error = found - poses
    if platform.spatial:
        error[:, 3:] = (error[:, 3:] + math.pi) % (2 * math.pi) - math.pi
    assert np.abs(error).max() < 1e-8
    # From the pose itself: no step.
    _, steps, _ = forward_kinematics(platform, inverse_kinematics(platform, poses[:1]),
                                     guess=poses[0])
    assert steps.tolist() == [0]


def test_forward_kinematics_reports_why_it_fails():
    platform = load_platform()
    lengths = inverse_kinematics(platform, [platform.home] * 3)
    lengths[1] = [0.05, 2.0, 0.05, 2.0, 0.05, 2.0]     # no platform has these legs
    _, steps, reasons = forward_kinematics(platform, lengths, iterations=30)
    assert reasons[0] == "" and reasons[1] in ("unreachable", "near_singular")
    assert reasons[2] == ""
    # A singular start: the platform flat in the base plane, every leg row in it.
    flat = list(platform.home)
    flat[2] = 0.0
    _, _, reasons = forward_kinematics(platform, lengths[:1], guess=flat)
    assert reasons.tolist() == ["near_singular"]


# --- command line ----------------------------------------------------------------------------

def _csv(path, header, rows):
    path.write_text(",".join(header) + "\n" + "".join(
        ",".join(repr(float(v)) for v in row) + "\n" for row in rows))
    return path


def _read(path):
    lines = path.read_text().splitlines()
    return lines[0].split(","), [line.split(",") for line in lines[1:]]


@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_ik_then_fk_on_the_command_line(tmp_path, name, capsys):
    from robohw.commands import main
    platform = load_platform(name)
    poses = sample_poses(platform, 20, np.random.default_rng(7))
    poses[3, 2 if platform.spatial else 0] += 5.0      # legs far too long: outside the stroke
    source = _csv(tmp_path / "p.csv", platform.pose_fields[::-1],
                  poses[:, ::-1])                       # any column order
    legs, back = tmp_path / "legs.csv", tmp_path / "back.csv"
    assert main(["platform", "ik", "--poses", str(source), "--out", str(legs),
                 "--platform", name, "--reasons"]) == 0
    header, rows = _read(legs)
    count = len(platform.legs)
    assert header == [f"rho{k}" for k in range(1, count + 1)] + ["valid", "reason"]
    assert rows[3][-2:] == ["0", "outside_limits"] and rows[3][:count] == ["0.0"] * count
    assert [r[-1] for r in rows].count("ok") == 19
    expected = inverse_kinematics(platform, poses)
    got = np.array([[float(v) for v in r[:count]] for r in rows])
    keep = np.arange(20) != 3
    assert np.array_equal(got[keep], expected[keep])     # written exactly
    assert main(["platform", "fk", "--lengths", str(legs), "--out", str(back),
                 "--platform", name, "--reasons"]) == 0
    header, rows = _read(back)
    assert header == list(platform.pose_fields) + ["iterations", "valid", "reason"]
    found = np.array([[float(v) for v in r[:len(platform.pose_fields)]] for r in rows])
    assert np.abs(found[keep] - poses[keep]).max() < 1e-9
    # Row 3's lengths are all zero: out of every stroke; no pose has them.
    assert rows[3][-2:] in (["0", "unreachable"], ["0", "near_singular"])
    assert "20 rows, 19 valid" in capsys.readouterr().err


def test_jacobian_and_dynamics_on_the_command_line(tmp_path):
    from robohw.commands import main
    platform = load_platform()
    rng = np.random.default_rng(8)
    poses = sample_poses(platform, 10, rng)
    source = _csv(tmp_path / "p.csv", platform.pose_fields, poses)
    out = tmp_path / "j.csv"
    assert main(["platform", "jacobian", "--poses", str(source), "--out", str(out)]) == 0
    header, rows = _read(out)
    assert header[:2] == ["k1_1", "k1_2"] and header[-3:] == ["k6_6", "cond", "valid"]
    _, expected = jacobian(platform, poses)
    got = np.array([[float(v) for v in r[:36]] for r in rows]).reshape(10, 6, 6)
    assert np.array_equal(got, expected)
    condition = np.array([float(r[36]) for r in rows])
    limit = float(np.median(condition))
    assert main(["platform", "jacobian", "--poses", str(source), "--out", str(out),
                 "--max-cond", repr(limit), "--reasons"]) == 0
    _, rows = _read(out)
    assert [r[-1] == "near_singular" for r in rows] == (condition > limit).tolist()
    # Dynamics: the spec's column names, velocities before angular rates.
    v, a = rng.normal(0, 0.3, (10, 6)), rng.normal(0, 1, (10, 6))
    states = _csv(tmp_path / "s.csv", list(platform.pose_fields) +
                  ["vx", "vy", "vz", "wx", "wy", "wz", "dvx", "dvy", "dvz", "dwx", "dwy", "dwz"],
                  np.column_stack([poses, v, a]))
    assert main(["platform", "dynamics", "--states", str(states), "--out", str(out)]) == 0
    header, rows = _read(out)
    assert header == ["f1", "f2", "f3", "f4", "f5", "f6", "valid"]
    forces = virtual_power_dynamics(platform, poses, np.column_stack([v[:, 3:], v[:, :3]]),
                                    np.column_stack([a[:, 3:], a[:, :3]]))
    got = np.array([[float(x) for x in r[:6]] for r in rows])
    assert np.abs(got - forces).max() < 1e-9 * np.abs(forces).max()


@pytest.mark.parametrize("argv, message", [
    (["platform", "ik", "--poses", "{legs}", "--out", "{out}"], r"column x: missing"),
    (["platform", "ik", "--poses", "{poses}", "--out", "{poses}"],
     r"--out and --poses name one file"),
    (["platform", "ik", "--poses", "{poses}", "--out", "{tmp}/no/o.csv"],
     r"directory .* does not exist"),
    (["platform", "ik", "--poses", "{poses}", "--out", "{out}", "--platform", "delta"],
     r"delta: no such file"),
    (["platform", "fk", "--lengths", "{legs}", "--out", "{out}", "--guess", "0,0,0.6"],
     r"--guess: a spatial platform's pose is x,y,z,roll,pitch,yaw"),
    (["platform", "fk", "--lengths", "{legs}", "--out", "{out}", "--guess", "0,a"],
     r"--guess must be six finite numbers"),
    (["platform", "jacobian", "--poses", "{poses}", "--out", "{out}", "--max-cond", "-3"],
     r"--max-cond must be a positive number"),
    (["platform", "fk", "--lengths", "{legs}", "--out", "{out}", "--iterations", "0"],
     r"--iterations must be an integer \[1, 1000\]"),
    (["platform", "twist", "--poses", "{poses}"], r"invalid choice: 'twist'"),
    # The hardware backends' options (tests/legs/test_platform_hardware.py runs them).
    (["platform", "dynamics", "--states", "{poses}", "--out", "{out}", "--backend", "gpu"],
     r"invalid choice: 'gpu'"),
    (["platform", "ik", "--poses", "{poses}", "--out", "{out}", "--width", "39"], r"--width"),
    (["platform", "ik", "--poses", "{poses}", "--out", "{out}", "--timing", "fast"],
     r"invalid choice: 'fast'"),
])
def test_platform_usage_errors_are_one_line(tmp_path, capsys, argv, message):
    from robohw.commands import main
    files = {"poses": _csv(tmp_path / "p.csv", ["x", "y", "z", "roll", "pitch", "yaw"],
                           [[0, 0, 0.6, 0, 0, 0]]),
             "legs": _csv(tmp_path / "l.csv", [f"rho{k}" for k in range(1, 7)], [[0.66] * 6]),
             "out": tmp_path / "o.csv", "tmp": tmp_path}
    argv = [a.format(**files) for a in argv]
    try:
        code = main(argv)
    except SystemExit as exit_info:
        code = exit_info.code
    assert code == 2
    err = capsys.readouterr().err
    assert re.search(message, err) and err.count("\n") == 1
    assert not (tmp_path / "o.csv").exists()


# --- counts and the report -------------------------------------------------------------------

def test_counts_reproduce_the_papers_ik_and_count_every_phase():
    from robohw.dataflow.graph import Tracer
    from robohw.legs.counts import PAPER, elimination, platform_counts
    for name in SHIPPED_PLATFORMS:
        platform = load_platform(name)
        rows = {r.item: r for r in platform_counts(platform)}
        kind = platform.kind
        # The IK: 12m 14a 1 sqrt (planar 6m 7a 1 sqrt), exactly the paper's.
        assert rows["ik"].ours == rows["ik"].paper == \
            (*PAPER[kind]["ik"][0][:2], 0, 1)
        # Totals are the phases' sums, counted independently of the per-item rows' code.
        legs = len(platform.legs)
        phase = [rows[k].ours for k in ("leg_phase", "platform_phase", "actuator_phase")]
        assert rows["dynamics_serial"].ours == tuple(
            legs * a + b + legs * c for a, b, c in zip(*phase))
        assert set(PAPER[kind]) <= set(rows)
    # Cross products: 6m 3a per Jacobian row, by hand.
    assert {r.item: r.ours for r in platform_counts(load_platform())}["jacobian_row"] == \
        (6, 3, 0, 0)
    # The plain n x n elimination: n reciprocals, n(n-1)/2 (n + 1) + n(n + 1)/2 ... counted
    # against a closed form: sum_k (n-k-1)(n-k+1) + (n-k) multiplications in the forward
    # pass (factors, updates, the pivot row's scaling), n(n-1)/2 in the back substitution.
    for n in (2, 3, 6):
        tracer = Tracer(fold=False)
        matrix = [[tracer.input(f"m{i}{j}", 1, 2) for j in range(n)] for i in range(n)]
        elimination(matrix, [tracer.input(f"b{i}", 1, 2) for i in range(n)], tracer)
        counts = tracer.counts()
        forward = sum((n - k - 1) * (1 + (n - k)) + (n - k) for k in range(n))
        assert counts["div"] == n
        assert counts["mul"] == forward + n * (n - 1) // 2
        assert counts["add"] == sum((n - k - 1) * (n - k) for k in range(n)) + n * (n - 1) // 2


def test_the_printed_equations_fail_and_the_corrected_ones_hold():
    from robohw.legs.paper_checks import printed_vs_corrected
    out = printed_vs_corrected()
    for eq in ("eq9", "eq27"):
        assert out[eq]["corrected_residual"] < 1e-8 < 1e-2 < out[eq]["printed_residual"]
    for leg in out["planar_legs"]:
        assert abs(leg["g_corrected"] - leg["g_reference"]) < 1e-12
        assert abs(leg["h_corrected"] - leg["h_reference"]) < 1e-9
    assert max(abs(leg["g_printed"] - leg["g_reference"]) for leg in out["planar_legs"]) > 0.1
    assert max(abs(leg["h_printed"] - leg["h_reference"]) for leg in out["planar_legs"]) > 1
    assert out["gravity"]["without"] == 0 and abs(out["gravity"]["with"] - 29.6719) < 1e-4


def test_rows_are_solved_in_chunks_with_the_same_results(monkeypatch, tmp_path):
    from robohw.legs import files as io
    platform = load_platform()
    poses = sample_poses(platform, 20, np.random.default_rng(9))
    lengths = inverse_kinematics(platform, poses)
    lengths[5] = 0.05                                   # a failure inside a chunk
    whole = io.solve_platform(platform, "fk", lengths)
    monkeypatch.setattr(io, "CHUNK", 7)
    chunked = io.solve_platform(platform, "fk", lengths)
    for a, b in zip(whole, chunked):
        assert np.array_equal(a, b)
    assert whole[2][5] != "ok" and len(whole[0]) == 20
    # A header-only file: a header-only result.
    from robohw.commands import main
    empty, out = tmp_path / "e.csv", tmp_path / "o.csv"
    empty.write_text("x,y,z,roll,pitch,yaw\n")
    assert main(["platform", "jacobian", "--poses", str(empty), "--out", str(out)]) == 0
    assert out.read_text().splitlines() == [",".join(io.output_columns(platform, "jacobian") +
                                                     ["valid"])]
