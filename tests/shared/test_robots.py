import math
import pathlib
import warnings

import numpy as np
import pytest

from robohw.robots import DEFAULT_ROBOT, SHIPPED_ROBOTS, RobotFileError, load_robot
from robohw.robots.description import RobotFileWarning
from robohw.robots.kinematics import forward_kinematics
from robohw.systolic.reference import inertia_matrix, jacobian_inertia

INERTIAL = "mass = 1.0\ncom = [0.0, 0.0, 0.0]\n"

GOOD_JOINT = 'type = "revolute"\na = 0.1\nalpha = 0.0\nd = 0.0\noffset = 0.0\n'


def test_shipped_robots_load():
    corke = load_robot()
    assert DEFAULT_ROBOT == "puma560" and corke.dof == 6 and corke.has_dynamics
    assert [j.a for j in corke.joints] == [0, 0.4318, 0.0203, 0, 0, 0]
    assert [j.d for j in corke.joints] == [0.6718, 0, 0.15005, 0.4318, 0, 0]
    assert corke.joints[1].mass == 17.4 and corke.joints[1].inertia[:3] == (0.13, 0.524, 0.539)
    fgl = load_robot("puma560_fgl")
    assert fgl.dof == 6 and not fgl.has_dynamics
    assert set(SHIPPED_ROBOTS) == {"puma560", "puma560_fgl", "stanford", "stanford_thesis"}
    # Every shipped arm states its torque limits (TOML: assumptions named in each header).
    for name in SHIPPED_ROBOTS + ("ur5", "panda", "iiwa14"):
        assert all(joint.torque_limit > 0 for joint in load_robot(name).joints), name
    assert [j.torque_limit for j in corke.joints] == [97.6, 186.4, 89.4, 24.2, 20.1, 21.3]


@pytest.mark.parametrize("text, message", [
    ("[[joint]]\n" + GOOD_JOINT, "name: missing"),
    ('name = "x"\n', r"joint: no \[\[joint\]\] tables"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT.replace("revolute", "spherical"),
     'joint 1: type: expected "revolute" or "prismatic"'),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT + '[[joint]]\n' + GOOD_JOINT.replace("alpha = 0.0\n",
                                                                                 ""),
     "joint 2: alpha: missing"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT.replace("a = 0.1", "a = nan"),
     "joint 1: a: expected a finite number, not nan"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT.replace("a = 0.1", 'a = "0.1"'),
     "joint 1: a: expected a finite number"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT
     + "mass = 1.0\ncom = [0, 0]\ninertia = [0, 0, 0, 0, 0, 0]\n",
     "joint 1: com: expected a list of 3 numbers"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT + "mass = 1.0\n",
     "joint 1: com: missing \\(mass, com and inertia go together\\)"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT
     + "mass = -1.0\ncom = [0, 0, 0]\ninertia = [0, 0, 0, 0, 0, 0]\n",
     "joint 1: mass: must not be negative"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT + "limits = [1.0, -1.0]\n",
     "joint 1: limits: lower bound must be below upper bound"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT + "lenght = 1.0\n", "joint 1: lenght: unknown field"),
    ('name = "x\n', "not valid TOML"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT + INERTIAL + "inertia = [-0.1, 0.2, 0.2, 0, 0, 0]\n",
     r"joint 1: inertia: not positive semidefinite \(principal moments -0.1, 0.2, 0.2\)"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT + INERTIAL + "inertia = [0.1, 0.1, 0.1, 0.5, 0, 0]\n",
     "joint 1: inertia: not positive semidefinite"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT.replace("revolute", "prismatic").replace("d = 0.0",
                                                                                     "d = 0.3"),
     "joint 1: d: a prismatic joint's d is its variable q"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT + "theta = 0.5\n",
     "joint 1: theta: only a prismatic joint has a fixed theta"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT.replace("alpha = 0.0", "alpha = 90.0"),
     r"joint 1: alpha: 90 is beyond 2 pi: radians are needed \(degrees\?\)"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT + "velocity_limit = -1.0\n",
     "joint 1: velocity_limit: must be positive, not -1"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT + "torque_limit = 0.0\n",
     "joint 1: torque_limit: must be positive, not 0"),
    ('name = "x"\ngravity = [0, -9.81]\n[[joint]]\n' + GOOD_JOINT,
     "gravity: expected a list of 3 numbers"),
])
def test_bad_files_name_file_joint_and_field(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(RobotFileError, match=message) as info:
        load_robot(path)
    assert str(path) in str(info.value)


def test_missing_file():
    with pytest.raises(RobotFileError, match="no such file \\(shipped robots: puma560"):
        load_robot("/nonexistent/robot.toml")


def test_the_default_puma_declares_its_published_inertias_and_loads_quietly(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        robot = load_robot("puma560")
    # Without the declaration, its links 1 and 3 break the triangle inequality, as published.
    text = pathlib.Path(robot.source).read_text()
    bare = tmp_path / "puma.toml"
    bare.write_text("\n".join(line for line in text.splitlines()
                              if not line.startswith("published_inertia")) + "\n")
    with pytest.warns(RobotFileWarning) as caught:
        load_robot(bare)
    messages = [str(w.message) for w in caught if issubclass(w.category, RobotFileWarning)]
    assert any("joint 1: inertia: principal moments 0, 0, 0.35 break the triangle" in m
               for m in messages)
    assert any("joint 3: inertia: principal moments 0.0125, 0.066, 0.086 break" in m
               for m in messages)


def test_published_inertia_is_a_source_and_needs_an_inertia(tmp_path):
    path = tmp_path / "r.toml"
    inertia = INERTIAL + "inertia = [0.1, 0.1, 0.1, 0.0, 0.0, 0.0]\n"
    path.write_text('name = "x"\n[[joint]]\n' + GOOD_JOINT + inertia + "published_inertia = 3\n")
    with pytest.raises(RobotFileError, match="joint 1: published_inertia: the source the "
                                             "moments are published in, as text, not 3"):
        load_robot(path)
    path.write_text('name = "x"\n[[joint]]\n' + GOOD_JOINT + 'published_inertia = "a book"\n')
    with pytest.raises(RobotFileError, match="joint 1: published_inertia: needs mass, com and "
                                             "inertia"):
        load_robot(path)


def test_limits_beyond_two_pi_warn(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text('name = "x"\n[[joint]]\n' + GOOD_JOINT + "limits = [-180.0, 180.0]\n")
    with pytest.warns(RobotFileWarning, match="joint 1: limits: .* reach beyond 2 pi"):
        load_robot(path)


def test_prismatic_theta_turns_the_link(tmp_path):
    # Corke's Stanford arm has theta3 = -90 degrees on its prismatic joint: a fixed angle the
    # kinematics and the inertia matrix must honour (once it had no field at all).
    def robot(theta):
        path = tmp_path / f"slider{theta}.toml"
        joint = ('[[joint]]\ntype = "prismatic"\na = 0.2\nalpha = 0.7\ntheta = {theta}\n'
                 'offset = 0.1\nlimits = [-0.5, 0.5]\nmass = 2.0\ncom = [0.1, 0.0, 0.05]\n'
                 'inertia = [0.1, 0.1, 0.1, 0.0, 0.0, 0.0]\n')
        path.write_text('name = "slider"\ngravity = [0.0, 0.0, -9.8]\n' +
                        GOOD_JOINT.join(["[[joint]]\n", "mass = 1.0\ncom = [0.1, 0.0, 0.0]\n"
                                         "inertia = [0.1, 0.1, 0.1, 0.0, 0.0, 0.0]\n"]) +
                        joint.format(theta=theta))
        return load_robot(path)
    turned = robot(-math.pi / 2)
    assert turned.joints[1].theta == -math.pi / 2 and turned.gravity == (0.0, 0.0, -9.8)
    q = np.array([[0.3, 0.2], [-1.0, -0.4]])
    pose, plain = forward_kinematics(turned, q), forward_kinematics(robot(0.0), q)
    # theta turns the link about the joint's axis z1: the tip moves, but not along z1.
    base = forward_kinematics(turned, q, upto=1)
    axis, origin = base[:, :3, 2], base[:, :3, 3]
    assert np.abs(pose[:, :3, 3] - plain[:, :3, 3]).max() > 0.1
    assert np.allclose(np.einsum("bi,bi->b", pose[:, :3, 3] - origin, axis),
                       np.einsum("bi,bi->b", plain[:, :3, 3] - origin, axis))
    h = jacobian_inertia(turned, q)
    for method in ("table1", "table2"):
        assert np.abs(inertia_matrix(turned, q, method) - h).max() < 1e-12



def test_the_command_line_shows_a_files_warning_once_a_run(tmp_path):
    # A file loaded twice in a run (the report loads the PUMA for each of its sections)
    # warns once, in one line: run in a process of its own, as a user runs it.
    import subprocess
    import sys
    text = pathlib.Path(load_robot("puma560").source).read_text()
    bare = tmp_path / "puma.toml"
    bare.write_text("\n".join(line for line in text.splitlines()
                              if not line.startswith("published_inertia")) + "\n")
    states = tmp_path / "states.csv"
    header = [f"{kind}{k}" for kind in ("q", "qd", "qdd") for k in range(1, 7)]
    states.write_text(",".join(header) + "\n" + ",".join(["0.1"] * 18) + "\n")
    argv = ["dynamics", "--robot", str(bare), "--states", str(states), "--out",
            str(tmp_path / "tau.csv")]
    script = (f"from robohw.commands import main\nassert main({argv!r}) == 0\n"
              f"assert main({argv!r}) == 0\n")
    # -W always: Python itself would show every one of the four.
    run = subprocess.run([sys.executable, "-P", "-W", "always", "-c", script],
                         capture_output=True, text=True, check=True)
    lines = [line for line in run.stderr.splitlines() if "warning" in line]
    assert len(lines) == 2 and all(line.startswith(f"robohw: warning: {bare}: joint ")
                                   for line in lines), run.stderr


def test_the_shipped_robot_warns_nowhere_on_the_command_line(tmp_path):
    # `robohw ik` on a good file with the default robot: its one closing line, nothing else.
    import subprocess
    import sys
    poses = tmp_path / "poses.csv"
    poses.write_text("nx,ny,nz,ox,oy,oz,ax,ay,az,px,py,pz\n1,0,0,0,1,0,0,0,1,0.4,0.1,0.3\n")
    out = tmp_path / "joints.csv"
    script = ("from robohw.commands import main\n"
              f"raise SystemExit(main(['ik', '--poses', {str(poses)!r}, '--out', {str(out)!r}]))")
    run = subprocess.run([sys.executable, "-P", "-W", "always", "-c", script],
                         capture_output=True, text=True, check=True)
    assert run.stderr.splitlines() == [f"1 rows, 1 valid: {out}"]
