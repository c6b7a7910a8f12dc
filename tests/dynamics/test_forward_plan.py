"""Forward dynamics traced for hardware (robohw.dynamics.forward.plan): the traced
articulated-body algorithm equals the float64 reference, every proven range holds on sampled
states (the conditional ones where the accelerations are within their limits), the divisors'
lower bounds hold, and the checked bit-exact model marks no row valid whose accelerations pass
their limits, each valid row within its proven bound."""

import math
from dataclasses import replace

import numpy as np
import pytest

from robohw.dataflow.evaluate import evaluate_float
from robohw.dataflow.graph import RangeError, Tracer
from robohw.dataflow.operations import Op
from robohw.dataflow.plan import checked_model_codes, in_bounds
from robohw.dynamics.forward.articulated_frames import articulated_body_steps
from robohw.dynamics.forward.bounds import ForwardBounds
from robohw.dynamics.forward.divisors import own_least
from robohw.dynamics.forward.plan import ArticulatedBodyPlan
from robohw.dynamics.forward.reference import articulated_body_accelerations, articulated_divisors
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.robots import Robot
from robohw.robots.loading import hardware_robot
from robohw.robots.sampling import random_robot, sample_joints, sample_states

ARMS = ["ur5", "panda", "iiwa14", "puma560", "stanford"]
# Relative slack for float64 rounding in the sampled values against the proven ranges.
ROUNDING = 1e-9


def _with_torque_limits(robot, limit=50.0):
    return replace(robot, joints=tuple(replace(j, torque_limit=limit) for j in robot.joints))


def _states(robot, count, rng, effort=False):
    """``(q, qd, tau)``: tau the torques of accelerations within the limits, or (``effort``)
    uniform within the torque limits."""
    q, qd, qdd = sample_states(robot, count, rng)
    if effort:
        limit = np.array([j.torque_limit for j in robot.joints])
        return q, qd, rng.uniform(-limit, limit, q.shape)
    return q, qd, inverse_dynamics(robot, q, qd, qdd)


def _inputs(robot, q, qd, tau):
    """The traced graph's float64 inputs by name."""
    values = {}
    for k, joint in enumerate(robot.joints, start=1):
        angle = q[:, k - 1] + joint.offset
        values.update({f"cos{k}": np.cos(angle), f"sin{k}": np.sin(angle), f"d{k}": angle,
                       f"qd{k}": qd[:, k - 1], f"tau{k}": tau[:, k - 1]})
    return values


def _codes(plan, q, qd, tau):
    fracs, codes = plan.input_fracs, {}
    for k, joint in enumerate(plan.robot.joints, start=1):
        field = f"q{k}"
        codes[field] = plan.angle_codes(field, q[:, k - 1]) if joint.type == "revolute" else \
            np.rint(q[:, k - 1] * 2.0 ** fracs[field]).astype(np.int64)
        for name, values in (("qd", qd), ("tau", tau)):
            codes[f"{name}{k}"] = np.rint(values[:, k - 1] * 2.0 ** fracs[f"{name}{k}"]) \
                .astype(np.int64)
    return codes


def _conditional(tracer, live):
    """The live nodes whose range rests on an assumed one (the assumed ones included)."""
    out = set()
    for k in live:
        if k in tracer.assumed or any(a.index in out for a in tracer.nodes[k].args):
            out.add(k)
    return out


def _traced(robot):
    """The articulated-body algorithm traced over ``robot`` with its proven ranges (no formats:
    every shipped arm's ranges, whatever width its error bounds need): ``(tracer, outputs)``."""
    bounds = ForwardBounds(robot)
    tracer = Tracer()
    joints, qd, tau = [], [], []
    for k, joint in enumerate(robot.joints, start=1):
        if joint.type == "revolute":
            joints.append((tracer.input(f"cos{k}", -1.0, 1.0), tracer.input(f"sin{k}", -1.0, 1.0)))
        else:
            joints.append(tracer.input(f"d{k}", *(v + joint.offset for v in joint.limits)))
        qd.append(tracer.input(f"qd{k}", -joint.velocity_limit, joint.velocity_limit))
        tau.append(tracer.input(f"tau{k}", -bounds.tau[k - 1], bounds.tau[k - 1]))
    return tracer, articulated_body_steps(robot, joints, qd, tau, tracer, bounds)


@pytest.mark.parametrize("name", ARMS)
def test_the_traced_graph_is_the_reference_and_its_ranges_hold(name):
    robot = hardware_robot(name, terms=())
    tracer, outputs = _traced(robot)
    live = tracer.live(outputs)
    counts = tracer.counts(live)
    # A reciprocal a joint and a reciprocal square root a joint past the first; the last
    # divisor is a constant.
    assert (counts["div"], counts["rsqrt"]) == (robot.dof - 1, robot.dof - 2)
    conditional = _conditional(tracer, live)
    limits = np.array([j.acceleration_limit for j in robot.joints])
    rng = np.random.default_rng(4)
    for effort in (False, True):
        q, qd, tau = _states(robot, 3000, rng, effort)
        applied = tau - np.array([j.damping for j in robot.joints]) * qd - \
            np.array([j.friction for j in robot.joints]) * np.sign(qd)
        values = evaluate_float(tracer, live, _inputs(robot, q, qd, applied))
        qdd = np.stack([np.broadcast_to(values[node.index], (len(q),)) for node in outputs], -1)
        reference = articulated_body_accelerations(robot, q, qd, tau)
        assert np.abs(qdd - reference).max() <= 1e-9 * np.abs(reference).max()
        # Every node within its proven range: all of them where the accelerations are within
        # the limits, the unconditional ones for any torques within the limits.
        # (Rows whose torques pass the limits, the Panda's at the corners, are out of bounds.)
        torques = (np.abs(tau) <= [j.torque_limit for j in robot.joints]).all(-1)
        inside = (np.abs(reference) <= limits).all(-1) & torques
        assert inside.mean() > 0.9 or effort
        for k in live:
            node = tracer.nodes[k]
            value = np.broadcast_to(values[k], (len(q),))
            value = value[inside] if k in conditional else value[torques]
            slack = ROUNDING * max(node.magnitude, 1.0)
            assert np.all(value >= node.low - slack) and np.all(value <= node.high + slack), \
                (node, node.low, node.high, value.min(), value.max())


@pytest.mark.parametrize("robot", [*(hardware_robot(name, terms=()) for name in ARMS),
                                   *(_with_torque_limits(random_robot(
                                       np.random.default_rng(seed), n))
                                     for seed, n in ((1, 3), (2, 6), (3, 7)))],
                         ids=lambda r: r.name)
def test_the_divisors_lower_bounds_hold_and_what_they_cost(robot):
    bounds = ForwardBounds(robot)
    sampled = articulated_divisors(robot, sample_joints(robot, 4000,
                                                        np.random.default_rng(2))).min(0)
    assert np.all(np.array(bounds.d_own) <= np.array(bounds.d_min))
    assert np.all(np.array(bounds.d_min) <= sampled)
    assert np.all(sampled <= np.array(bounds.d_max))
    # The next link's share: the bound within 2.5 bits of the sampled least on every joint of
    # the shipped arms (the link alone: up to 5.5).
    if not robot.name.startswith("random"):
        assert np.log2(sampled / np.array(bounds.d_min)).max() <= 2.5


def test_the_checked_model_marks_valid_only_rows_within_the_limits_and_the_bound():
    plan = ArticulatedBodyPlan("ur5", width=40)
    robot = plan.robot
    limits = np.array([j.acceleration_limit for j in robot.joints])
    rng = np.random.default_rng(9)
    for effort in (False, True):
        q, qd, tau = _states(robot, 4000, rng, effort)
        codes = _codes(plan, q, qd, tau)
        out, passed = checked_model_codes(plan, codes)
        assert in_bounds(plan, codes).all()
        reference = articulated_body_accelerations(robot, q, qd, tau)
        got = np.stack([np.asarray(out[k], dtype=np.float64) * 2.0 ** -plan.output_fracs[k]
                        for k in range(1, robot.dof + 1)], -1)
        bounds = np.array([plan.output_bounds[k] for k in range(1, robot.dof + 1)])
        # A row that passes its checks has its accelerations within the limits, and each
        # within its proven bound. The checks leave room for the error bound below each range:
        # rows within the limits fail them near the limits (half of them at 40 bits).
        assert np.all(np.abs(reference[passed]) <= limits)
        assert np.all(np.abs(got - reference)[passed] <= bounds)
        if not effort:
            assert passed.mean() > 0.3
        else:                 # torques within the effort limits mostly pass the limits
            assert passed.mean() < 0.1


def test_each_check_is_a_code_below_its_range():
    plan = ArticulatedBodyPlan("puma560", width=32)
    checks = plan.checks
    assert set(checks) == plan.tracer.assumed & set(plan.live)
    outputs = {node.index for node in plan.outputs.values()}
    assert outputs <= set(checks)                  # every acceleration is checked
    for k, code in checks.items():
        node = plan.tracer.nodes[k]
        assert 0 < code * 2.0 ** -plan.formats[k].frac < node.magnitude


def test_a_width_too_narrow_is_refused():
    with pytest.raises(RangeError, match=r"ur5.urdf: joint \d's acceleration \(node \d+\): its "
                                         r"range 10 is within its error bound .* at 32 bits: "
                                         r"no check of it is proven"):
        ArticulatedBodyPlan("ur5", width=32).checks
    # The 7-joint arms' divisors: the error analysis cannot keep them from 0 at any width
    # (docs/notes/2026-12-05-forward-dynamics-bounds.md).
    with pytest.raises(RangeError, match=r"panda.urdf .*: recip \(node \d+\) at 56 bits: "
                                         r"1 / joint 1's articulated inertia: joint 1's "
                                         r"articulated inertia's error bound .* reaches its "
                                         r"smallest") as caught:
        ArticulatedBodyPlan("panda", width=56)
    # The search's own error, carrying the divisor for a refusal to name.
    assert caught.value.value == "joint 1's articulated inertia"
    assert 0 < caught.value.least < caught.value.bound


def test_limits_forward_dynamics_needs_are_named():
    robot = replace(hardware_robot("puma560", terms=()), source="arm.toml")
    joints = list(robot.joints)
    joints[2] = replace(joints[2], torque_limit=None)
    with pytest.raises(ValueError, match=r"arm.toml: joint 3: forward dynamics needs every "
                                         r"joint's velocity, acceleration and torque limits"):
        ArticulatedBodyPlan(replace(robot, joints=tuple(joints)), width=32)


def test_a_divisor_without_a_lower_bound_is_refused():
    robot = _with_torque_limits(random_robot(np.random.default_rng(5), 2, prismatic=0))
    joints = list(robot.joints)
    # The last link massless: nothing about its joint's axis, no armature.
    joints[1] = replace(joints[1], mass=0.0, inertia=(0.0,) * 6, com=(0.0, 0.0, 0.0))
    robot = Robot(name="massless tip", joints=tuple(joints))
    assert own_least(joints[1]) == 0
    with pytest.raises(ValueError, match=r"massless tip: joint 2: its link has no inertia about "
                                         r"the joint's motion and the joint no armature"):
        ForwardBounds(robot)


def test_the_reciprocals_are_the_joints_divisors():
    plan = ArticulatedBodyPlan("puma560", width=32)
    recips = [plan.tracer.nodes[k] for k in plan.live if plan.tracer.nodes[k].op == Op.RECIP]
    bounds = plan.bounds
    lows = sorted(node.args[0].low for node in recips)
    assert lows == sorted(bounds.d_min[:-1])
    assert all(math.isfinite(node.high) for node in recips)


def test_a_joint_no_state_keeps_within_its_acceleration_limit_is_refused():
    # Its first joint's proven range of accelerations over the velocity and torque limits,
    # [-12.7, -6.9], lies wholly beyond its limit of 5.
    robot = _with_torque_limits(random_robot(np.random.default_rng(2), 3, prismatic=0.4))
    with pytest.raises(RangeError, match=r"^joint 1's acceleration, .* lies beyond the assumed "
                                         r"5 for every row: no state within the velocity"):
        ArticulatedBodyPlan(robot, width=32)
