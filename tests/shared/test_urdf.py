"""URDF robots: the loader's chain and refusals, and every float64 reference on general chains,
checked against Pinocchio (an independent library) on the shipped UR5 and Panda."""

import pathlib
import warnings

import numpy as np
import pytest
from pinocchio_urdf import pinocchio_urdf_model

from robohw.dynamics import solve_dynamics
from robohw.dynamics.inverse.reference import (
    FORMULATIONS,
    base_coordinate_steps,
    inverse_dynamics,
    joint_terms,
)
from robohw.dynamics.inverse.scans import run_schedule, serial_schedule
from robohw.robots import RobotFileError, load_robot
from robohw.robots.algebra import FloatArith
from robohw.robots.chain import as_chain, joint_poses
from robohw.robots.description import RobotFileWarning
from robohw.robots.kinematics import forward_kinematics, tool_jacobian
from robohw.robots.urdf import DEFAULT_ACCELERATION_LIMIT
from robohw.robots.urdf_sidecar import sidecar_path
from robohw.systolic.reference import inertia_matrix, joint_inputs, link_frames, table1
from robohw.transputer.lagrange_euler import lagrange_euler_torques

pin = pytest.importorskip("pinocchio")

ROBOTS = pathlib.Path(__file__).parents[2] / "robots"
# (shipped file, --tip, Pinocchio's frame of the tip)
ARMS = [("ur5", None, "wrist_3_link"), ("ur5", "tool0", "tool0"),
        ("panda", "panda_hand", "panda_hand"), ("panda", "panda_hand_tcp", "panda_hand_tcp"),
        ("iiwa14", None, "iiwa_link_7")]
# The references agree with Pinocchio within this share of the largest entry (float64
# rounding over a few hundred operations: measured below 1e-15).
AGREE = 1e-12


def states(chain, count, seed=1):
    rng = np.random.default_rng(seed)
    low = np.array([j.limits[0] for j in chain.joints])
    high = np.array([j.limits[1] for j in chain.joints])
    q = rng.uniform(low, high, (count, chain.dof))
    return q, rng.normal(0, 2, q.shape), rng.normal(0, 5, q.shape)


def share(ours, theirs):
    return float(np.abs(ours - theirs).max() / np.abs(theirs).max())


@pytest.mark.parametrize("name, tip, frame", ARMS)
def test_shipped_arms_match_pinocchio(name, tip, frame):
    chain = load_robot(name, tip=tip)
    model = pinocchio_urdf_model(chain, ROBOTS / f"{name}.urdf")
    data = model.createData()
    assert model.nq == chain.dof
    assert [model.names[k] for k in range(1, model.njoints)] == [j.name for j in chain.joints]
    q, qd, qdd = states(chain, 40)
    pose = forward_kinematics(chain, q)
    jacobian, _ = tool_jacobian(chain, q)
    h = {m: inertia_matrix(chain, q, m) for m in ("table1", "table2", "jacobian")}
    tau = {f: inverse_dynamics(chain, q, qd, qdd, f) - joint_terms(chain, qd, qdd)
           for f in FORMULATIONS}
    tau["trace form"] = lagrange_euler_torques(chain, q, qd, qdd) - joint_terms(chain, qd, qdd)
    frame_id = model.getFrameId(frame)
    theirs = {"pose": [], "jacobian": [], "h": [], "tau": []}
    for b in range(len(q)):
        pin.framesForwardKinematics(model, data, q[b])
        theirs["pose"].append(data.oMf[frame_id].homogeneous.copy())
        theirs["jacobian"].append(pin.computeFrameJacobian(
            model, data, q[b], frame_id, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED).copy())
        m = pin.crba(model, data, q[b])
        theirs["h"].append(np.triu(m) + np.triu(m, 1).T)
        theirs["tau"].append(pin.rnea(model, data, q[b], qd[b], qdd[b]).copy())
    theirs = {k: np.array(v) for k, v in theirs.items()}
    assert share(pose, theirs["pose"]) < AGREE
    assert share(jacobian, theirs["jacobian"]) < AGREE
    for method, value in h.items():
        assert share(value, theirs["h"]) < AGREE, method
    for formulation, value in tau.items():
        assert share(value, theirs["tau"]) < AGREE, formulation


def test_a_chain_carries_the_urdf_numbers_unrounded():
    """The UR5's shoulder is turned by pitch 1.57079632679 (pi/2 - 4.9e-12): kept, not
    snapped to 90 degrees (the agreement above to 1e-12 would catch a snap)."""
    chain = load_robot("ur5")
    cos_pitch = chain.joints[1].placement.rotation[0][0]
    assert cos_pitch != 0 and abs(cos_pitch - np.cos(1.57079632679)) < 1e-20


def test_the_tip_rule_and_merged_links(tmp_path):
    ur5 = load_robot("ur5")
    assert (ur5.base_link, ur5.tip_link, ur5.dof, ur5.locked) == ("world", "wrist_3_link", 6, ())
    # base_link is fixed to the world: its 4 kg are not carried; the rest is, ee_link and
    # tool0 (massless) merged into wrist_3_link.
    assert sum(j.mass for j in ur5.joints) == pytest.approx(3.7 + 8.393 + 2.275 + 1.219 * 2
                                                             + 0.1879)
    # The Panda without its sidecar: the branches part at panda_hand, seven joints before it
    # and one a finger past it, so the tip is the hand and the fingers are locked, said in a
    # warning; the chain is the shipped one's (whose sidecar names that tip).
    bare = tmp_path / "panda.urdf"
    bare.write_text((ROBOTS / "panda.urdf").read_text())
    with pytest.warns(RobotFileWarning, match="movable joints on several branches: the tip is "
                                              "panda_hand, where they part "
                                              r"\(panda_finger_joint1, panda_finger_joint2 "
                                              r"locked; --tip LINK for another\)"):
        chain = load_robot(bare)
    shipped = load_robot("panda")
    assert (chain.tip_link, chain.locked) == ("panda_hand", shipped.locked)
    assert [j.placement for j in chain.joints] == [j.placement for j in shipped.joints]
    assert load_robot("panda").tip_link == "panda_hand"
    assert load_robot("panda", tip="panda_hand_tcp").tip_link == "panda_hand_tcp"
    (tmp_path / "panda.urdf.toml").write_text('tip = "panda_wrist"\n')
    with pytest.raises(RobotFileError, match=r"panda\.urdf\.toml: tip panda_wrist: no such "
                                             r"link"):
        load_robot(bare)
    panda = load_robot("panda", tip="panda_hand")
    assert dict(panda.locked) == {"panda_finger_joint1": 0.0, "panda_finger_joint2": 0.0}
    # The hand (0.73 kg) and both fingers (0.015 kg each) ride on link 7.
    assert panda.joints[-1].mass == pytest.approx(0.735522 + 0.73 + 0.03)
    assert panda.joints[0].damping == 0.003


def traced_dh_torques(robot, q, qd, qdd):
    """The traced DH form of the scan formulation (the graph the hardware is built from), in
    float64: twists within 1e-12 of a multiple of 90 degrees snapped, as the hardware does."""
    joints = [(np.cos(q[:, k] + j.offset), np.sin(q[:, k] + j.offset)) if j.type == "revolute"
              else q[:, k] + j.offset for k, j in enumerate(robot.joints)]

    def serial(phase, elements, combine):
        return run_schedule(serial_schedule(len(elements)), elements, combine)

    zero = tuple(np.zeros(len(q)) for _ in range(3))
    tau = base_coordinate_steps(robot, joints, list(qd.T), list(qdd.T), (zero, zero),
                                FloatArith(), serial)
    return np.stack(tau, axis=1)


def test_dh_robots_as_chains_keep_their_torques():
    """The DH robots' chain (as_chain) gives the DH forward kinematics, and the traced DH
    form (the hardware's graph, in float64) equals the float references on the chain."""
    for name in ("puma560", "stanford"):
        robot = load_robot(name)
        chain = as_chain(robot)
        q, qd, qdd = states(chain, 30, seed=3)
        _, tip = joint_poses(chain, q)
        assert np.abs(tip - forward_kinematics(robot, q)).max() < 1e-14
        link = inverse_dynamics(robot, q, qd, qdd, "link")
        assert share(traced_dh_torques(robot, q, qd, qdd), link) < AGREE
        assert share(inverse_dynamics(robot, q, qd, qdd, "scan"), link) < AGREE
        frames = link_frames(robot)
        traced = table1(frames, joint_inputs(frames, q))
        h = inertia_matrix(chain, q, "jacobian")
        assert max(abs(traced[j, i] - h[:, j - 1, i - 1]).max()
                   for j, i in traced) / np.abs(h).max() < AGREE


def test_the_float_references_never_snap_a_twist(tmp_path):
    """A DH twist 5e-13 short of 90 degrees: within the hardware's snapping tolerance (1e-12),
    yet every float64 reference keeps it. The snapped traced form differs from them by about
    the twist's error; the references agree with each other far below it."""
    text = (ROBOTS / "puma560.toml").read_text()
    twisted = text.replace("alpha = 1.5707963267948966", "alpha = 1.5707963267943966", 1)
    assert twisted != text
    path = tmp_path / "twisted.toml"
    path.write_text(twisted)
    robot = load_robot(path)
    q, qd, qdd = states(as_chain(robot), 50, seed=5)
    link = inverse_dynamics(robot, q, qd, qdd, "link")
    h = inertia_matrix(robot, q, "jacobian")
    for formulation in ("scan", "lagrange"):
        assert share(inverse_dynamics(robot, q, qd, qdd, formulation), link) < 2e-14
    for method in ("table1", "table2"):
        assert share(inertia_matrix(robot, q, method), h) < 2e-14
    assert share(traced_dh_torques(robot, q, qd, qdd), link) > 1e-13


def test_joint_terms_in_every_formulation(tmp_path):
    """armature * qdd + damping * qd + friction * sign(qd), the same in the three formulations;
    the armature is in H as Pinocchio puts it (crba and rnea)."""
    urdf = tmp_path / "arm.urdf"
    urdf.write_text((ROBOTS / "ur5.urdf").read_text().replace(
        '<dynamics damping="0.0" friction="0.0"/>', '<dynamics damping="0.4" friction="1.5"/>'))
    sidecar_path(urdf).write_text("armature = 0.25\n[joint.elbow_joint]\narmature = 0.5\n")
    chain = load_robot(urdf)
    assert [j.armature for j in chain.joints] == [0.25, 0.25, 0.5, 0.25, 0.25, 0.25]
    q, qd, qdd = states(chain, 20, seed=5)
    qd[0] = 0.0                                 # at rest: no Coulomb term
    terms = np.array([0.25, 0.25, 0.5, 0.25, 0.25, 0.25]) * qdd + 0.4 * qd + 1.5 * np.sign(qd)
    assert np.array_equal(joint_terms(chain, qd, qdd), terms)
    model = pinocchio_urdf_model(chain, urdf)
    data = model.createData()
    rigid = np.array([pin.rnea(model, data, *row) for row in zip(q, qd, qdd)])
    for formulation in FORMULATIONS:
        got = inverse_dynamics(chain, q, qd, qdd, formulation)
        assert share(got, rigid + 0.4 * qd + 1.5 * np.sign(qd)) < AGREE, formulation
    got = lagrange_euler_torques(chain, q, qd, qdd)
    assert share(got, rigid + 0.4 * qd + 1.5 * np.sign(qd)) < AGREE
    m = pin.crba(model, data, q[0])
    assert share(inertia_matrix(chain, q[:1], "table1")[0], np.triu(m) + np.triu(m, 1).T) < AGREE


def test_locked_positions_from_the_sidecar(tmp_path):
    urdf = tmp_path / "panda.urdf"
    urdf.write_text((ROBOTS / "panda.urdf").read_text())
    sidecar_path(urdf).write_text("[joint.panda_finger_joint1]\nposition = 0.03\n")
    chain = load_robot(urdf, tip="panda_hand")
    # The right finger mimics the left: held at 0.03 too.
    assert dict(chain.locked) == {"panda_finger_joint1": 0.03, "panda_finger_joint2": 0.03}
    model = pinocchio_urdf_model(chain, urdf)
    data = model.createData()
    q, qd, qdd = states(chain, 10, seed=7)
    theirs = np.array([pin.rnea(model, data, *row) for row in zip(q, qd, qdd)])
    ours = inverse_dynamics(chain, q, qd, qdd) - joint_terms(chain, qd, qdd)
    assert share(ours, theirs) < AGREE
    assert ours[0, 6] != pytest.approx(
        (inverse_dynamics(load_robot("panda", tip="panda_hand"), q, qd, qdd)
         - joint_terms(chain, qd, qdd))[0, 6], abs=1e-9)


def test_xacro_expands_to_its_urdf(tmp_path):
    body = (ROBOTS / "ur5.urdf").read_text()
    start, end = body.index("<link name=\"base_link\">"), body.rindex("</robot>")
    arm = body[start:end]
    xacro = tmp_path / "ur5.urdf.xacro"
    xacro.write_text(
        '<?xml version="1.0"?>\n<robot name="ur5" xmlns:xacro="http://www.ros.org/wiki/xacro">\n'
        '<xacro:property name="lift" value="0.13585"/>\n'
        + arm.replace('xyz="0.0 0.13585 0.0"', 'xyz="0.0 ${lift} 0.0"') + "</robot>\n")
    # The shipped UR5's sidecar (acceleration limits) beside it, as NAME.urdf.toml.
    (tmp_path / "ur5.urdf.toml").write_text((ROBOTS / "ur5.urdf.toml").read_text())
    assert load_robot(xacro) == _without_source(load_robot("ur5"), load_robot(xacro))


def _without_source(chain, like):
    import dataclasses
    return dataclasses.replace(chain, source=like.source)


MINIMAL = """<?xml version="1.0"?>
<robot name="two">
  <link name="base"/>
  <link name="upper"><inertial><mass value="{mass}"/><origin xyz="0 0 0.1"/>
    <inertia ixx="{ixx}" iyy="0.01" izz="0.01" ixy="0" iyz="0" ixz="0"/></inertial></link>
  <link name="fore"><inertial><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" iyz="0" ixz="0"/></inertial></link>
  <joint name="shoulder" type="{kind}"><parent link="base"/><child link="upper"/>
    <axis xyz="{axis}"/><limit lower="-1" upper="1" velocity="2"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="fore"/>
    <origin xyz="0 0 0.3"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" velocity="2"/>
  </joint>
  {extra}
</robot>
"""


def minimal(**fields):
    values = {"mass": "1", "ixx": "0.01", "kind": "revolute", "axis": "0 0 1", "extra": ""}
    return MINIMAL.format(**{**values, **fields})


BOMB = ('<?xml version="1.0"?>\n<!DOCTYPE robot [<!ENTITY a "aaaaaaaaaa">'
        '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]>\n'
        '<robot name="&c;"><link name="x"/></robot>\n')
EXTERNAL = ('<?xml version="1.0"?>\n<!DOCTYPE robot [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
            '\n<robot name="&e;"><link name="x"/></robot>\n')


@pytest.mark.parametrize("text, tip, message", [
    (minimal(kind="floating"), None, "joint shoulder: type: a floating joint is not a joint of "
                                     "a serial arm"),
    (minimal(kind="planar"), None, "joint shoulder: type: a planar joint"),
    (minimal(extra='<joint name="loop" type="fixed"><parent link="base"/>'
                   '<child link="fore"/></joint>'), None,
     "link fore: the child of joints elbow and loop: a closed loop is not a serial chain"),
    (minimal(), "nowhere", r"--tip nowhere: no such link \(links: base, upper, fore\)"),
    (minimal(mass="-1"), None, "link upper: mass: must not be negative"),
    (minimal(ixx="-0.5"), None, "link upper: inertia: not positive semidefinite"),
    (minimal(ixx="nan"), None, "link upper: inertia ixx: expected a finite number, not 'nan'"),
    (minimal(axis="0 0 0"), None, "joint shoulder: axis xyz: a zero axis"),
    (minimal(axis="0 0"), None, "joint shoulder: axis xyz: expected 3 numbers"),
    (minimal(kind="fixed").replace('type="revolute"', 'type="fixed"'), None,
     "no movable joint below the base link base"),
    (minimal(extra='<joint name="e2" type="revolute"><parent link="upper"/><child link="x"/>'
                   '<mimic joint="shoulder"/><axis xyz="1 0 0"/>'
                   '<limit lower="-1" upper="1" velocity="1"/></joint><link name="x"/>'), "x",
     "joint e2: mimic: a mimic joint on the chain"),
    (BOMB, None, "refused: .*a URDF needs no entities"),
    (EXTERNAL, None, "refused: .*a URDF needs no entities"),
    ("<robot><link name='a'>", None, "not well-formed XML"),
    ("<sdf/>", None, r"not a URDF: its root element is <sdf>"),
    (minimal().replace('lower="-1" upper="1" ', ''), None,
     "joint shoulder: limit: lower and upper needed"),
])
def test_hostile_urdfs_are_refused_in_one_line(tmp_path, text, tip, message):
    path = tmp_path / "arm.urdf"
    path.write_text(text)
    with pytest.raises(RobotFileError, match=message) as caught:
        load_robot(path, tip=tip)
    assert "\n" not in str(caught.value) and str(caught.value).startswith(str(path))


def test_two_arms_on_a_torso_need_a_tip(tmp_path):
    # The branches part at the upper link after one joint, with one joint past it on each:
    # not a hand's fingers (the chain to the fork holds no more joints than a branch).
    path = tmp_path / "arm.urdf"
    path.write_text(minimal(extra='<link name="other"/><joint name="twin" type="revolute">'
                                  '<parent link="upper"/><child link="other"/><axis xyz="1 0 0"/>'
                                  '<limit lower="-1" upper="1" velocity="2"/></joint>'))
    with pytest.raises(RobotFileError, match="movable joints on several branches: give --tip "
                                             "LINK, one of upper, fore, other"):
        load_robot(path)


def test_a_urdf_without_acceleration_limits_takes_the_default(tmp_path):
    path = tmp_path / "arm.urdf"
    path.write_text(minimal())
    with pytest.warns(RobotFileWarning, match="arm.urdf: no acceleration_limit for joints "
                                              "shoulder, elbow: taking 10 per second squared, "
                                              "which the dynamics hardware is sized for "
                                              r"\(give them as <limit acceleration> or in "
                                              r"its sidecar .*arm\.urdf\.toml\)"):
        chain = load_robot(path)
    assert [j.acceleration_limit for j in chain.joints] == [DEFAULT_ACCELERATION_LIMIT] * 2
    sidecar_path(path).write_text("[joint.elbow]\nacceleration_limit = 4.0\n")
    with pytest.warns(RobotFileWarning, match="no acceleration_limit for joints shoulder:"):
        chain = load_robot(path)
    assert [j.acceleration_limit for j in chain.joints] == [10.0, 4.0]


def test_the_urdfs_own_acceleration_limits(tmp_path):
    # URDF 1.2's <limit acceleration>, and Drake's drake:acceleration in its namespace; the
    # sidecar overrides either; a state between the default and the file's limit is in bounds.
    path = tmp_path / "arm.urdf"
    text = minimal().replace('velocity="2"/></joint>', 'velocity="2" acceleration="15.72"/>'
                             '</joint>', 1)
    text = text.replace('<robot name="two">', '<robot name="two" '
                        'xmlns:drake="http://drake.mit.edu">')
    text = text.replace('upper="2" velocity="2"/>', 'upper="2" velocity="2" '
                        'drake:acceleration="8.5"/>')
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RobotFileWarning)     # none assumed: no warning
        chain = load_robot(path)
    assert [j.acceleration_limit for j in chain.joints] == [15.72, 8.5]
    q, qd = np.zeros((2, 2)), np.zeros((2, 2))
    qdd = np.array([[12.0, 0.0], [16.0, 0.0]])
    got = solve_dynamics(chain, q, qd, qdd, "model", width=24)
    assert got.valid.tolist() == [True, False]
    sidecar_path(path).write_text("[joint.shoulder]\nacceleration_limit = 11.0\n")
    assert [j.acceleration_limit for j in load_robot(path).joints] == [11.0, 8.5]
    path.write_text(text.replace('"15.72"', '"-1"'))
    with pytest.raises(RobotFileError, match="joint shoulder: limit acceleration: must be "
                                             "positive, not -1"):
        load_robot(path)


def test_effort_limits_are_torque_limits(tmp_path):
    # <limit effort> is the joint's torque limit (0, exporters' "not given", is none); the
    # sidecar may tighten it, never raise it; it stays out of the robot's digest.
    from robohw.dynamics.inverse.designs import robot_digest
    path = tmp_path / "arm.urdf"
    plain = minimal()
    path.write_text(plain)
    digest = robot_digest(load_robot(path))
    text = plain.replace('upper="1" velocity="2"/>', 'upper="1" velocity="2" effort="40"/>')
    text = text.replace('upper="2" velocity="2"/>', 'upper="2" velocity="2" effort="0"/>')
    path.write_text(text)
    chain = load_robot(path)
    assert [j.torque_limit for j in chain.joints] == [40.0, None]
    assert robot_digest(chain) == digest
    sidecar_path(path).write_text("torque_limit = 30.0\n[joint.elbow]\ntorque_limit = 5.0\n")
    assert [j.torque_limit for j in load_robot(path).joints] == [30.0, 5.0]
    sidecar_path(path).write_text("[joint.shoulder]\ntorque_limit = 50.0\n")
    with pytest.raises(RobotFileError, match="joint shoulder: torque_limit: 50 exceeds the "
                                             "URDF's 40 "):
        load_robot(path)
    sidecar_path(path).write_text("torque_limit = 0\n")
    with pytest.raises(RobotFileError, match="torque_limit: must be positive, not 0"):
        load_robot(path)
    sidecar_path(path).unlink()
    path.write_text(text.replace('effort="40"', 'effort="-3"'))
    with pytest.raises(RobotFileError, match="joint shoulder: limit effort: must not be "
                                             "negative, not -3"):
        load_robot(path)


def test_a_tip_off_the_base_is_refused(tmp_path):
    path = tmp_path / "arm.urdf"
    path.write_text(minimal())
    with pytest.raises(RobotFileError, match="--tip base: not a descendant of the base link "
                                             "upper"):
        load_robot(path, base="upper", tip="base")


@pytest.mark.parametrize("sidecar, message", [
    ("velocity_limit = 3.0\n", "joint shoulder: velocity_limit: 3 exceeds the URDF's 2 "
                               r"\(a sidecar may only tighten it\)"),
    ("speed = 1\n", "speed: unknown field"),
    ("[joint.wrist]\narmature = 1\n", "joint wrist: no such joint in arm.urdf"),
    ("[joint.shoulder]\nposition = 0.5\n", "joint shoulder: position: only a movable joint "
                                           "off the chain is locked"),
    ("acceleration_limit = -1\n", "acceleration_limit: must be positive"),
    ("armature = \"x\"\n", "armature: expected a finite number"),
    ("a = [\n", "not valid TOML"),
])
def test_bad_sidecars_are_refused(tmp_path, sidecar, message):
    path = tmp_path / "arm.urdf"
    path.write_text(minimal())
    sidecar_path(path).write_text(sidecar)
    with pytest.raises(RobotFileError, match=message):
        load_robot(path)


def test_the_sidecar_sets_limits_and_gravity(tmp_path):
    path = tmp_path / "arm.urdf"
    path.write_text(minimal())
    sidecar_path(path).write_text("acceleration_limit = 4.0\nvelocity_limit = 1.5\n"
                                  "gravity = [0.0, -9.81, 0.0]\n[joint.elbow]\n"
                                  "velocity_limit = 0.5\n")
    chain = load_robot(path)
    assert [(j.velocity_limit, j.acceleration_limit) for j in chain.joints] == \
        [(1.5, 4.0), (0.5, 4.0)]
    assert chain.gravity == (0.0, -9.81, 0.0)
    assert sidecar_path("a/ur5.urdf") == pathlib.Path("a/ur5.urdf.toml")
    assert sidecar_path("a/ur5.urdf.xacro") == pathlib.Path("a/ur5.urdf.toml")


def test_massless_moving_links_are_legal(tmp_path):
    path = tmp_path / "arm.urdf"
    path.write_text(minimal(mass="0", ixx="0").replace(
        'iyy="0.01" izz="0.01" ixy="0" iyz="0" ixz="0"/></inertial></link>\n  <link name="fore"',
        'iyy="0" izz="0" ixy="0" iyz="0" ixz="0"/></inertial></link>\n  <link name="fore"'))
    chain = load_robot(path)
    assert chain.joints[0].mass == 0.0
    q = np.zeros((1, 2))
    assert np.isfinite(inverse_dynamics(chain, q, q, q)).all()


def test_the_commands_take_urdf_robots(tmp_path, capsys):
    from robohw.commands import main
    chain = load_robot("ur5")
    q, qd, qdd = states(chain, 5, seed=11)
    table = tmp_path / "states.csv"
    header = [f"{k}{j}" for k in ("q", "qd", "qdd") for j in range(1, 7)]
    np.savetxt(table, np.hstack([q, qd, qdd]), delimiter=",", header=",".join(header),
               comments="", fmt="%.17g")
    out = tmp_path / "tau.csv"
    command = ["dynamics", "--robot", str(ROBOTS / "ur5.urdf"), "--states", str(table)]
    assert main(command + ["--out", str(out)]) == 0
    got = np.loadtxt(out, delimiter=",", skiprows=1)
    assert np.array_equal(got[:, :6], inverse_dynamics(chain, q, qd, qdd)) and got[:, 6].all()
    # The hardware backends take it too, in its DH form (robots/hardware_form.py), within
    # their proven bound (0.116 N m at 24 bits) of the chain's float64 torques; a state
    # beyond the velocity or acceleration limits (the sidecar's 10 rad/s^2) is not valid.
    model = tmp_path / "model.csv"
    assert main(command + ["--out", str(model), "--backend", "model", "--width", "24"]) == 0
    tau = np.loadtxt(model, delimiter=",", skiprows=1)
    velocity = np.array([j.velocity_limit for j in chain.joints])
    acceleration = np.array([j.acceleration_limit for j in chain.joints])
    inside = (np.abs(qd) <= velocity).all(1) & (np.abs(qdd) <= acceleration).all(1)
    assert inside.any() and np.array_equal(tau[:, 6] == 1, inside)
    assert np.abs(tau[inside, :6] - got[inside, :6]).max() < 0.116
    capsys.readouterr()
    # Coulomb friction (friction sign(qd)): the engine computes it, the paper's pipeline
    # refuses it (tests/dynamics/test_coulomb_friction.py checks the engine's).
    rough = tmp_path / "rough.urdf"
    rough.write_text((ROBOTS / "ur5.urdf").read_text().replace(
        '<dynamics damping="0.0" friction="0.0"/>', '<dynamics damping="0.0" friction="0.5"/>'))
    (tmp_path / "rough.urdf.toml").write_text((ROBOTS / "ur5.urdf.toml").read_text())
    assert main(["dynamics", "--robot", str(rough), "--states", str(table), "--out",
                 str(tmp_path / "engine.csv"), "--backend", "model", "--quiet"]) == 0
    assert main(["dynamics", "--robot", str(rough), "--states", str(table), "--out",
                 str(tmp_path / "no.csv"), "--backend", "model", "--design", "pipelined"]) == 2
    assert not (tmp_path / "no.csv").exists()
    assert capsys.readouterr().err.strip().endswith(
        "shoulder_pan_joint: friction: this design's hardware has no friction term; it needs "
        "the engine (dynamics-engine) or the float backend")
    configurations = tmp_path / "q.csv"
    np.savetxt(configurations, np.zeros((2, 7)), delimiter=",", comments="", fmt="%g",
               header=",".join(f"q{j}" for j in range(1, 8)))
    assert main(["inertia", "--robot", "panda", "--tip", "panda_hand", "--q",
                 str(configurations), "--out", str(out)]) == 0
    h = np.loadtxt(out, delimiter=",", skiprows=1)[:, :49].reshape(2, 7, 7)
    assert np.array_equal(h, inertia_matrix(load_robot("panda", tip="panda_hand"),
                                            np.zeros((2, 7))))
