"""The gradient's traced plan (robohw.dynamics.gradient.plan): forward mode over the link-frame
recursion equals the float64 reference; every derivative bound of GradientBounds holds over
states at the limits' corners; the bit-exact model is within each entry's proven bound of
float64 and within 1e-4 of each matrix's scale (5,000 states an arm here, 100,000 in
make slow); the default width is the narrowest keeping the promise; the model backend of the
command and the API marks rows outside the limits and format as every command does."""

import csv
import dataclasses
import pathlib

import numpy as np
import pytest

from robohw.dynamics.gradient.accuracy import (
    GRADIENT_FRACTION,
    gradient_plan,
    gradient_promise,
    gradient_scales,
    gradient_width,
)
from robohw.dynamics.gradient.bounds import GradientBounds, Slopes
from robohw.dynamics.gradient.dual import Dual, DualArith, dual
from robohw.dynamics.gradient.files import solve_gradient
from robohw.dynamics.gradient.plan import GradientPlan
from robohw.dynamics.gradient.reference import inverse_dynamics_gradient
from robohw.dynamics.inverse.link_frames import link_frame_steps
from robohw.robots import load_robot
from robohw.robots.algebra import FloatArith
from robohw.robots.joint_type import JointType
from robohw.robots.loading import hardware_robot
from robohw.robots.sampling import corner_states, random_robot, sample_states

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures"
UR10 = str(FIXTURES / "ur10_robot.urdf")
# The four arms and their default widths (gradient_width's, derived below).
WIDTHS = {"puma560": 21, "ur5": 22, "panda": 25, UR10: 21}


class _Checking(DualArith):
    """Float duals whose ``bound`` asserts every value's and derivative's norm within it."""
    worst = 0.0

    def bound(self, values, limit):
        parts = [(v.value, v.slopes) if isinstance(v, Dual) else (v, {}) for v in values]
        norm = np.sqrt(sum(np.asarray(value, float) ** 2 for value, _ in parts))
        assert (norm <= float(limit) * (1 + 1e-12)).all()
        for key in set().union(*(slopes for _, slopes in parts)):
            slope = np.sqrt(sum(np.asarray(slopes.get(key, 0.0), float) ** 2
                                for _, slopes in parts))
            assert (slope <= limit.slope(key) * (1 + 1e-12)).all(), (key, limit)
            _Checking.worst = max(_Checking.worst, float(slope.max() / limit.slope(key)))
        return values


def _float_gradient(robot, q, qd, qdd, arith):
    """``(dq, dqd)`` of the rigid body by forward mode on floats, through ``arith``."""
    n = robot.dof
    turns = []
    for i, joint in enumerate(robot.joints):
        if joint.type == JointType.REVOLUTE:
            t = q[:, i] + joint.offset
            turns.append((dual(np.cos(t), {("q", i): -np.sin(t)}),
                          dual(np.sin(t), {("q", i): np.cos(t)})))
        else:
            turns.append(dual(q[:, i] + joint.offset, {("q", i): 1.0}))
    tau = link_frame_steps(robot, turns, [dual(qd[:, i], {("qd", i): 1.0}) for i in range(n)],
                           [Dual(qdd[:, i], {}) for i in range(n)], arith, GradientBounds(robot))
    return tuple(np.stack([np.stack([np.broadcast_to(tau[i].slopes.get((wrt, j), 0.0),
                                                     (len(q),)) for j in range(n)], -1)
                           for i in range(n)], 1) for wrt in ("q", "qd"))


@pytest.mark.parametrize("name", ["puma560", "ur5", "panda", "stanford", "random"])
def test_forward_mode_is_the_reference_and_every_bound_holds(name):
    robot = random_robot(np.random.default_rng(3), 4, prismatic=0.5) if name == "random" \
        else hardware_robot(load_robot(name), terms=())
    q, qd, qdd = corner_states(robot, 2000, np.random.default_rng(1))
    _Checking.worst = 0.0
    dq, dqd = _float_gradient(robot, q, qd, qdd, _Checking(FloatArith()))
    want_q, want_qd = inverse_dynamics_gradient(robot, q, qd, qdd)
    damping = np.diag([float(j.damping or 0.0) for j in robot.joints])
    assert np.abs(dq - want_q).max() <= 1e-12 * np.abs(want_q).max()
    assert np.abs(dqd + damping - want_qd).max() <= 1e-12 * np.abs(want_qd).max()
    # The bounds are tight where the rates' derivatives meet them (at the corners).
    assert _Checking.worst > 0.5


def test_slopes_follow_the_product_rule_on_norms():
    a, b = Slopes(2.0, {"x": 1.0}), Slopes(3.0, {"y": 0.5})
    product = a * b + 1.0
    assert (product.value, product.slope("x"), product.slope("y")) == (7.0, 3.0, 1.0)
    assert (a ** 2).slopes == {"x": 4.0} and (a / 2).slopes == {"x": 0.5}
    with pytest.raises(ValueError, match="only squares"):
        a ** 3


def test_a_derivative_under_a_bound_without_one_is_an_error():
    arith = DualArith(FloatArith())
    with pytest.raises(AssertionError, match="a derivative along"):
        arith.bound([Dual(1.0, {("q", 0): 2.0})], 3.0)


def test_the_plan_keeps_the_structures_zeros():
    # Nothing depends on joint 1's angle when gravity is along the base's z axis: those
    # entries are constant outputs, no hardware. And link k's values do not depend on the
    # joints beyond k, so the products are well below 2N times the inverse dynamics' (each
    # direction's dense count).
    from robohw.dynamics.inverse.engine import LinkFramePlan
    plan = GradientPlan("ur5", width=22)
    assert all(plan.outputs[f"dtau{i}_dq1"] == 0.0 for i in range(1, 7))
    assert all(not isinstance(plan.outputs[f"dtau{i}_dq2"], float) for i in range(1, 7))
    torques = LinkFramePlan("ur5", width=22, bound_fraction=None)
    products = plan.tracer.counts(plan.live)["mul"]
    assert products < 0.6 * 2 * 6 * torques.tracer.counts(torques.live)["mul"]


@pytest.mark.parametrize("name", list(WIDTHS), ids=lambda n: pathlib.Path(n).stem)
def test_the_default_width_is_the_narrowest_keeping_the_promise(name):
    robot = hardware_robot(load_robot(name), terms=())
    width = gradient_width(robot)
    assert width == WIDTHS[name]
    assert gradient_promise(GradientPlan(robot, width=width)).fraction <= GRADIENT_FRACTION
    assert gradient_promise(GradientPlan(robot, width=width - 1)).fraction > GRADIENT_FRACTION


def _model_errors(name, count, seed):
    """``(share of the scale, share of the bound)``, the largest of each over ``count`` states
    within the limits, of the model at its default width against float64."""
    robot = load_robot(name)
    q, qd, qdd = sample_states(robot, count, np.random.default_rng(seed))
    got = solve_gradient(robot, q, qd, qdd, "model")
    assert got.valid.all()
    want = inverse_dynamics_gradient(robot, q, qd, qdd)
    scales = gradient_scales(hardware_robot(robot, terms=()))
    n, shares, worst = robot.dof, [], 0.0
    for mine, theirs, scale, wrt in zip((got.dq, got.dqd), want, scales, ("q", "qd")):
        error = np.abs(mine - theirs)
        bound = np.array([[got.promise.bounds[f"dtau{i}_d{wrt}{j}"] for j in range(1, n + 1)]
                          for i in range(1, n + 1)])
        # An entry zero by structure: the reference's own rounding (complex step) alone.
        assert (error <= bound + 1e-12 * scale).all()
        shares.append(error.max() / scale)
        worst = max(worst, float(np.max(error / np.maximum(bound, 1e-300),
                                        where=bound > 0, initial=0.0)))
    return max(shares), worst


@pytest.mark.parametrize("name", list(WIDTHS), ids=lambda n: pathlib.Path(n).stem)
def test_the_model_is_within_its_bounds_and_1e4_of_the_scale(name):
    share, of_bound = _model_errors(name, 5000, 11)
    assert share <= 1e-4
    assert 0 < of_bound <= 1


@pytest.mark.slow
@pytest.mark.parametrize("name", list(WIDTHS), ids=lambda n: pathlib.Path(n).stem)
def test_the_model_over_100000_states(name):
    share, _ = _model_errors(name, 100_000, 12)
    assert share <= 1e-4


def test_the_model_with_damping_friction_and_a_prismatic_joint():
    robot = random_robot(np.random.default_rng(5), 4, prismatic=0.5)
    robot = dataclasses.replace(robot, joints=tuple(
        dataclasses.replace(j, damping=0.25 * k, friction=1.0)
        for k, j in enumerate(robot.joints)))
    assert any(j.type == JointType.PRISMATIC for j in robot.joints)
    q, qd, qdd = sample_states(robot, 500, np.random.default_rng(6))
    qd[:, 1] = 0.0                                       # where friction steps
    got = solve_gradient(robot, q, qd, qdd, "model", width=28)
    want = inverse_dynamics_gradient(robot, q, qd, qdd)
    n = robot.dof
    for mine, theirs, wrt in zip((got.dq, got.dqd), want, ("q", "qd")):
        bound = np.array([[got.promise.bounds[f"dtau{i}_d{wrt}{j}"] for j in range(1, n + 1)]
                          for i in range(1, n + 1)])
        assert (np.abs(mine - theirs) <= bound + 1e-12 * np.abs(theirs).max()).all()


def test_rows_outside_the_limits_and_the_format_are_not_valid():
    robot = load_robot("ur5")
    q, qd, qdd = sample_states(robot, 6, np.random.default_rng(7))
    qd[1, 2] = 2 * robot.joints[2].velocity_limit
    qdd[2, 0] = -3 * robot.joints[0].acceleration_limit
    q[3, 4] = 1e20
    qd[4, 1] = np.nan
    got = solve_gradient(robot, q, qd, qdd, "model")
    assert got.reason.tolist() == ["ok", "outside_limits", "outside_limits", "out_of_format",
                                   "not_finite", "ok"]
    assert not got.dq[1:5].any() and not got.dqd[1:5].any()
    with pytest.raises(ValueError, match="width is the hardware's: it needs backend 'model'"):
        solve_gradient(robot, q, qd, qdd, "float", width=22)
    with pytest.raises(ValueError, match="backend must be one of float, model, rtl, compiled, "
                                         "not 'board'"):
        solve_gradient(robot, q, qd, qdd, "board")
    with pytest.raises(ValueError, match="interval is the engine's: it needs backend 'rtl'"):
        solve_gradient(robot, q, qd, qdd, "model", interval=104)


def test_the_command_writes_the_models_entries_and_bounds(tmp_path, capsys):
    from state_files import write_state_file

    from robohw.api import load_arm
    from robohw.commands import main
    robot = load_robot("ur5")
    q, qd, qdd = sample_states(robot, 4, np.random.default_rng(8))
    qd[2, 0] = 10.0                                      # beyond the limit
    write_state_file(tmp_path / "s.csv", q, qd, qdd)
    assert main(["dynamics-gradient", "--robot", "ur5", "--states", str(tmp_path / "s.csv"),
                 "--out", str(tmp_path / "g.csv"), "--backend", "model", "--bounds",
                 "--reasons"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"4 states, 3 valid: {tmp_path / 'g.csv'}; each entry proven ")
    with open(tmp_path / "g.csv") as file:
        rows = list(csv.DictReader(file))
    got = load_arm("ur5").inverse_dynamics_gradient(q, qd, qdd, "model")
    promise = gradient_promise(gradient_plan("ur5"))
    assert got.promise == promise
    for k, row in enumerate(rows):
        assert float(row["dtau2_dq3"]) == got.dq[k, 1, 2]
        assert float(row["dtau3_dqd3"]) == got.dqd[k, 2, 2]
        bound = promise.bounds["dtau2_dq3"] if got.valid[k] else 0.0
        assert float(row["bound_dtau2_dq3"]) == bound
    assert [row["reason"] for row in rows] == ["ok", "ok", "outside_limits", "ok"]
    assert main(["dynamics-gradient", "--robot", "ur5", "--states", str(tmp_path / "s.csv"),
                 "--out", str(tmp_path / "h.csv"), "--bounds"]) == 2
    assert "--bounds applies to the hardware backends" in capsys.readouterr().err


def test_the_engines_file_is_the_models(tmp_path, capsys):
    # robohw dynamics-gradient --backend rtl writes the model's file byte for byte, rows
    # beyond the limits included; --ii is the engine's.
    from state_files import write_state_file

    from robohw.commands import main
    robot = load_robot("ur5")
    q, qd, qdd = sample_states(robot, 5, np.random.default_rng(9))
    qdd[1, 3] = 2 * robot.joints[3].acceleration_limit
    write_state_file(tmp_path / "s.csv", q, qd, qdd)
    for backend in ("model", "rtl"):
        assert main(["dynamics-gradient", "--robot", "ur5", "--states",
                     str(tmp_path / "s.csv"), "--out", str(tmp_path / f"{backend}.csv"),
                     "--backend", backend, "--reasons", "--quiet"]) == 0
    capsys.readouterr()
    assert (tmp_path / "rtl.csv").read_text() == (tmp_path / "model.csv").read_text()
    assert ",0,outside_limits" in (tmp_path / "rtl.csv").read_text()
    assert main(["dynamics-gradient", "--robot", "ur5", "--states", str(tmp_path / "s.csv"),
                 "--out", str(tmp_path / "x.csv"), "--backend", "model", "--ii", "104"]) == 2
    assert "--ii applies to the engine's backends (rtl, compiled)" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["puma560", "ur5", "panda", "stanford", "random"])
def test_the_analytical_derivatives_are_the_reference(name):
    # Carpentier and Mansard's steps as Pinocchio computes them, over float64 arrays: an
    # independent formulation of the same matrices.
    from robohw.dynamics.gradient.analytical import analytical_gradient
    robot = random_robot(np.random.default_rng(4), 4, prismatic=0.5) if name == "random" \
        else hardware_robot(load_robot(name), terms=())
    q, qd, qdd = sample_states(robot, 40, np.random.default_rng(2))
    joints = [(np.cos(q[:, i] + j.offset), np.sin(q[:, i] + j.offset))
              if j.type == JointType.REVOLUTE else q[:, i] + j.offset
              for i, j in enumerate(robot.joints)]
    dq, dqd = analytical_gradient(robot, joints, list(qd.T), list(qdd.T), FloatArith())
    want_q, want_qd = inverse_dynamics_gradient(robot, q, qd, qdd)
    damping = np.diag([float(j.damping or 0.0) for j in robot.joints])
    n = robot.dof
    for mine, theirs, extra in ((dq, want_q, 0.0), (dqd, want_qd, damping)):
        got = np.stack([np.stack([np.broadcast_to(mine[i][j], (len(q),)) for j in range(n)], -1)
                        for i in range(n)], 1) + extra
        assert np.abs(got - theirs).max() <= 1e-12 * np.abs(theirs).max()


def test_forward_mode_takes_fewer_products_on_the_six_joint_arms():
    # The plan was chosen by this count: forward mode on the link-frame graph against the
    # analytical derivatives' world-frame steps, both traced with the constants folded (the
    # Panda is the exception: docs/notes/2026-12-gradient-plan.md).
    from robohw.dynamics.gradient.analytical import analytical_products
    for name in ("puma560", "ur5"):
        plan = gradient_plan(name)
        ours = plan.tracer.counts(plan.live)["mul"]
        assert ours < 0.7 * analytical_products(plan.robot)
    panda = gradient_plan("panda")
    assert panda.tracer.counts(panda.live)["mul"] > analytical_products(panda.robot)
