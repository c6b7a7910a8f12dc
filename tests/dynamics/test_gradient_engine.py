"""The gradient of inverse dynamics on the engine (robohw.dynamics.gradient.engine): the RTL equal
to the bit-exact model (every entry and in_bounds) for random robots of 2 to 4 links by
locality, under stalls, with states beyond the limits; a state every interval, the latency the
independent replay's; the design's defaults by their rules; the UR5 under Verilator."""

import numpy as np
import pytest
from schedules import replay_engine

from robohw.dynamics.gradient.codec import gradient_codes
from robohw.dynamics.gradient.engine import GradientEngine
from robohw.dynamics.gradient.plan import GradientPlan
from robohw.dynamics.inverse.codec import encode_states
from robohw.dynamics.inverse.model import model_outputs
from robohw.robots import load_robot
from robohw.robots.sampling import random_robot, sample_states
from robohw.sim.harness import run_stream


def _states(robot, count, rng):
    """States within the limits but for two rows: a rate and an acceleration beyond theirs."""
    q, qd, qdd = sample_states(robot, count, rng)
    qd[3, 0] = 3.0 * robot.joints[0].velocity_limit
    qdd[5, -1] = -2.0 * robot.joints[-1].acceleration_limit
    return q, qd, qdd


@pytest.mark.parametrize("n, seed, width, interval", [
    (2, 1, 24, 12), (3, 4, 26, 16), (4, 3, 28, 24)])
def test_rtl_equals_the_model(n, seed, width, interval):
    robot = random_robot(np.random.default_rng(seed), n, prismatic=0.4)
    assert any(j.type == "prismatic" for j in robot.joints) or n == 2
    dut = GradientEngine(GradientPlan(robot, width=width), interval=interval, tag_width=8)
    assert len(dut.program.machine.clusters) > 1
    q, qd, qdd = _states(robot, 20, np.random.default_rng(seed))
    codes = encode_states(dut.plan, q, qd, qdd)
    expected, inside = model_outputs(dut.plan, codes)
    assert inside[0] and not inside[3] and not inside[5]
    inputs = [{**{f: int(v[b]) for f, v in codes.items()}, "tag": b} for b in range(20)]
    stalls = np.random.default_rng(seed).random(4096) < 0.2
    run = run_stream(dut, inputs, sink_ready=lambda cycle: not stalls[cycle % 4096])
    assert [o["tag"] for o in run.outputs] == list(range(20))
    got = gradient_codes(dut.plan, run.outputs)
    assert set(got) == set(expected) and len(got) == 2 * n * n
    for key, values in expected.items():
        assert got[key].tolist() == values.tolist(), key
    assert [o["in_bounds"] for o in run.outputs] == inside.astype(int).tolist()
    assert dut.latency == replay_engine(dut.plan, dut.program) + 2
    assert np.all(np.array(run.output_cycles) - np.array(run.input_cycles) >= dut.latency)
    assert min(np.diff(run.input_cycles)) == interval


def test_a_constant_gradient_builds_no_engine():
    # A Cartesian robot (every joint prismatic): its dynamics depend on neither q nor qd.
    robot = random_robot(np.random.default_rng(2), 3, prismatic=1.0)
    plan = GradientPlan(robot, width=24)
    assert all(value == 0.0 for value in plan.outputs.values())
    with pytest.raises(ValueError, match="its gradient is constant"):
        GradientEngine(plan)
    with pytest.raises(TypeError, match="plan must be a GradientPlan, not str"):
        GradientEngine("ur5")


def test_the_defaults_follow_their_rules():
    from robohw.dynamics.gradient.accuracy import gradient_plan
    from robohw.dynamics.gradient.design import GRADIENT_WIDTH
    from robohw.dynamics.gradient.engine import GRADIENT_INTERVAL, gradient_interval
    from robohw.engine.estimate import engine_resources
    from robohw.engine.interval import INTERVAL_STEP, ROUTED_LUT_BUDGET
    from robohw.engine.partition import cell_partition
    from robohw.engine.plan import compile_plan
    from robohw.registry import design
    plan = gradient_plan(load_robot("puma560"))
    assert plan.width == GRADIENT_WIDTH and gradient_interval(plan) == GRADIENT_INTERVAL
    puma = design("dynamics-gradient").build()
    assert (puma.plan.width, puma.interval) == (GRADIENT_WIDTH, GRADIENT_INTERVAL)
    for interval, within in ((GRADIENT_INTERVAL, True),
                             (GRADIENT_INTERVAL - INTERVAL_STEP, False)):
        program = compile_plan(plan, interval, partition=cell_partition(plan))
        assert (engine_resources(plan, program)["luts"] <= ROUTED_LUT_BUDGET) == within
    ur5 = design("dynamics-gradient", "ur5")
    ur5_plan = gradient_plan(load_robot("ur5"))
    assert (ur5.default_width, ur5.default_fold) == (ur5_plan.width, gradient_interval(ur5_plan))
    # The sidecar's promise: each entry's bound, their largest share of the scale.
    found = design("dynamics-gradient")
    bounds = found.accuracy(puma)
    assert len(bounds) == 72 and bounds["dtau1_dq1"] == 0.0 < bounds["dtau2_dq2"]
    assert 0 < found.error_bound(puma, None) <= 0.002


def test_the_designs_check_measures_the_rows_in_bounds():
    from robohw.registry import design
    found = design("dynamics-gradient", "ur5")
    dut = found.build()
    workload = found.workload(dut, 12, seed=2)
    outputs = found.model_outputs(dut, workload)
    equal, errors = found.check(dut, workload, outputs)
    assert equal and 0 < errors.max() <= found.error_bound(dut, workload)
    wrong = [dict(o) for o in outputs]
    wrong[3]["dtau2_dq3"] += 1
    assert not found.check(dut, workload, wrong)[0]


@pytest.mark.heavy
def test_the_ur5_at_its_defaults_under_verilator_equals_the_model():
    # Generic and ECP5 netlists (the ECP5's DSP tiles by their behavioural model), the sink
    # stalling; states within the limits and beyond them.
    from robohw.hw.devices import DEVICES
    from robohw.registry import design
    from robohw.sim.compiled import run_stream_compiled
    dut = design("dynamics-gradient", "ur5").build()
    robot = dut.plan.robot
    q, qd, qdd = _states(robot, 24, np.random.default_rng(5))
    codes = encode_states(dut.plan, q, qd, qdd)
    expected, inside = model_outputs(dut.plan, codes)
    inputs = [{**{f: int(v[b]) for f, v in codes.items()}, "tag": b} for b in range(24)]
    for platform in (None, DEVICES["ecp5-85k"]):
        run = run_stream_compiled(dut, inputs, sink_pattern=(True, True, False),
                                  platform=platform)
        got = gradient_codes(dut.plan, run.outputs)
        for key, values in expected.items():
            assert got[key].tolist() == values.tolist(), (platform, key)
        assert [o["in_bounds"] for o in run.outputs] == inside.astype(int).tolist()


def test_the_verilog_is_the_same_in_every_process():
    # The plan's nodes are made in one order whatever the strings' hashes (a set's order
    # changed the exported Verilog, and its digest, from run to run).
    import hashlib
    import os
    import subprocess
    import sys
    script = ("import hashlib, numpy as np\n"
              "from amaranth.back import verilog\n"
              "from robohw.robots.sampling import random_robot\n"
              "from robohw.dynamics.gradient.plan import GradientPlan\n"
              "from robohw.dynamics.gradient.engine import GradientEngine\n"
              "robot = random_robot(np.random.default_rng(4), 3, prismatic=0.4)\n"
              "dut = GradientEngine(GradientPlan(robot, width=24), interval=16)\n"
              "print(hashlib.sha256(verilog.convert(dut, ports=None).encode()).hexdigest())\n")
    digests = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              check=True, env={**os.environ, "PYTHONHASHSEED": seed}).stdout
               for seed in ("1", "2")}
    assert len(digests) == 1
    assert len(next(iter(digests)).strip()) == len(hashlib.sha256().hexdigest())
