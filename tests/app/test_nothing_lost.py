"""Nothing lost, nothing marked valid that is not a number (docs/conventions.md, "Four rules"):
no command writes over one of its inputs, whichever path names it; a value that is not finite
is never valid, and its reason, ``not_finite``, comes first; a bad input is one line naming the
command, exit 2, never a traceback, for any finite number a robot file can hold; the API and
the commands agree on the same rows. Built on the two-link arm of ``tests/fixtures`` and the
shipped robots, each test's hostile copy written in its own folder."""

import math
import os
import pathlib
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robohw.api import load_arm
from robohw.commands import main
from robohw.robots import load_robot
from robohw.robots.loading import FILES_DIR

FIXTURES = pathlib.Path(__file__).parent.parent / "fixtures"
TWO_LINK = FIXTURES / "two_link.urdf"
STATES = "q1,q2,qd1,qd2,qdd1,qdd2\n0.1,0.2,0.5,-0.5,1.0,1.0\n"
CONFIGURATIONS = "q1,q2\n0.1,0.2\n0.3,-0.4\n"
# In a fresh folder per hypothesis example (tmp_path is one per test).
HYPOTHESIS = settings(max_examples=30, deadline=None,
                      suppress_health_check=[HealthCheck.function_scoped_fixture])


def two_link(folder, name="arm.urdf", **replace):
    """The two-link arm (and its sidecar) in ``folder``, each ``old=new`` text replaced."""
    text = TWO_LINK.read_text()
    for old, new in replace.items():
        text = text.replace(old.replace("_", " "), new)
    path = pathlib.Path(folder) / name
    path.write_text(text)
    (path.parent / f"{path.name}.toml").write_text((FIXTURES / "two_link.urdf.toml").read_text())
    return path


def run(argv, capsys):
    """``(status, stdout, stderr)`` of one command run in this process."""
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        try:
            status = main([str(a) for a in argv])
        except SystemExit as exit:
            status = exit.code
    out, err = capsys.readouterr()
    return status, out, err


def one_line(err, command):
    return err.count("\n") == 1 and err.startswith(f"robohw {command}: ")


def rows(text):
    """The CSV text's rows as dicts."""
    lines = text.splitlines()
    return [dict(zip(lines[0].split(","), line.split(","))) for line in lines[1:]]


# --- 1. No output replaces an input -------------------------------------------------------

def _link(kind, target, path):
    if kind == "symlink":
        path.symlink_to(target)
    elif kind == "hard link":
        os.link(target, path)
    else:
        return target
    return path


@pytest.mark.parametrize("kind", ["same path", "symlink", "hard link"])
@pytest.mark.parametrize("command, victim, option", [
    (["dynamics", "--states", "{states}"], "{robot}", "--robot"),
    (["dynamics", "--states", "{states}"], "{sidecar}", "--robot's sidecar"),
    (["dynamics", "--states", "{states}"], "{states}", "--states"),
    (["inertia", "--q", "{q}"], "{robot}", "--robot"),
    (["inertia", "--q", "{q}"], "{q}", "--q")])
def test_no_output_replaces_an_input(tmp_path, capsys, command, victim, option, kind):
    robot = two_link(tmp_path)
    files = {"robot": robot, "sidecar": robot.parent / "arm.urdf.toml",
             "states": tmp_path / "s.csv", "q": tmp_path / "q.csv"}
    files["states"].write_text(STATES)
    files["q"].write_text(CONFIGURATIONS)
    before = {name: path.read_bytes() for name, path in files.items()}
    target = pathlib.Path(victim.format(**files))
    out = _link(kind, target, tmp_path / "out.csv")
    argv = [a.format(**files) for a in command] + ["--robot", robot, "--out", out]
    status, _, err = run(argv, capsys)
    assert status == 2 and one_line(err, command[0]), err
    assert f"--out and {option} name one file ({target})" in err
    assert {name: path.read_bytes() for name, path in files.items()} == before


def test_a_shipped_robots_file_is_an_input_by_its_name(tmp_path, capsys):
    states = tmp_path / "s.csv"
    states.write_text(",".join(f"{k}{j}" for k in ("q", "qd", "qdd") for j in range(1, 7)) +
                      "\n" + ",".join(["0"] * 18) + "\n")
    shipped = FILES_DIR / "puma560.toml"
    before = shipped.read_bytes()
    out = tmp_path / "puma.toml"
    os.link(shipped, out) if shipped.stat().st_dev == tmp_path.stat().st_dev else \
        out.symlink_to(shipped)
    for target in (shipped, out):
        status, _, err = run(["dynamics", "--robot", "puma560", "--states", states, "--out",
                              target], capsys)
        assert status == 2 and "--out and --robot name one file" in err
    status, _, err = run(["platform", "ik", "--poses", states, "--out",
                          FILES_DIR / "hexapod.toml"], capsys)
    assert status == 2 and "--out and --platform name one file" in err
    assert shipped.read_bytes() == before


def test_a_xacro_include_is_an_input(tmp_path, capsys):
    body = TWO_LINK.read_text()
    inner = body[body.index("<link name=\"base\"/>"):body.index("</robot>")]
    (tmp_path / "links.xacro").write_text(
        '<?xml version="1.0"?>\n<robot xmlns:xacro="http://www.ros.org/wiki/xacro">\n'
        f"{inner}</robot>\n")
    arm = tmp_path / "arm.urdf.xacro"
    arm.write_text('<?xml version="1.0"?>\n<robot name="two_link" '
                   'xmlns:xacro="http://www.ros.org/wiki/xacro">\n'
                   '  <xacro:include filename="links.xacro"/>\n</robot>\n')
    (tmp_path / "arm.urdf.toml").write_text("acceleration_limit = 5.0\n")
    states = tmp_path / "s.csv"
    states.write_text(STATES)
    assert run(["dynamics", "--robot", arm, "--states", states, "--out", tmp_path / "t.csv"],
               capsys)[0] == 0
    before = (tmp_path / "links.xacro").read_bytes()
    status, _, err = run(["dynamics", "--robot", arm, "--states", states, "--out",
                          tmp_path / "links.xacro"], capsys)
    assert status == 2 and "--out and --robot's xacro include name one file" in err
    assert (tmp_path / "links.xacro").read_bytes() == before


def test_the_sim_json_and_vcd_are_held_to_the_robot(tmp_path, capsys):
    robot = two_link(tmp_path)
    for option in ("--json", "--vcd"):
        status, _, err = run(["sim", "inertia-linear", "--robot", robot, "--count", "1",
                              option, tmp_path / "arm.urdf.toml"], capsys)
        assert status == 2 and f"{option} and --robot's sidecar name one file" in err


def test_nothing_written_into_a_folder_replaces_an_input(tmp_path):
    # What a command writes anywhere (an export's folder too) is held to its inputs.
    from robohw.support.atomic import OutputError, atomic_open, inputs_kept
    robot = two_link(tmp_path)
    twin = tmp_path / "twin.v"
    os.link(robot, twin)
    with inputs_kept([("--robot", robot)]):
        with pytest.raises(OutputError, match=r"cannot write .*twin\.v: it is an input of "
                                              r"this command \(--robot\)"):
            with atomic_open(twin) as file:
                file.write("module m; endmodule\n")
        with atomic_open(tmp_path / "other.v") as file:
            file.write("kept\n")
    assert robot.read_text().startswith("<?xml") and (tmp_path / "other.v").exists()
    with atomic_open(twin) as file:       # outside a command: an ordinary file
        file.write("x\n")


@HYPOTHESIS
@given(command=st.sampled_from(["dynamics", "inertia", "ik", "platform ik"]),
       victim=st.sampled_from(["robot", "input"]),
       kind=st.sampled_from(["same path", "symlink", "hard link"]))
def test_property_no_file_command_writes_over_an_input(tmp_path_factory, command, victim,
                                                       kind):
    folder = tmp_path_factory.mktemp("inputs")
    platform = command == "platform ik"
    robot = FILES_DIR / ("hexapod.toml" if platform else "puma560.toml")
    copy = folder / robot.name
    copy.write_bytes(robot.read_bytes())
    source = {"dynamics": ("--states", ",".join(f"{k}{j}" for k in ("q", "qd", "qdd")
                                                 for j in range(1, 7)) + "\n" + "0," * 17 + "0\n"),
              "inertia": ("--q", "q1,q2,q3,q4,q5,q6\n0,0,0,0,0,0\n"),
              "ik": ("--poses", "nx,ny,nz,ox,oy,oz,ax,ay,az,px,py,pz\n"
                                "1,0,0,0,1,0,0,0,1,0.4,0.1,0.3\n"),
              "platform ik": ("--poses", "x,y,z,roll,pitch,yaw\n0,0,0.5,0,0,0\n")}[command]
    data = folder / "in.csv"
    data.write_text(source[1])
    target = copy if victim == "robot" else data
    before = target.read_bytes()
    out = _link(kind, target, folder / "out.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = main([*command.split(), source[0], str(data),
                       "--platform" if platform else "--robot", str(copy), "--out", str(out)])
    assert status == 2 and target.read_bytes() == before


# --- 2. Nothing that is not a number is valid ---------------------------------------------

def test_masses_beyond_float64s_products_are_never_a_valid_nan(tmp_path, capsys):
    # 1.7e308 kg two metres out: m |c|^2 is beyond float64 (finite numbers, accepted).
    robot = two_link(tmp_path, **{'mass_value="2.0"': 'mass value="1.7e308"',
                                  'xyz="0.15_0_0"': 'xyz="2.0 0 0"'})
    q = tmp_path / "q.csv"
    q.write_text(CONFIGURATIONS)
    status, out, err = run(["inertia", "--robot", robot, "--q", q, "--out", "-",
                            "--backend", "float", "--reasons"], capsys)
    assert status == 0 and "nan" not in out and "inf" not in out and "warning" not in err
    assert {(r["valid"], r["reason"]) for r in rows(out)} == {("0", "not_finite")}


@pytest.mark.parametrize("backend", ["float", "model"])
def test_the_api_marks_every_value_that_is_not_a_number_not_finite(backend):
    arm = load_arm("puma560")
    nan, zero = np.full((1, 6), np.nan), np.zeros((1, 6))
    inertia = arm.inertia(nan, backend)
    assert not inertia.valid[0] and inertia.reason[0] == "not_finite"
    assert np.isfinite(inertia.values).all()
    for q, qd, qdd in ((nan, zero, zero), (zero, nan, zero), (zero, zero, nan)):
        got = arm.inverse_dynamics(q, qd, qdd, backend)
        assert not got.valid[0] and got.reason[0] == "not_finite"
        assert np.isfinite(got.values).all()


@HYPOTHESIS
@given(values=st.lists(st.sampled_from([0.0, 0.3, -1.0, 1e300, -1e308, math.inf, -math.inf,
                                        math.nan]), min_size=18, max_size=18),
       backend=st.sampled_from(["float", "model"]))
def test_property_no_valid_row_holds_a_value_that_is_not_finite(values, backend):
    arm = load_arm("puma560")
    state = np.array(values).reshape(3, 1, 6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")         # no numpy warning before a row is marked
        torques = arm.inverse_dynamics(*state, backend)
        inertia = arm.inertia(state[0], backend)
    for got, inputs in ((torques, state), (inertia, state[:1])):
        assert np.isfinite(got.values).all()
        if got.valid[0]:
            assert got.reason[0] == "ok" and np.isfinite(inputs).all()
        if not np.isfinite(inputs).all():
            assert not got.valid[0] and got.reason[0] == "not_finite"


# What a hostile file's row may hold: finite, within or far beyond every limit and format.
HOSTILE = st.sampled_from([0.0, 0.4, -1.9, 7.0, 1e5, -1e20, 1e300, -1e308, 1e-300])


@HYPOTHESIS
@given(table=st.lists(st.lists(HOSTILE, min_size=6, max_size=6), min_size=1, max_size=4),
       backend=st.sampled_from(["float", "model"]))
def test_property_the_api_and_the_commands_agree(tmp_path_factory, capsys, table, backend):
    folder = tmp_path_factory.mktemp("agree")
    robot = two_link(folder)
    table = np.array(table)
    states = folder / "s.csv"
    states.write_text("q1,q2,qd1,qd2,qdd1,qdd2\n" + "".join(
        ",".join(repr(float(v)) for v in row) + "\n" for row in table))
    configurations = folder / "q.csv"
    configurations.write_text("q1,q2\n" + "".join(
        ",".join(repr(float(v)) for v in row[:2]) + "\n" for row in table))
    arm = load_arm(robot)
    for argv, api in (
            (["dynamics", "--states", states],
             arm.inverse_dynamics(table[:, :2], table[:, 2:4], table[:, 4:], backend)),
            (["inertia", "--q", configurations], arm.inertia(table[:, :2], backend))):
        status, out, err = run([*argv, "--robot", robot, "--out", "-", "--reasons",
                                "--backend", backend], capsys)
        assert status == 0 and "warning" not in err, err
        got = rows(out)
        assert [r["reason"] for r in got] == list(api.reason)
        assert [r["valid"] == "1" for r in got] == list(api.valid)
        values = np.array([[float(v) for k, v in r.items() if k not in ("valid", "reason")]
                           for r in got])
        assert np.array_equal(values, api.values.reshape(len(got), -1))


def test_the_api_and_the_commands_agree_on_hostile_rows(tmp_path, capsys):
    # Finite rows a file can hold: beyond the limits, beyond a binary angle, beyond float64's
    # squares; the same rows through robohw dynamics and inertia and through the API.
    names = [f"{k}{j}" for k in ("q", "qd", "qdd") for j in range(1, 7)]
    table = np.zeros((6, 18))
    table[1, 0] = 1e20                    # an angle no binary angle holds
    table[2, 6] = 1e300                   # a rate beyond every limit
    table[3, 12] = 1e308                  # an acceleration near float64's largest
    table[4, 3:6] = 2.0
    table[5, 6:12] = 1e-300
    states = tmp_path / "s.csv"
    states.write_text(",".join(names) + "\n" +
                      "\n".join(",".join(repr(float(v)) for v in row) for row in table) + "\n")
    arm = load_arm("puma560")
    for backend in ("float", "model"):
        status, out, err = run(["dynamics", "--states", states, "--out", "-", "--reasons",
                                "--backend", backend], capsys)
        assert status == 0 and "warning" not in err, err
        api = arm.inverse_dynamics(table[:, :6], table[:, 6:12], table[:, 12:], backend)
        assert [r["reason"] for r in rows(out)] == list(api.reason)
        assert [r["valid"] == "1" for r in rows(out)] == list(api.valid)
        q = tmp_path / "q.csv"
        q.write_text(",".join(names[:6]) + "\n" +
                     "\n".join(",".join(repr(float(v)) for v in row[:6]) for row in table) + "\n")
        status, out, err = run(["inertia", "--q", q, "--out", "-", "--reasons", "--backend",
                                backend], capsys)
        api = arm.inertia(table[:, :6], backend)
        assert status == 0 and [r["reason"] for r in rows(out)] == list(api.reason)


# --- 3. A bad input is one line, exit 2, never a traceback --------------------------------

def test_masses_no_format_holds_are_one_line_naming_the_field(tmp_path, capsys):
    robot = two_link(tmp_path, **{'mass_value="2.0"': 'mass value="1e300"'})
    q = tmp_path / "q.csv"
    q.write_text(CONFIGURATIONS)
    status, _, err = run(["inertia", "--robot", robot, "--q", q, "--out", tmp_path / "h.csv",
                          "--backend", "model"], capsys)
    assert status == 2 and one_line(err, "inertia"), err
    # The URDF's joint named, as its file names it.
    assert f"{robot} (its largest value: joint shoulder's mass of 1e+300)" in err
    assert not (tmp_path / "h.csv").exists()


def test_a_robot_that_is_a_directory_is_one_line(tmp_path, capsys):
    states = tmp_path / "s.csv"
    states.write_text(STATES)
    for robot in (tmp_path, tmp_path / "folder.urdf"):
        robot.mkdir(exist_ok=True)
        status, _, err = run(["dynamics", "--robot", robot, "--states", states, "--out", "-"],
                             capsys)
        assert status == 2 and one_line(err, "dynamics") and "directory" in err, err


# The two-link arm's numbers a hostile file may change, and what it may put there.
FIELDS = {'mass_value="2.0"': 'mass value="{}"', 'xyz="0.3_0_0"': 'xyz="{} 0 0"',
          'xyz="0.15_0_0"': 'xyz="{} 0 0"', 'ixx="0.01"': 'ixx="{}"',
          'velocity="2.0"': 'velocity="{}"', 'lower="-2.0"_upper="2.0"':
          'lower="-{0}" upper="{0}"'}


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(sorted(FIELDS)),
       value=st.sampled_from(["1e-300", "1e-30", "1e30", "1e100", "1e200", "1e300",
                              "1.7e308"]),
       command=st.sampled_from(["inertia", "dynamics"]),
       backend=st.sampled_from(["float", "model"]))
def test_property_any_finite_robot_number_is_computed_or_one_line(tmp_path_factory, capsys,
                                                                  field, value, command,
                                                                  backend):
    folder = tmp_path_factory.mktemp("hostile")
    robot = two_link(folder, **{field: FIELDS[field].format(value)})
    data = folder / "in.csv"
    data.write_text(STATES if command == "dynamics" else CONFIGURATIONS)
    option = "--states" if command == "dynamics" else "--q"
    status, out, err = run([command, "--robot", robot, option, data, "--out", "-",
                            "--reasons", "--backend", backend], capsys)
    assert status in (0, 2), err
    assert "Traceback" not in err and "inf%" not in err and "nan" not in err.lower()
    assert not re.search(r"warning: (overflow|invalid value|divide)", err), err
    if status == 2:
        assert one_line(err, command), err
    for row in rows(out):
        if row["valid"] == "1":
            assert all(math.isfinite(float(v)) for k, v in row.items()
                       if k not in ("valid", "reason"))


# The planar platform's inputs of each action, one row each.
PLATFORM_ROWS = {"ik": ("--poses", "x,y,phi\n0.45,0.3,0.3\n"),
                 "jacobian": ("--poses", "x,y,phi\n0.45,0.3,0.3\n"),
                 "dynamics": ("--states", "x,y,phi,vx,vy,wz,dvx,dvy,dwz\n"
                                          "0.45,0.3,0.3,0.1,0.1,0.1,0.1,0.1,0.1\n"),
                 "fk": ("--lengths", "rho1,rho2,rho3\n0.5,0.5,0.5\n")}


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(number=st.integers(0, 40), value=st.sampled_from(["1e-300", "1e30", "1e300", "1.7e308"]),
       action=st.sampled_from(sorted(PLATFORM_ROWS)), backend=st.sampled_from(["float", "model"]))
def test_property_any_finite_platform_number_is_computed_or_one_line(tmp_path_factory, capsys,
                                                                     number, value, action,
                                                                     backend):
    folder = tmp_path_factory.mktemp("platform")
    text = (FILES_DIR / "planar_3rpr.toml").read_text()
    body = text.index("[[leg]]")
    found = list(re.finditer(r"(?<![\w.])-?\d+\.\d+(?![\w.])", text[body:]))
    place = found[number % len(found)]
    platform = folder / "platform.toml"
    platform.write_text(text[:body + place.start()] + value + text[body + place.end():])
    option, rows_text = PLATFORM_ROWS[action]
    data = folder / "in.csv"
    data.write_text(rows_text)
    status, out, err = run(["platform", action, option, data, "--platform", platform, "--out",
                            "-", "--reasons", "--backend", backend], capsys)
    assert status in (0, 2), err
    assert "Traceback" not in err and "nan" not in err.lower() and "inf%" not in err
    assert not re.search(r"warning: (overflow|invalid value|divide)", err), err
    if status == 2:
        assert one_line(err, f"platform {action}"), err
    for row in rows(out):
        if row["valid"] == "1":
            assert all(math.isfinite(float(v)) for k, v in row.items()
                       if k not in ("valid", "reason"))


# --- 5. IK within the limits: the value inside them -----------------------------------------

def test_ik_within_limits_writes_the_angle_inside_the_joints_limits(tmp_path, capsys):
    # A joint limited to [0.820, 5.463] (the Kinova j2s6s200's joint 2): its wrapped angle
    # -2.0 is written 2 pi - 2.0 = 4.283, inside; the UR5's +-2 pi limits keep every angle.
    from robohw.ik.files import into_limits
    from robohw.robots.kinematics import forward_kinematics
    text = (FILES_DIR / "puma560.toml").read_text()
    second = text.index("[[joint]]", text.index("[[joint]]") + 1)
    limits = re.compile(r"limits = \[[^\]]*\]")
    found = limits.search(text, second)
    robot = tmp_path / "arm.toml"
    robot.write_text(text[:found.start()] + "limits = [0.820, 5.463]" + text[found.end():])
    arm = load_robot(robot)
    q = np.array([[0.3, -2.0, 0.4, 0.2, 0.5, 0.1]])
    pose = forward_kinematics(arm, q)[0]
    poses = tmp_path / "poses.csv"
    poses.write_text("nx,ny,nz,ox,oy,oz,ax,ay,az,px,py,pz\n" +
                     ",".join(repr(float(v)) for v in (*pose[:3, 0], *pose[:3, 1],
                                                       *pose[:3, 2], *pose[:3, 3])) + "\n")
    status, out, _ = run(["ik", "--robot", robot, "--poses", poses, "--out", "-",
                          "--all-branches", "--within-limits", "--reasons"], capsys)
    assert status == 0
    valid = [r for r in rows(out) if r["valid"] == "1"]
    assert valid and all(0.820 <= float(r["q2"]) <= 5.463 for r in valid)
    assert any(abs(float(r["q2"]) - (2 * np.pi - 2.0)) < 1e-9 and
               abs(float(r["q1"]) - 0.3) < 1e-9 for r in valid)
    inside, within = into_limits(load_robot("ur5"), np.array([[-3.0, 3.1, -0.1, 2.0, -2.5,
                                                              0.0]]))
    assert within[0] and np.array_equal(inside, [[-3.0, 3.1, -0.1, 2.0, -2.5, 0.0]])


# --- 6. A URDF without mass ---------------------------------------------------------------

@pytest.mark.parametrize("backend", ["float", "model"])
@pytest.mark.parametrize("command, option, data", [("dynamics", "--states", STATES),
                                                   ("inertia", "--q", CONFIGURATIONS)])
def test_a_urdf_without_any_inertial_is_refused_in_one_line(tmp_path, capsys, backend,
                                                           command, option, data):
    text = TWO_LINK.read_text()
    bare = re.sub(r"<inertial>.*?</inertial>", "", text, flags=re.S)
    robot = tmp_path / "bare.urdf"
    robot.write_text(bare)
    (tmp_path / "bare.urdf.toml").write_text("acceleration_limit = 5.0\n")
    source = tmp_path / "in.csv"
    source.write_text(data)
    status, _, err = run([command, "--robot", robot, option, source, "--out", "-",
                          "--backend", backend], capsys)
    assert status == 2 and one_line(err, command), err
    assert f"{robot}: no link the chain moves has an <inertial>" in err


def test_a_urdf_with_some_links_without_inertial_warns_once_and_takes_them_massless(tmp_path):
    text = TWO_LINK.read_text()
    first = text.index("<inertial>")
    robot = tmp_path / "some.urdf"
    robot.write_text(text[:first] + text[text.index("</inertial>") + len("</inertial>"):])
    (tmp_path / "some.urdf.toml").write_text("acceleration_limit = 5.0\n")
    states = tmp_path / "s.csv"
    states.write_text(STATES)
    argv = ["dynamics", "--robot", str(robot), "--states", str(states), "--out",
            str(tmp_path / "t.csv")]
    script = (f"from robohw.commands import main\nassert main({argv!r}) == 0\n"
              f"assert main({argv!r}) == 0\n")
    done = subprocess.run([sys.executable, "-P", "-W", "always", "-c", script],
                          capture_output=True, text=True, check=True)
    warned = [line for line in done.stderr.splitlines() if "warning" in line]
    assert warned == [f"robohw: warning: {robot}: no <inertial> on the links moved by joints "
                      f"shoulder: taken as massless"]
    assert load_robot(robot).joints[0].mass == 0.0


# --- 7. Polish ----------------------------------------------------------------------------

def test_upper_case_urdf_suffixes_are_urdf(tmp_path, capsys):
    robot = two_link(tmp_path, name="ARM.URDF")
    states = tmp_path / "s.csv"
    states.write_text(STATES)
    status, out, err = run(["dynamics", "--robot", robot, "--states", states, "--out", "-"],
                           capsys)
    assert status == 0 and rows(out)[0]["valid"] == "1", err


def test_an_entity_bomb_is_refused_in_words(tmp_path, capsys):
    robot = tmp_path / "bomb.urdf"
    robot.write_text('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">]>\n'
                     '<robot name="x">&lol;</robot>\n')
    states = tmp_path / "s.csv"
    states.write_text(STATES)
    status, _, err = run(["dynamics", "--robot", robot, "--states", states, "--out", "-"],
                         capsys)
    assert status == 2 and one_line(err, "dynamics")
    assert "refused: it declares the entity 'lol'" in err and "EntitiesForbidden" not in err


def test_csv_lines_end_in_a_line_feed_alone(tmp_path, capsys):
    # awk -F, '{print $NF}' on robohw platform jacobian reads "0", not "0\r".
    poses = tmp_path / "p.csv"
    poses.write_text("x,y,z,roll,pitch,yaw\n0,0,0.5,0,0,0\n")
    out = tmp_path / "j.csv"
    assert run(["platform", "jacobian", "--poses", poses, "--out", out], capsys)[0] == 0
    assert b"\r" not in out.read_bytes() and out.read_bytes().endswith(b",1\n")


@pytest.mark.parametrize("backend, column, value", [("float", "qd1", "1e300"),
                                                    ("model", "qdd1", "1e308")])
def test_no_numpy_warning_before_a_row_is_marked(tmp_path, backend, column, value):
    # In a process of its own: a run shows each warning once, so one shown earlier in this
    # process would hide it here.
    header, row = (line.split(",") for line in STATES.splitlines())
    row[header.index(column)] = value
    states = tmp_path / "s.csv"
    states.write_text(",".join(header) + "\n" + ",".join(row) + "\n")
    argv = ["dynamics", "--robot", str(two_link(tmp_path)), "--states", str(states), "--out",
            "-", "--backend", backend, "--reasons"]
    done = subprocess.run([sys.executable, "-P", "-W", "always", "-c",
                           f"from robohw.commands import main\nraise SystemExit(main({argv!r}))"],
                          capture_output=True, text=True)
    # The robot's width is measured on first use of a cache (robohw.sim.measured_width), and
    # says so once: that line is no numpy warning.
    shown = [line for line in done.stderr.splitlines() if "warning" in line
             and "default width" not in line]
    assert done.returncode == 0 and not shown, done.stderr
    assert rows(done.stdout)[0]["valid"] == "0"
