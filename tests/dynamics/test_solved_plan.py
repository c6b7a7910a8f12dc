"""The inertia matrix solved for hardware (:mod:`robohw.dynamics.forward.tip_first`,
:class:`~robohw.dynamics.forward.solved_plan.SolvedInertiaPlan`): the tip-first solve against
numpy's, the traced graph against the float64 reference, every proven range held by the exact
values, and the model on every shipped arm and the example-robot-data files at 35 bits or
less, each valid row within its certified bound and the promise."""

import pathlib
from dataclasses import replace

import numpy as np
import pytest

from robohw.dataflow.evaluate import evaluate_float
from robohw.dynamics.forward.files import certified_plan, solve_forward
from robohw.dynamics.forward.reference import solved_accelerations
from robohw.dynamics.forward.solved_plan import SolvedInertiaPlan
from robohw.dynamics.forward.tip_first import tip_first_solve
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.robots import hardware_robot
from robohw.robots.algebra import FloatArith
from robohw.robots.sampling import random_robot, sample_states

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures"


@pytest.mark.parametrize("n", [1, 2, 5, 7])
def test_the_tip_first_solve_is_numpys(n):
    rng = np.random.default_rng(n)
    a = rng.normal(size=(n, n))
    h = a @ a.T + 0.1 * np.eye(n)
    rhs = rng.normal(size=n)
    x = tip_first_solve({(i, j): h[i, j] for i in range(n) for j in range(i, n)}, list(rhs),
                        FloatArith(), list(np.diag(h)), [1e-3] * n, [1e9] * n)
    assert np.allclose(x, np.linalg.solve(h, rhs), rtol=1e-10, atol=1e-12)


def _inputs(robot, q, qd, tau):
    values = {}
    for k, joint in enumerate(robot.joints, start=1):
        angle = q[:, k - 1] + joint.offset
        values.update({f"cos{k}": np.cos(angle), f"sin{k}": np.sin(angle), f"d{k}": angle,
                       f"qd{k}": qd[:, k - 1], f"tau{k}": tau[:, k - 1],
                       f"fc{k}": (joint.friction or 0.0) * np.sign(qd[:, k - 1])})
    return values


def _robots():
    rng = np.random.default_rng(4)
    arm = random_robot(rng, 4, prismatic=0.5)
    arm = replace(arm, joints=tuple(replace(j, torque_limit=500.0) for j in arm.joints))
    return [hardware_robot(name, terms=()) for name in ("ur5", "panda", "puma560")] + [arm]


@pytest.mark.parametrize("robot", _robots(), ids=lambda r: r.name)
def test_the_traced_graph_is_the_reference_and_every_range_holds(robot):
    plan = SolvedInertiaPlan(robot, width=32)
    q, qd, qdd = sample_states(robot, 2000, np.random.default_rng(1))
    tau = inverse_dynamics(robot, q, qd, qdd)
    inside = (np.abs(tau) <= [j.torque_limit for j in robot.joints]).all(-1)
    q, qd, qdd, tau = q[inside], qd[inside], qdd[inside], tau[inside]
    assert len(q) > 1000
    values = evaluate_float(plan.tracer, plan.live, _inputs(robot, q, qd, tau))
    limits = np.array([j.acceleration_limit for j in robot.joints])
    for k, node in plan.outputs.items():
        got = np.broadcast_to(values[node.index], (len(q),))
        assert np.all(np.abs(got - qdd[:, k - 1]) <= 1e-9 * limits[k - 1])
    # The exact values (float64 here) of every node within its proven range: the pivots, the
    # Schur complements, L's entries, the solves' assumed ranges.
    for k in plan.live:
        node = plan.tracer.nodes[k]
        value = np.asarray(values[k])
        slack = 1e-9 * max(node.magnitude, 1.0)
        assert value.min() >= node.low - slack and value.max() <= node.high + slack, node


ARMS = ("puma560", "ur5", "panda", "iiwa14", str(FIXTURES / "ur10_robot.urdf"),
        str(FIXTURES / "kinova_j2s6s200.urdf"))


def _edge_states(robot, count, rng):
    """``(q, qd, tau)``: ``count`` states within the limits, their torques inverse dynamics' of
    accelerations up to the limits, then edge rows: every joint at a position limit, at rest,
    at its velocity limits, accelerations at their limits exactly, beyond them (torques
    tripled), and joint 2 at 0 (the Panda's and the iiwa's joints 1 and 3 aligned: H nearly
    singular in their difference)."""
    q, qd, qdd = sample_states(robot, count, rng)
    edge = min(count, 500)
    # A continuous joint (no limits) at a half turn.
    low = np.array([j.limits[0] if j.limits else -np.pi for j in robot.joints])
    high = np.array([j.limits[1] if j.limits else np.pi for j in robot.joints])
    velocity = np.array([j.velocity_limit for j in robot.joints])
    acceleration = np.array([j.acceleration_limit for j in robot.joints])
    rows = np.arange(edge)
    q[rows[:edge // 6]] = np.where(rng.random((edge // 6, robot.dof)) < 0.5, low, high)
    qd[rows[edge // 6:edge // 3]] = 0.0
    qd[rows[edge // 3:edge // 2]] = velocity * np.sign(rng.normal(size=(edge // 2 - edge // 3,
                                                                        robot.dof)))
    qdd[rows[edge // 2:2 * edge // 3]] = acceleration * np.sign(
        rng.normal(size=(2 * edge // 3 - edge // 2, robot.dof)))
    q[rows[2 * edge // 3:], 1] = 0.0
    tau = inverse_dynamics(robot, q, qd, qdd)
    tau[rows[5 * edge // 6:]] *= 3.0                        # beyond the limits
    return q, qd, tau


def _every_arm_served(name, count):
    robot = hardware_robot(name, terms=())
    plan = certified_plan(robot)
    assert plan.width <= 35
    q, qd, tau = _edge_states(robot, count, np.random.default_rng(9))
    got = solve_forward(robot, q, qd, tau, "model", plan=plan)
    limits = np.array([j.acceleration_limit for j in robot.joints])
    reference = solved_accelerations(robot, q, qd, tau)
    valid = got.valid
    # Never a wrong answer marked valid: each within its certified bound, within the promise.
    assert np.all(np.abs(got.qdd - reference)[valid] <= got.bounds[valid])
    assert np.all(got.bounds[valid] <= 1e-3 * limits)
    # States within the limits (their torques and accelerations too) are served.
    inside = (np.abs(tau) <= [j.torque_limit for j in robot.joints]).all(-1) & \
        (np.abs(reference) <= limits).all(-1)
    assert valid[inside].mean() >= 0.99
    assert not valid[~inside & (np.abs(reference) > 1.01 * limits).any(-1)].any()


@pytest.mark.parametrize("name", ARMS)
@pytest.mark.filterwarnings("ignore:.*no acceleration_limit")
def test_every_arm_is_served_at_35_bits_or_less_each_row_certified(name):
    _every_arm_served(name, 5_000)


@pytest.mark.slow
@pytest.mark.parametrize("name", ARMS)
@pytest.mark.filterwarnings("ignore:.*no acceleration_limit")
def test_every_arm_is_served_over_100_000_states(name):
    _every_arm_served(name, 100_000)
