import pytest

from robohw.robots import DEFAULT_ROBOT, RobotFileError, SHIPPED_ROBOTS, load_robot

GOOD_JOINT = 'type = "revolute"\na = 0.1\nalpha = 0.0\nd = 0.0\noffset = 0.0\n'


def test_shipped_robots_load():
    corke = load_robot()
    assert DEFAULT_ROBOT == "puma560" and corke.dof == 6 and corke.has_dynamics
    assert [j.a for j in corke.joints] == [0, 0.4318, 0.0203, 0, 0, 0]
    assert [j.d for j in corke.joints] == [0.6718, 0, 0.15005, 0.4318, 0, 0]
    assert corke.joints[1].mass == 17.4 and corke.joints[1].inertia[:3] == (0.13, 0.524, 0.539)
    fgl = load_robot("puma560_fgl")
    assert fgl.dof == 6 and not fgl.has_dynamics
    assert set(SHIPPED_ROBOTS) == {"puma560", "puma560_fgl"}


@pytest.mark.parametrize("text, message", [
    ("[[joint]]\n" + GOOD_JOINT, "name: missing"),
    ('name = "x"\n', r"joint: no \[\[joint\]\] tables"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT.replace("revolute", "spherical"),
     'joint 1: type: expected "revolute" or "prismatic"'),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT + '[[joint]]\n' + GOOD_JOINT.replace("alpha = 0.0\n", ""),
     "joint 2: alpha: missing"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT.replace("a = 0.1", "a = nan"),
     "joint 1: a: expected a finite number, not nan"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT.replace("a = 0.1", 'a = "0.1"'),
     "joint 1: a: expected a finite number"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT + "mass = 1.0\ncom = [0, 0]\ninertia = [0, 0, 0, 0, 0, 0]\n",
     "joint 1: com: expected a list of 3 numbers"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT + "mass = 1.0\n",
     "joint 1: com: missing \\(mass, com and inertia go together\\)"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT + "mass = -1.0\ncom = [0, 0, 0]\ninertia = [0, 0, 0, 0, 0, 0]\n",
     "joint 1: mass: must not be negative"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT + "limits = [1.0, -1.0]\n",
     "joint 1: limits: lower bound must be below upper bound"),
    ('name = "x"\n[[joint]]\n' + GOOD_JOINT + "lenght = 1.0\n", "joint 1: lenght: unknown field"),
    ('name = "x\n', "not valid TOML"),
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
