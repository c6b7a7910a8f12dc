"""The inertia matrix on the engine (robohw.systolic.engine): RTL equal to the bit-exact model
in Amaranth and under Verilator, under stalls; interval and latency measured against the
compiler's figures and the independent replay (tests/schedules.py); the model the linear
array's, so its accuracy is the array's."""

import numpy as np
import pytest
from schedules import engine_critical_path, replay_engine
from test_inertia_arrays import configurations, payloads
from tiers import HEAVY

from robohw.robots import load_robot
from robohw.robots.sampling import random_robot
from robohw.sim.compiled import run_stream_compiled
from robohw.sim.harness import run_stream
from robohw.systolic import LinearPlan
from robohw.systolic.codec import encode_joints, output_codes
from robohw.systolic.engine import InertiaEngine
from robohw.systolic.model import model_outputs


def check(dut, q, run_with=run_stream, **options):
    codes, inputs = payloads(dut, q)
    run = run_with(dut, inputs, **options)
    assert [o["tag"] for o in run.outputs] == [p["tag"] for p in inputs]
    got = output_codes(dut.plan, run.outputs)
    for key, values in model_outputs(dut.plan, codes).items():
        assert got[key].tolist() == values.tolist(), key
    return run


@pytest.mark.parametrize("n, interval, width", [(2, 2, 14), (3, 3, 16), (4, 5, 18)])
def test_rtl_equals_the_model_one_configuration_every_interval(n, interval, width):
    rng = np.random.default_rng(30 + n)
    robot = random_robot(rng, n, prismatic=0.4)
    dut = InertiaEngine(robot, width=width, interval=interval, tag_width=8)
    run = check(dut, configurations(robot, rng, 8))
    # Measured: one configuration every interval, the latency the compiler's output cycle
    # and the output queue's two cycles, which the replay finds from the issues alone.
    assert np.all(np.diff(run.input_cycles) == interval)
    assert np.all(np.array(run.output_cycles) - np.array(run.input_cycles) == dut.latency)
    assert dut.latency == replay_engine(dut.plan, dut.program) + 2


def test_stalls_lose_nothing():
    rng = np.random.default_rng(41)
    robot = random_robot(rng, 3, prismatic=0.4)
    dut = InertiaEngine(robot, width=16, interval=4, tag_width=8)
    sink = [1, 0, 0, 1, 0, 0, 0]
    run = check(dut, configurations(robot, rng, 9),
                sink_ready=lambda c: sink[(c // 5) % len(sink)],
                source_valid=lambda c: c % 3 != 1)
    assert np.all(np.diff(run.input_cycles) >= 4)
    assert len({c % 4 for c in run.input_cycles}) == 1


@pytest.mark.parametrize("name", ["puma560", "stanford"])
def test_the_model_is_the_linear_arrays(name):
    # The same traced graph and formats: the engine's results are the array's bit for bit,
    # and so within the array's measured bound against float64 (docs/inertia.md).
    robot = load_robot(name)
    engine = InertiaEngine(robot, width=18, interval=10).plan
    array = LinearPlan(robot, width=18)
    codes = encode_joints(array, configurations(robot, np.random.default_rng(5), 400))
    ours, theirs = model_outputs(engine, codes), model_outputs(array, codes)
    assert ours.keys() == theirs.keys()
    assert all(ours[k].tolist() == theirs[k].tolist() for k in ours)


@pytest.mark.parametrize("interval", [4, 10, 32])
def test_the_latency_is_near_the_critical_path(interval):
    # The schedule places the critical chains first: the PUMA's latency at II 4 to 32 within
    # a tenth of the least any schedule on the machine has.
    dut = InertiaEngine("puma560", width=18, interval=interval)
    path = engine_critical_path(dut.plan, dut.program.machine)
    assert path <= dut.program.output_cycle <= 1.1 * path


def test_constructor_checks():
    with pytest.raises(ValueError, match=r"interval must be an integer in \[2, 1024\], not 1$"):
        InertiaEngine("stanford", interval=1)
    with pytest.raises(ValueError, match=r"width must be an integer in \[12, 31\], not 40"):
        InertiaEngine("stanford", width=40)
    with pytest.raises(ValueError, match=r"operations need at least \d+ multipliers at "
                                         r"interval 10"):
        InertiaEngine("stanford", multipliers=2)


@pytest.mark.parametrize("name, interval", [
    pytest.param("puma560", 10, marks=HEAVY), pytest.param("stanford", 4, marks=HEAVY)])
def test_a_real_arms_verilog_equals_the_model(name, interval, compiled_models):
    robot = load_robot(name)
    dut = InertiaEngine(robot, width=18, interval=interval, tag_width=8)
    check(dut, configurations(robot, np.random.default_rng(interval), 40),
          run_with=run_stream_compiled, sink_pattern=[1, 1, 0, 1], directory=compiled_models)
    assert dut.latency == replay_engine(dut.plan, dut.program) + 2
