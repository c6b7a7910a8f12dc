"""Forward dynamics on the engine (robohw.dynamics.forward.engine): the RTL equal to the
bit-exact model (checked_model_codes: accelerations, in_bounds and the checks' flag) for random
robots of 2 to 4 links, under stalls, with states beyond the limits and accelerations beyond
theirs; a state every interval, the latency the independent replay's."""

from dataclasses import replace

import numpy as np
import pytest
from schedules import replay_engine

from robohw.dataflow.plan import checked_model_codes, in_bounds
from robohw.dynamics.forward.codec import acceleration_codes, encode_forward
from robohw.dynamics.forward.engine import ForwardDynamicsEngine
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.robots import load_robot
from robohw.robots.sampling import random_robot, sample_states
from robohw.sim.harness import run_stream


def _robot(n, seed, light=1.0):
    """A random robot, its last link's mass and inertia scaled by ``light`` (a light last link
    makes H near singular: its condition number up to about 1e5 at 1e-4)."""
    robot = random_robot(np.random.default_rng(seed), n, prismatic=0.4)
    joints = [replace(j, torque_limit=50.0) for j in robot.joints]
    joints[-1] = replace(joints[-1], mass=joints[-1].mass * light,
                         inertia=tuple(v * light for v in joints[-1].inertia))
    return replace(robot, joints=tuple(joints))


def _states(robot, count, rng):
    """States within the limits, their torques those of accelerations within theirs but for
    a few rows: torques uniform within the torque limits (accelerations beyond), and states
    beyond the velocity limits."""
    q, qd, qdd = sample_states(robot, count, rng)
    tau = inverse_dynamics(robot, q, qd, qdd)
    tau[:6] = rng.uniform(-50.0, 50.0, (6, robot.dof))
    qd[6, 0] = 3.0 * robot.joints[0].velocity_limit
    return q, qd, tau


@pytest.mark.parametrize("n, seed, width, interval, solved, clustered, light", [
    (2, 1, 24, 6, False, False, 1.0), (4, 3, 28, 12, False, False, 1.0),
    (3, 4, 32, 9, False, False, 1.0), (2, 5, 24, 7, True, False, 1.0),
    (4, 6, 28, 16, True, False, 1.0), (3, 7, 32, 10, True, False, 1.0),
    (4, 9, 28, 12, True, True, 1.0), (3, 10, 30, 8, True, True, 1.0),
    (3, 23, 30, 10, True, True, 1e-4)])
def test_rtl_equals_the_model(n, seed, width, interval, solved, clustered, light):
    # The articulated-body algorithm and the inertia matrix solved (whose registers wrap where
    # its ranges do not hold, as the model's do), flat and by locality (values between
    # clusters on hops, which the replay checks), and H near singular.
    robot = _robot(n, seed, light)
    dut = ForwardDynamicsEngine(robot, width=width, interval=interval, tag_width=8,
                                solved=solved, clustered=clustered)
    assert len(dut.program.machine.clusters) > 1 if clustered else not dut.program.hops
    q, qd, tau = _states(robot, 24, np.random.default_rng(seed))
    codes = encode_forward(dut.plan, q, qd, tau)
    expected, passed = checked_model_codes(dut.plan, codes)
    inside = in_bounds(dut.plan, codes)
    assert inside[0] and not inside[6] and not passed[:6].all() and passed[7:].any()
    inputs = [{**{f: int(v[b]) for f, v in codes.items()}, "tag": b} for b in range(24)]
    stalls = np.random.default_rng(seed).random(4096) < 0.2
    run = run_stream(dut, inputs, sink_ready=lambda cycle: not stalls[cycle % 4096])
    assert [o["tag"] for o in run.outputs] == list(range(24))
    got = acceleration_codes(dut.plan, run.outputs)
    for k, values in expected.items():
        assert got[k].tolist() == values.tolist(), k
    assert [o["in_bounds"] for o in run.outputs] == inside.astype(int).tolist()
    assert [o["checked"] for o in run.outputs] == passed.astype(int).tolist()
    # The latency the replay's output cycle and the queue's; unstalled stretches take a state
    # every interval.
    assert dut.latency == replay_engine(dut.plan, dut.program) + 2
    assert np.all(np.array(run.output_cycles) - np.array(run.input_cycles) >= dut.latency)
    assert min(np.diff(run.input_cycles)) == interval


def test_the_default_interval_follows_the_estimate_rule():
    from robohw.dynamics.forward.design import FORWARD_WIDTH
    from robohw.dynamics.forward.engine import (
        FORWARD_INTERVAL,
        FORWARD_LUT_BUDGET,
        INTERVAL_STEP,
        forward_interval,
    )
    from robohw.dynamics.forward.files import certified_plan
    from robohw.engine.estimate import engine_resources
    from robohw.engine.partition import cell_partition
    from robohw.engine.plan import compile_plan
    from robohw.registry import design
    # The PUMA 560's design: the certified model's plan and width.
    plan = certified_plan(load_robot("puma560"))
    assert (plan.width, plan.proven) == (FORWARD_WIDTH, False)
    assert forward_interval(plan) == FORWARD_INTERVAL
    puma = design("forward-dynamics").build()
    assert (puma.plan.width, puma.interval, puma.plan.formulation) == \
        (FORWARD_WIDTH, FORWARD_INTERVAL, plan.formulation)
    assert puma.program.machine.clusters            # by locality
    # Its rows are certified one by one: no a-priori bound in the sidecar; sim holds the rows
    # it counts valid to the promise.
    from robohw.dynamics.forward.files import FORWARD_PROMISE
    assert design("forward-dynamics").accuracy(puma) is None
    assert design("forward-dynamics").error_bound(puma, None) == FORWARD_PROMISE
    # By locality, within the budget at its interval, beyond it a step before.
    budget, partition = FORWARD_LUT_BUDGET, cell_partition(plan)
    for interval, within in ((FORWARD_INTERVAL, True), (FORWARD_INTERVAL - INTERVAL_STEP, False)):
        program = compile_plan(plan, interval, partition=partition)
        assert (engine_resources(plan, program)["luts"] <= budget) == within
    # The UR5: the certified model's width; at another width, the plan certified_plan takes.
    ur5 = design("forward-dynamics", "ur5")
    ur5_plan = certified_plan(load_robot("ur5"))
    assert (ur5.default_width, ur5.default_fold) == \
        (ur5_plan.width, forward_interval(ur5_plan))
    assert ur5.build(56, 64).plan.formulation == certified_plan(load_robot("ur5"), 56).formulation


@pytest.mark.parametrize("arm", [pytest.param("ur5", marks=pytest.mark.heavy),
                                 pytest.param("iiwa14", marks=pytest.mark.slow),
                                 pytest.param("panda", marks=pytest.mark.slow)])
def test_the_design_at_its_defaults_under_verilator_equals_the_model(arm):
    # The forward-dynamics design at the arm's defaults (the certified model's plan and width,
    # the budget's interval); generic and ECP5 netlists (the ECP5's DSP tiles by their
    # behavioural model), the sink stalling; states within the limits and beyond them.
    from robohw.hw.devices import DEVICES
    from robohw.registry import design
    from robohw.sim.compiled import run_stream_compiled
    dut = design("forward-dynamics", arm).build()
    robot = dut.plan.robot
    q, qd, qdd = sample_states(robot, 30, np.random.default_rng(5))
    tau = inverse_dynamics(robot, q, qd, 0.9 * qdd)
    tau[:3] *= 3.0
    qd[3, 2] = 2.0 * robot.joints[2].velocity_limit
    codes = encode_forward(dut.plan, q, qd, tau)
    expected, passed = checked_model_codes(dut.plan, codes)
    inside = in_bounds(dut.plan, codes)
    assert passed[4:].sum() >= 20 and not passed[:3].any() and not inside[3]
    inputs = [{**{f: int(v[b]) for f, v in codes.items()}, "tag": b} for b in range(30)]
    for platform in (None, DEVICES["ecp5-85k"]):
        run = run_stream_compiled(dut, inputs, sink_pattern=(True, True, False),
                                  platform=platform)
        got = acceleration_codes(dut.plan, run.outputs)
        for k, values in expected.items():
            assert got[k].tolist() == values.tolist(), (platform, k)
        assert [o["checked"] for o in run.outputs] == passed.astype(int).tolist()
        assert [o["in_bounds"] for o in run.outputs] == inside.astype(int).tolist()


def test_sim_counts_a_row_valid_once_certified():
    # The design's check: the model's own rows are within the promise; a row the machine
    # flags valid whose acceleration is wrong is not certified, so not measured as valid.
    from robohw.dynamics.forward.files import FORWARD_PROMISE
    from robohw.registry import design
    found = design("forward-dynamics", "ur5")
    dut = found.build()
    workload = found.workload(dut, 16, seed=1)
    outputs = found.model_outputs(dut, workload)
    equal, errors = found.check(dut, workload, outputs)
    assert equal and 0 < errors.max() <= FORWARD_PROMISE
    k = int(np.argmax(errors))
    wrong = [dict(o) for o in outputs]
    wrong[k]["qdd1"] += 1 << (dut.plan.width - 8)
    equal, got = found.check(dut, workload, wrong)
    assert not equal and got[k] == 0.0
    assert np.delete(got, k).tolist() == np.delete(errors, k).tolist()
