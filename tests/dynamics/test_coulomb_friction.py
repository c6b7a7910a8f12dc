"""Coulomb friction in the engine's hardware (robohw.dynamics.inverse.engine): ``F_c sign(qd)`` with
the sign of qd's code (0 for code 0), a sign input of the traced graph
(robohw.dataflow.plan.TracedPlan.sign_input). RTL equal to the bit-exact model in Amaranth
and under Verilator, velocities that round to code 0 included; the model within its proven
bound of the float64 reference with the sign taken of the code (robohw.dynamics.inverse.model.
coded_friction), and of Pinocchio's RNEA plus friction and damping, the bound grown by F_c
where a velocity's code is 0 (docs/accuracy.md); the designs without it refuse it in one
line."""

import dataclasses
import json
import pathlib
import warnings

import numpy as np
import pytest
from pinocchio_urdf import pinocchio_rnea

from robohw.dynamics.inverse.codec import decode_torques, encode_states, torque_codes
from robohw.dynamics.inverse.engine import LinkFramePlan, NewtonEulerEngine
from robohw.dynamics.inverse.model import coded_friction, model_outputs
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.robots import load_robot
from robohw.robots.description import RobotFileWarning
from robohw.robots.sampling import random_robot, sample_states
from robohw.sim.harness import run_stream

FIXTURES = pathlib.Path(__file__).parent.parent / "fixtures"
GOAL = 1e-4


def rough(robot, friction, damping=0.0):
    """``robot`` with Coulomb friction ``friction[k]`` and damping on every joint."""
    return dataclasses.replace(robot, joints=tuple(
        dataclasses.replace(j, friction=f, damping=damping or j.damping)
        for j, f in zip(robot.joints, friction)))


def near_zero(plan, states, rows):
    """``states`` with velocities that round to code 0 (0, +-a quarter LSB), to +-1 LSB and
    to +-1 LSB and a quarter, joint by joint, in the first ``rows`` rows."""
    q, qd, qdd = (np.array(s) for s in states)
    fracs = plan.input_fracs
    picks = [0.0, 0.25, -0.25, 1.0, -1.0, 1.25, -0.4999]
    for row in range(rows):
        k = row % plan.dof
        qd[row, k] = picks[row % len(picks)] * 2.0 ** -fracs[f"qd{k + 1}"]
    return q, qd, qdd


def test_the_sign_is_the_codes():
    robot = rough(random_robot(np.random.default_rng(3), 3, prismatic=0.4), [0.7, 1.3, 0.2])
    plan = LinkFramePlan(robot, width=20, bound_fraction=None)
    assert sorted(plan.sign_inputs) == ["fc1", "fc2", "fc3"]
    states = near_zero(plan, sample_states(robot, 40, np.random.default_rng(3)), 21)
    codes = encode_states(plan, *states)
    zero = np.stack([codes[f"qd{k}"] == 0 for k in range(1, 4)], 1)
    assert zero[:21].sum() >= 9 and not zero[21:].any()
    # The correction is -F_c sign(qd) exactly where qd's code is 0 and qd is not.
    correction = coded_friction(plan, states[1], codes)
    frictions = np.array([0.7, 1.3, 0.2])
    assert np.array_equal(correction, np.where(zero, -frictions * np.sign(states[1]), 0.0))
    out, inside = model_outputs(plan, codes)
    tau = decode_torques(plan, out)
    reference = inverse_dynamics(robot, *states)
    bounds = np.array(plan.accuracy.bounds)
    assert inside.all()
    assert np.all(np.abs(tau - reference - correction) <= bounds)
    # Against the float64 reference itself, the bound grows by F_c where the code is 0.
    assert np.all(np.abs(tau - reference) <= bounds + np.where(zero, frictions, 0.0))
    assert np.abs(tau - reference)[zero & (states[1] != 0)].min() > frictions.min() / 2
    assert plan.accuracy.friction == (0.7, 1.3, 0.2)
    assert "a joint whose velocity rounds to code 0 adds its Coulomb friction (at most 1.3 " \
        in plan.accuracy.sentence()


@pytest.mark.parametrize("n, interval, width", [(2, 4, 16), (3, 3, 20)])
def test_rtl_equals_the_model_with_friction(n, interval, width):
    robot = rough(random_robot(np.random.default_rng(40 + n), n, prismatic=0.4),
                  [0.5 * (k + 1) for k in range(n)], damping=0.2)
    dut = NewtonEulerEngine(robot, width=width, interval=interval, tag_width=8,
                            bound_fraction=None)
    states = near_zero(dut.plan, sample_states(robot, 16, np.random.default_rng(n)), 10)
    states[1][12, 0] = 5.0                # beyond its limit: flagged, computed as modelled
    codes = encode_states(dut.plan, *states)
    inputs = [{**{f: int(v[b]) for f, v in codes.items()}, "tag": b} for b in range(16)]
    sink = [1, 1, 0, 1, 0]
    run = run_stream(dut, inputs, sink_ready=lambda c: sink[c % len(sink)])
    expected, inside = model_outputs(dut.plan, codes)
    assert [o["tag"] for o in run.outputs] == list(range(16))
    assert [o["in_bounds"] for o in run.outputs] == inside.astype(int).tolist()
    got = torque_codes(dut.plan, run.outputs)
    for k, values in expected.items():
        assert got[k].tolist() == values.tolist(), k
    assert not inside[12] and inside[:10].all()


@pytest.mark.heavy
def test_a_rough_arms_verilog_equals_the_model(tmp_path, compiled_models):
    from robohw.registry import design
    from robohw.sim.compiled import run_stream_compiled
    path, _ = _ur10_rough(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobotFileWarning)     # no acceleration limits
        found = design("dynamics-engine", str(path))
        dut = found.build()
    states = near_zero(dut.plan, sample_states(dut.plan.robot, 24, np.random.default_rng(2)), 14)
    codes = encode_states(dut.plan, *states)
    inputs = [{**{f: int(v[b]) for f, v in codes.items()}, "tag": b} for b in range(24)]
    run = run_stream_compiled(dut, inputs, sink_pattern=[1, 0, 1], directory=compiled_models)
    expected, _ = model_outputs(dut.plan, codes)
    got = torque_codes(dut.plan, run.outputs)
    for k, values in expected.items():
        assert got[k].tolist() == values.tolist(), k


def _ur10_rough(tmp_path):
    text = (FIXTURES / "ur10_robot.urdf").read_text()
    frictions = [12.0, 12.0, 9.0, 3.0, 3.0, 3.0]
    parts = text.split('friction="0.0"')
    assert len(parts) == 7
    text = "".join(p + (f'friction="{f}"' if k < 6 else "")
                   for k, (p, f) in enumerate(zip(parts, frictions + [None])))
    text = text.replace('damping="0.0"', 'damping="0.4"')
    path = tmp_path / "ur10_rough.urdf"
    path.write_text(text)
    return path, frictions


@pytest.mark.heavy
@pytest.mark.parametrize("count", [20_000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_a_rough_arm_against_pinocchio_on_the_command_line(tmp_path, capsys, count):
    from state_files import write_state_file

    from robohw.commands import main
    from robohw.registry import design
    path, frictions = _ur10_rough(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobotFileWarning)     # no acceleration limits
        chain = load_robot(path)
        # The machine the command builds by default: the engine at the arm's width.
        plan = LinkFramePlan(chain, width=design("dynamics-engine", str(path)).default_width,
                             bound_fraction=None)
    q, qd, qdd = sample_states(chain, count, np.random.default_rng(31))
    # Rows at rest and creeping: qd 0 on every joint, and a quarter of an LSB and of a
    # millionth of the limit on one joint.
    qd[:20] = 0.0
    qd[20:40, 1] = 1e-9
    qd[40:60, 4] = -1e-6 * chain.joints[4].velocity_limit
    states = tmp_path / "states.csv"
    write_state_file(states, q, qd, qdd)
    out = tmp_path / "tau.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobotFileWarning)
        assert main(["dynamics", "--robot", str(path), "--states", str(states), "--out",
                     str(out), "--backend", "model", "--quiet"]) == 0
    capsys.readouterr()
    table = np.loadtxt(out, delimiter=",", skiprows=1)
    tau, valid = table[:, :6], table[:, 6] == 1
    assert valid.all()
    theirs = pinocchio_rnea(path, q, qd, qdd) + np.array(frictions) * np.sign(qd) + 0.4 * qd
    bounds = np.array(plan.accuracy.bounds)
    errors = np.abs(tau - theirs)
    # The velocity codes the machine saw: the bound grows by F_c where one is 0.
    codes = encode_states(plan, q, qd, qdd)
    zero = np.stack([codes[f"qd{k}"] == 0 for k in range(1, 7)], 1)
    moving = ~zero.any(1)
    assert np.all(errors <= bounds + np.where(zero & (qd != 0), frictions, 0.0) + 1e-9)
    assert errors[moving].max() <= GOAL * np.abs(theirs).max()
    # Drawn velocities reach code 0 too, rarely (within half an LSB of 0).
    assert zero[:20].all() and zero[20:40, 1].all() and moving[60:].mean() > 0.999


def test_the_paper_designs_refuse_friction_in_one_line():
    from robohw.dynamics.inverse.array_plan import ArrayPlan
    from robohw.dynamics.inverse.pipeline import NewtonEulerPlan
    robot = rough(load_robot("puma560"), [1.0] * 6)
    for plan in (NewtonEulerPlan, ArrayPlan):
        with pytest.raises(ValueError, match=r"joint 1: friction: this design's hardware has no "
                                             r"friction term; it needs the engine "
                                             r"\(dynamics-engine\) or the float backend$"):
            plan(robot, width=20)


def test_the_dataflow_pipeline_refuses_sign_inputs():
    from robohw.dataflow.component import TracedPipeline
    plan = LinkFramePlan(rough(load_robot("stanford"), [1.0] * 6), width=20,
                         bound_fraction=None)
    with pytest.raises(ValueError, match=r"sign inputs \(fc1, .*\): this machine has no sign "
                                         r"inputs; the engine"):
        TracedPipeline(plan, {}, {})


def test_the_sidecar_names_the_friction(tmp_path):
    from robohw.flows.export import export_design
    from robohw.registry import design
    path = tmp_path / "two.urdf"
    path.write_text((FIXTURES / "two_link.urdf").read_text().replace(
        'effort="50"/>', 'effort="50"/>\n    <dynamics friction="2.0"/>').replace(
        'effort="20"/>', 'effort="20"/>\n    <dynamics friction="0.5"/>'))
    (tmp_path / "two.urdf.toml").write_text((FIXTURES / "two_link.urdf.toml").read_text())
    found = design("dynamics-engine", str(path))
    sidecar = export_design(found, 16, tmp_path, fold=4, check_lint=False)
    plan = LinkFramePlan(load_robot(path), width=16, bound_fraction=None)
    frac = plan.traced_inputs["fc1"]
    assert sidecar["sign_constants"]["fc1"] == {
        "term": "Coulomb friction", "value": 2.0, "code": round(2.0 * 2 ** frac),
        "format": f"fixed(16, {frac})", "selected_by": "qd1", "added_to": "tau1"}
    assert json.loads(json.dumps(sidecar))["sign_constants"]["fc2"]["value"] == 0.5
    assert design("dynamics-engine").sign_constants(design("dynamics-engine").build()) is None
