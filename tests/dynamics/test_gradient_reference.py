"""The gradient of inverse dynamics in float64 (robohw.dynamics.gradient.reference): against
Pinocchio's computeRNEADerivatives (its rigid body; our damping added on dtau/dqd's diagonal)
within 1e-9 of each matrix's largest entry, and against central differences of our own
reference, on shipped arms, a user's URDF arm and a random robot with prismatic joints; Coulomb
friction's derivative is 0, at qd = 0 too."""

import dataclasses
import pathlib

import numpy as np
import pytest

from robohw.dynamics.gradient.reference import inverse_dynamics_gradient
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.robots import load_robot
from robohw.robots.loading import hardware_robot
from robohw.robots.sampling import random_robot, sample_states

EXAMPLE_ARM = pathlib.Path(__file__).resolve().parents[2] / "examples" / "seven_joint_arm.urdf"
ARMS = ["puma560", "ur5", "panda", "stanford", str(EXAMPLE_ARM)]


@pytest.mark.parametrize("name", ARMS, ids=lambda n: pathlib.Path(n).stem)
def test_the_gradient_is_pinocchios(name):
    pin = pytest.importorskip("pinocchio")
    from robohw.robots import pinocchio as peer
    robot = hardware_robot(load_robot(name), terms=())     # Pinocchio's model: the DH form
    model = peer.pinocchio_model(robot)
    data = model.createData()
    q, qd, qdd = sample_states(robot, 40, np.random.default_rng(2))
    dq, dqd = inverse_dynamics_gradient(robot, q, qd, qdd)
    damping = np.diag([float(j.damping or 0.0) for j in robot.joints])
    offsets = np.array(peer.offsets(robot))
    for b in range(len(q)):
        pin.computeRNEADerivatives(model, data, q[b] + offsets, qd[b], qdd[b])
        theirs_q, theirs_qd = np.array(data.dtau_dq), np.array(data.dtau_dv) + damping
        assert np.abs(dq[b] - theirs_q).max() <= 1e-9 * np.abs(theirs_q).max()
        assert np.abs(dqd[b] - theirs_qd).max() <= 1e-9 * np.abs(theirs_qd).max()


@pytest.mark.parametrize("name", [*ARMS[:2], "random"])
def test_the_gradient_is_the_references_central_differences(name):
    robot = random_robot(np.random.default_rng(8), 5, prismatic=0.4) if name == "random" \
        else load_robot(name)
    q, qd, qdd = sample_states(robot, 30, np.random.default_rng(3))
    dq, dqd = inverse_dynamics_gradient(robot, q, qd, qdd)
    step = 1e-6
    for j in range(robot.dof):
        e = np.zeros(robot.dof)
        e[j] = step
        by_q = (inverse_dynamics(robot, q + e, qd, qdd) -
                inverse_dynamics(robot, q - e, qd, qdd)) / (2 * step)
        by_qd = (inverse_dynamics(robot, q, qd + e, qdd) -
                 inverse_dynamics(robot, q, qd - e, qdd)) / (2 * step)
        # A central difference's own error: about step**2 times the third derivative, and
        # float64's rounding over the step.
        assert np.abs(by_q - dq[:, :, j]).max() <= 1e-7 * np.abs(dq).max()
        assert np.abs(by_qd - dqd[:, :, j]).max() <= 1e-7 * np.abs(dqd).max()


def test_friction_adds_nothing_and_damping_its_diagonal():
    robot = load_robot("puma560")
    rubbing = dataclasses.replace(robot, joints=tuple(
        dataclasses.replace(j, friction=3.0, damping=0.5) for j in robot.joints))
    q, qd, qdd = sample_states(robot, 10, np.random.default_rng(4))
    qd[:, 2] = 0.0                                       # where sign(qd) steps
    plain, rubbed = (inverse_dynamics_gradient(r, q, qd, qdd) for r in (robot, rubbing))
    assert np.array_equal(plain[0], rubbed[0])
    assert np.allclose(rubbed[1] - plain[1], 0.5 * np.eye(robot.dof), rtol=0, atol=1e-12)


def test_a_state_of_another_shape_is_refused():
    robot = load_robot("puma560")
    with pytest.raises(ValueError, match=r"qd must have 6 columns for "):
        inverse_dynamics_gradient(robot, np.zeros(6), np.zeros(5), np.zeros(6))


def test_the_command_and_the_api_give_the_references_gradient(tmp_path, capsys):
    # robohw dynamics-gradient writes dtau_i/dq_j row-major, then dtau_i/dqd_j, then valid; the
    # API gives the same matrices, and a state that is not finite is not valid with zeros.
    import csv

    from state_files import write_state_file

    from robohw.api import load_arm
    from robohw.commands import main
    robot = load_robot("ur5")
    q, qd, qdd = sample_states(robot, 5, np.random.default_rng(6))
    write_state_file(tmp_path / "s.csv", q, qd, qdd)
    assert main(["dynamics-gradient", "--robot", "ur5", "--states", str(tmp_path / "s.csv"),
                 "--out", str(tmp_path / "g.csv"), "--reasons"]) == 0
    assert capsys.readouterr().err == f"5 states, 5 valid: {tmp_path / 'g.csv'}\n"
    with open(tmp_path / "g.csv") as file:
        rows = list(csv.DictReader(file))
    n = robot.dof
    assert list(rows[0])[:2] == ["dtau1_dq1", "dtau1_dq2"] and \
        list(rows[0])[n * n:n * n + 2] == ["dtau1_dqd1", "dtau1_dqd2"]
    arm = load_arm("ur5")
    got = arm.inverse_dynamics_gradient(q, qd, qdd)
    want_q, want_qd = inverse_dynamics_gradient(robot, q, qd, qdd)
    assert np.array_equal(got.dq, want_q) and np.array_equal(got.dqd, want_qd)
    for k, row in enumerate(rows):
        values = [float(row[f"dtau{i}_{kind}{j}"]) for kind in ("dq", "dqd")
                  for i in range(1, n + 1) for j in range(1, n + 1)]
        assert values == [*got.dq[k].ravel(), *got.dqd[k].ravel()]
        assert (row["valid"], row["reason"]) == ("1", "ok")
    q[3, 2] = np.nan
    got = arm.inverse_dynamics_gradient(q, qd, qdd)
    assert got.valid.tolist() == [True, True, True, False, True]
    assert got.reason[3] == "not_finite" and not got.dq[3].any() and not got.dqd[3].any()
    with pytest.raises(ValueError, match="backend must be one of float, model, not 'rtl'"):
        arm.inverse_dynamics_gradient(q, qd, qdd, "rtl")
