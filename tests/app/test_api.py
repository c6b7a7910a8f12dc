"""The Python entry (robohw.api): the commands' numbers and flags on numpy arrays."""

import numpy as np
import pytest
from tiers import HEAVY

from robohw.api import Arm, Result, load_arm
from robohw.dynamics import solve_dynamics
from robohw.robots import RobotFileError, load_robot
from robohw.robots.kinematics import forward_kinematics
from robohw.robots.sampling import sample_states
from robohw.systolic import solve_inertia


def test_float_and_model_backends_are_the_commands():
    arm = load_arm("puma560")
    rng = np.random.default_rng(2)
    q = rng.uniform(-0.5, 0.5, (4, 6))
    qd, qdd = rng.uniform(-0.5, 0.5, q.shape), rng.uniform(-1, 1, q.shape)
    qd[3, 0] = 1.5                                    # beyond joint 1's velocity limit
    assert np.array_equal(arm.forward_kinematics(q), forward_kinematics(arm.robot, q))
    for backend in ("float", "model"):
        got = arm.inverse_dynamics(q, qd, qdd, backend)
        want = solve_dynamics(arm.robot, q, qd, qdd, backend)
        assert isinstance(got, Result)
        assert np.array_equal(got.values, want.tau) and np.array_equal(got.valid, want.valid)
        assert list(got.reason) == list(want.reason)
        h = arm.inertia(q, backend)
        want_h = solve_inertia(arm.robot, q, backend)
        assert np.array_equal(h.values, want_h.h) and list(h.reason) == list(want_h.reason)
        assert (h.accuracy is None) == (backend == "float")
    assert list(arm.inverse_dynamics(q, qd, qdd, "model").reason) == ["ok"] * 3 + \
        ["outside_limits"]
    assert arm.inverse_dynamics(q, qd, qdd, "model").accuracy is not None


def test_urdf_robots_and_refusals():
    arm = load_arm("panda", tip="panda_hand")
    assert arm.dof == 7 and arm.name == "panda"
    q = np.zeros((2, 7))
    assert arm.inverse_dynamics(q, q, q).valid.all()
    assert arm.inverse_dynamics(q, q, q, "model").valid.all()     # its damping included
    assert arm.inertia(q, "model").valid.all()
    with pytest.raises(ValueError, match=r"q must have shape \(rows, 7\) for panda"):
        arm.inertia(np.zeros((2, 6)))
    with pytest.raises(ValueError, match="backend must be one of"):
        arm.inertia(q, "rtl")
    with pytest.raises(TypeError, match="robot must be a Robot or a Chain"):
        Arm("puma560")
    with pytest.raises(RobotFileError, match="no such link"):
        load_arm("panda", tip="panda_wrist")
    assert load_arm("panda").robot.tip_link == "panda_hand"       # its sidecar's tip
    assert load_robot("ur5") == load_arm("ur5").robot


@pytest.mark.parametrize("name, design, array", [
    ("dynamics-engine", "engine", None), ("dynamics-pipelined", "pipelined", None),
    ("inertia-logdepth", None, "logdepth")])
def test_the_default_width_is_the_designs_for_the_robot(name, design, array):
    # One default per design and robot: the API and the commands compute at the width
    # `robohw sim --robot` and `export --robot` build (the Stanford arm's is measured on first
    # use, robohw.sim.measured_width), the same bits as that width given, others at another.
    from robohw.registry import design as registry_design
    width = registry_design(name, "stanford").default_width
    arm = load_arm("stanford")
    states = [s[:200] for s in sample_states(arm.robot, 200, np.random.default_rng(6))]
    if array is None:
        def solve(**options):
            return arm.inverse_dynamics(*states, "model", design=design, **options).values
    else:
        def solve(**options):
            return arm.inertia(states[0], "model", array=array, **options).values
    assert np.array_equal(solve(), solve(width=width))
    assert not np.array_equal(solve(), solve(width=width + 2))


@HEAVY
def test_the_dynamics_command_and_export_pick_the_same_width(tmp_path, capsys):
    from robohw.commands import main
    from robohw.dynamics import state_columns
    arm = load_arm("stanford")
    states = np.hstack(sample_states(arm.robot, 20, np.random.default_rng(7)))
    path = tmp_path / "states.csv"
    np.savetxt(path, states, delimiter=",", header=",".join(state_columns(arm.robot.dof)),
               comments="")
    out = tmp_path / "verilog"
    assert main(["export", "--robot", "stanford", "--designs", "dynamics-pipelined", "--out",
                 str(out), "--no-lint"]) == 0
    # The default width alone is exported.
    (sidecar,) = out.glob("dynamics_pipelined_stanford_w*.json")
    width = int(sidecar.stem.split("_w")[1].split("_")[0])
    files = {}
    for options in ([], ["--width", str(width)]):
        files[len(options)] = tmp_path / f"tau{len(options)}.csv"
        assert main(["dynamics", "--robot", "stanford", "--states", str(path), "--out",
                     str(files[len(options)]), "--backend", "model", "--design", "pipelined",
                     *options]) == 0
    assert files[0].read_bytes() == files[2].read_bytes()
    capsys.readouterr()
