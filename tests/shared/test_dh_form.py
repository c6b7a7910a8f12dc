"""The DH form of a general chain (robots/dh_form.py), and the inverse kinematics of a URDF robot
of the PUMA family through it: a PUMA 560 written as a URDF with its frames scrambled (every
joint frame turned and slid along its axis, the base moved), converted back and solved."""

import math

import numpy as np
import pytest

from robohw.commands import main
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.ik import solve_ik
from robohw.ik.codec import POSE_INPUTS, pose_inputs
from robohw.robots import load_robot
from robohw.robots.chain import as_chain, joint_poses
from robohw.robots.closed_forms import puma_form
from robohw.robots.dh_form import dh_form
from robohw.robots.kinematics import forward_kinematics
from robohw.systolic.reference import inertia_matrix

# The DH form reproduces the chain's poses, H and tau within this share of their largest
# entry (float64 rounding: measured below 1e-15).
AGREE = 1e-12


def random_rotation(rng):
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


def rpy(rotation):
    """URDF's roll, pitch, yaw of ``rotation = Rz(y) Ry(p) Rx(r)``."""
    return (math.atan2(rotation[2, 1], rotation[2, 2]),
            math.atan2(-rotation[2, 0], math.hypot(rotation[0, 0], rotation[1, 0])),
            math.atan2(rotation[1, 0], rotation[0, 0]))


def numbers(values):
    return " ".join(repr(float(v)) for v in values)


def origin(matrix):
    return f'<origin xyz="{numbers(matrix[:3, 3])}" rpy="{numbers(rpy(matrix[:3, :3]))}"/>'


def scrambled_urdf(robot, seed, reverse=()):
    """``robot`` (a DH robot) as URDF text, every joint frame ``F_i`` replaced by ``F_i X_i``:
    ``X_i`` a random rotation and a slide along the joint's axis (so the axis still passes
    through the frame's origin); the root frame moved by a random rigid ``X_0``; a fixed
    joint to a massless link ``tool`` at the DH tool frame. Joints numbered in ``reverse`` have
    their axis written reversed (and their limits turned over)."""
    rng = np.random.default_rng(seed)
    chain = as_chain(robot)
    scramble = []
    for k in range(chain.dof + 1):
        x = np.eye(4)
        x[:3, :3] = random_rotation(rng)
        x[:3, 3] = rng.uniform(-0.3, 0.3, 3) if k == 0 else rng.uniform(-0.2, 0.2) * np.array(
            [0.0, 0.0, 1.0])
        scramble.append(x)
    links = ['<link name="link0"/>']
    joints = []
    for k, joint in enumerate(chain.joints, start=1):
        x_before, x = scramble[k - 1], scramble[k]
        placement = np.linalg.inv(x_before) @ joint.placement.matrix @ x
        inverse = np.linalg.inv(x)
        com = inverse[:3, :3] @ np.array(joint.com) + inverse[:3, 3]
        ixx, iyy, izz, ixy, iyz, ixz = joint.inertia
        tensor = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
        tensor = x[:3, :3].T @ tensor @ x[:3, :3]
        axis = x[:3, :3].T @ np.array([0.0, 0.0, 1.0])
        low, high = joint.limits
        if k in reverse:
            axis, low, high = -axis, -high, -low
        links.append(
            f'<link name="link{k}"><inertial><origin xyz="{numbers(com)}"/>'
            f'<mass value="{joint.mass!r}"/><inertia ixx="{tensor[0, 0]:.17g}" '
            f'ixy="{tensor[0, 1]:.17g}" ixz="{tensor[0, 2]:.17g}" iyy="{tensor[1, 1]:.17g}" '
            f'iyz="{tensor[1, 2]:.17g}" izz="{tensor[2, 2]:.17g}"/></inertial></link>')
        joints.append(
            f'<joint name="joint{k}" type="revolute"><parent link="link{k - 1}"/>'
            f'<child link="link{k}"/>{origin(placement)}'
            f'<axis xyz="{numbers(axis)}"/>'
            f'<limit lower="{low!r}" upper="{high!r}" effort="100" velocity="3"/></joint>')
    tool = np.linalg.inv(scramble[-1]) @ chain.tip.matrix
    links.append('<link name="tool"/>')
    joints.append(f'<joint name="flange" type="fixed"><parent link="link{chain.dof}"/>'
                  f'<child link="tool"/>{origin(tool)}</joint>')
    return f'<robot name="scrambled">{"".join(links + joints)}</robot>\n'


@pytest.fixture
def scrambled_puma(tmp_path):
    path = tmp_path / "puma.urdf"
    path.write_text(scrambled_urdf(load_robot("puma560"), seed=7))
    return path


def within_limits(chain, count, seed):
    rng = np.random.default_rng(seed)
    low = np.array([j.limits[0] for j in chain.joints])
    high = np.array([j.limits[1] for j in chain.joints])
    return rng.uniform(low, high, (count, chain.dof))


def share(ours, theirs):
    return float(np.abs(ours - theirs).max() / np.abs(theirs).max())


@pytest.mark.parametrize("name, tip", [("puma560", None), ("stanford", None), ("ur5", "tool0"),
                                       ("panda", "panda_hand")])
def test_the_dh_form_is_the_chain(name, tip):
    """Tip poses, H and tau of the DH form (with its base and tool placements and joint signs)
    equal the chain's."""
    chain = as_chain(load_robot(name, tip=tip))
    form = dh_form(chain)
    sign = np.array(form.sign)
    q = within_limits(chain, 30, seed=2)
    rng = np.random.default_rng(3)
    qd, qdd = rng.normal(0, 2, q.shape), rng.normal(0, 5, q.shape)
    _, tip_pose = joint_poses(chain, q)
    mine = form.base.matrix @ forward_kinematics(form.robot, sign * q) @ form.tool.matrix
    assert share(mine, tip_pose) < AGREE
    assert np.allclose(form.dh_pose(tip_pose), forward_kinematics(form.robot, sign * q),
                       rtol=0, atol=AGREE)
    h = inertia_matrix(form.robot, sign * q, "jacobian") * np.outer(sign, sign)
    assert share(h, inertia_matrix(chain, q, "jacobian")) < AGREE
    tau = inverse_dynamics(form.robot, sign * q, sign * qd, sign * qdd) * sign
    assert share(tau, inverse_dynamics(chain, q, qd, qdd)) < AGREE


def test_an_antiparallel_axis_keeps_a_zero_twist(tmp_path):
    """Joint 3's axis (and limits) written reversed: its DH value is the chain's negated (sign
    -1), the twist stays 0 (not 180 degrees), and the DH form is the unreversed file's."""
    puma = load_robot("puma560")
    chain = load_robot_text(tmp_path, scrambled_urdf(puma, seed=7), tip="tool")
    flipped = load_robot_text(tmp_path, scrambled_urdf(puma, seed=7, reverse=(3,)), tip="tool")
    form, before = dh_form(flipped), dh_form(chain)
    assert form.sign == (1, 1, -1, 1, 1, 1) and before.sign == (1,) * 6
    assert abs(form.robot.joints[1].alpha) < AGREE
    for ours, theirs in zip(form.robot.joints, before.robot.joints):
        for field in ("a", "alpha", "d", "offset", "mass"):
            assert abs(getattr(ours, field) - getattr(theirs, field)) < AGREE, field
        assert np.allclose(ours.limits, theirs.limits, rtol=0, atol=AGREE)
        assert np.allclose(ours.com, theirs.com, rtol=0, atol=AGREE)


def load_robot_text(tmp_path, text, tip=None):
    path = tmp_path / f"robot{abs(hash(text))}.urdf"
    path.write_text(text)
    return load_robot(path, tip=tip)


def test_a_scrambled_puma_is_of_the_family(scrambled_puma):
    """The scrambled URDF's DH form has the PUMA 560's lengths (d2 + d3 its shoulder offset;
    d1 moves with the base)."""
    puma = load_robot("puma560")
    form = puma_form(load_robot(scrambled_puma, tip="tool"))
    ours, theirs = form.robot.joints, puma.joints
    for k in range(6):
        assert abs(ours[k].a - theirs[k].a) < AGREE, k
        assert abs(abs(math.sin(ours[k].alpha)) - abs(math.sin(theirs[k].alpha))) < AGREE
    assert abs(ours[1].d + ours[2].d - theirs[1].d - theirs[2].d) < AGREE
    assert abs(ours[3].d - theirs[3].d) < AGREE and abs(ours[5].d - theirs[5].d) < AGREE


def test_urdf_ik_round_trips_on_every_branch(scrambled_puma):
    chain = load_robot(scrambled_puma, tip="tool")
    q = within_limits(chain, 40, seed=4)
    _, poses = joint_poses(chain, q)
    found = np.zeros(len(q), dtype=bool)
    for branch in range(8):
        solution = solve_ik(chain, poses, "float", branch)
        assert solution.valid.any()
        ok = solution.valid
        _, again = joint_poses(chain, solution.q[ok])
        assert np.abs(again - poses[ok]).max() < 1e-9
        turns = np.remainder(solution.q - q + np.pi, 2 * np.pi) - np.pi
        found |= ok & (np.abs(turns).max(1) < 1e-9)
    assert found.all()


def test_the_ik_command_takes_a_urdf_of_the_family(scrambled_puma, tmp_path):
    """``robohw ik --robot puma.urdf --tip tool``: float and model backends, the model within
    the IK's 1e-4 rad goal at 24 bits (docs/ik.md)."""
    chain = load_robot(scrambled_puma, tip="tool")
    q = within_limits(chain, 20, seed=6)
    _, poses = joint_poses(chain, q)
    columns = pose_inputs(poses)
    path = tmp_path / "poses.csv"
    path.write_text(",".join(POSE_INPUTS) + "\n" + "".join(
        ",".join(repr(float(columns[name][r])) for name in POSE_INPUTS) + "\n"
        for r in range(len(q))))
    out = {}
    for backend in ("float", "model"):
        target = tmp_path / f"{backend}.csv"
        assert main(["ik", "--robot", str(scrambled_puma), "--tip", "tool", "--poses",
                     str(path), "--out", str(target), "--backend", backend]) == 0
        rows = target.read_text().splitlines()[1:]
        out[backend] = np.array([[float(v) for v in row.split(",")] for row in rows])
    assert out["float"][:, 6].all()
    both = (out["model"][:, 6] == 1)
    assert both.sum() >= len(q) - 2
    turns = np.remainder(out["model"][both, :6] - out["float"][both, :6] + np.pi,
                         2 * np.pi) - np.pi
    assert np.abs(turns).max() < 1e-4


def test_urdf_robots_off_the_family_are_refused_in_one_line(tmp_path, capsys):
    poses = tmp_path / "poses.csv"
    poses.write_text(",".join(POSE_INPUTS) + "\n" + "1,0,0,0,1,0,0,0,1,0.3,0.1,0.4\n")
    out = tmp_path / "q.csv"
    assert main(["ik", "--robot", "ur5", "--poses", str(poses), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ur5.urdf: not of the PUMA family: d5 must be 0, not " \
        "0.09465 (in the DH form of its joint axes)" in err
    assert not out.exists()
    with pytest.raises(ValueError, match="not of the PUMA family"):
        puma_form(load_robot("panda", tip="panda_hand"))
    with pytest.raises(TypeError, match="dh_form takes a Chain, not Robot"):
        dh_form(load_robot("puma560"))
