"""The Newton-Euler inverse dynamics on the engine (robohw.dynamics.inverse.engine): RTL equal to
the bit-exact model in Amaranth and under Verilator (generic and ECP5 netlists), under stalls and
with states out of bounds; interval and latency measured against the compiler's figures and
the independent replay (tests/schedules.py); the command's files from every backend."""

import re

import numpy as np
import pytest
from amaranth.back import verilog
from schedules import replay_engine
from state_files import write_state_file
from tiers import HEAVY

from robohw.dynamics.inverse.codec import decode_torques, encode_states, torque_codes
from robohw.dynamics.inverse.engine import LinkFramePlan, NewtonEulerEngine
from robohw.dynamics.inverse.model import model_outputs
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.engine.plan import compile_plan
from robohw.hw.devices import DEVICES
from robohw.robots import load_robot
from robohw.robots.sampling import random_robot, sample_states
from robohw.sim.compiled import run_stream_compiled
from robohw.sim.harness import run_stream

ECP5 = DEVICES["ecp5-85k"]


def stimulus(dut, states):
    codes = encode_states(dut.plan, *states)
    inputs = [{**{n: int(v[b]) for n, v in codes.items()}, "tag": b % 256}
              for b in range(len(states[0]))]
    return codes, inputs


def check(dut, run, codes, inputs):
    expected, inside = model_outputs(dut.plan, codes)
    assert [o["tag"] for o in run.outputs] == [p["tag"] for p in inputs]
    assert [o["in_bounds"] for o in run.outputs] == inside.astype(int).tolist()
    got = torque_codes(dut.plan, run.outputs)
    for k, values in expected.items():
        assert got[k].tolist() == values.tolist(), k
    return inside


def small_robot(n, seed):
    return random_robot(np.random.default_rng(seed), n, prismatic=0.4)


@pytest.mark.parametrize("n, interval, width", [(2, 4, 16), (3, 3, 20), (2, 2, 18)])
def test_rtl_equals_the_model_one_state_every_interval(n, interval, width):
    robot = small_robot(n, 70 + n)
    dut = NewtonEulerEngine(robot, width=width, interval=interval, tag_width=8,
                            bound_fraction=None)
    states = sample_states(robot, 8, np.random.default_rng(n))
    states[1][2, 0] = 3.0                # out of bounds (2 per second): flagged, computed as
    states[2][5, -1] = -7.0              # modelled; and beyond 5 per second squared
    codes, inputs = stimulus(dut, states)
    run = run_stream(dut, inputs)
    inside = check(dut, run, codes, inputs)
    assert not inside[2] and not inside[5] and inside[0]
    # Measured: one state every interval, the latency the compiler's output cycle and the
    # output queue's two cycles, which the replay finds from the issues alone.
    assert np.all(np.diff(run.input_cycles) == interval)
    assert np.all(np.array(run.output_cycles) - np.array(run.input_cycles) == dut.latency)
    assert dut.latency == replay_engine(dut.plan, dut.program) + 2


@pytest.mark.parametrize("n, interval", [(4, 3), (7, 5)])
def test_clustered_rtl_equals_the_model(n, interval):
    # The engine by locality: a cluster a link, values between them on hops.
    robot = small_robot(n, 40 + n)
    dut = NewtonEulerEngine(robot, width=18, interval=interval, clustered=True, tag_width=8,
                            bound_fraction=None)
    assert len(dut.program.machine.clusters) >= 2 and dut.program.hops
    states = sample_states(robot, 6, np.random.default_rng(n))
    states[1][3, 0] = 3.0                # out of bounds
    codes, inputs = stimulus(dut, states)
    run = run_stream(dut, inputs, sink_ready=lambda c: (c // 11) % 3 != 1)
    assert not check(dut, run, codes, inputs)[3]
    assert dut.latency == replay_engine(dut.plan, dut.program) + 2


def test_seven_joint_arms_run_by_locality_six_joint_ones_flat():
    from robohw.dynamics.inverse.engine_defaults import CLUSTERED_JOINTS, engine_clustered
    assert CLUSTERED_JOINTS == 7
    assert not engine_clustered(load_robot("puma560")) and not engine_clustered(
        load_robot("ur5"))
    assert engine_clustered(load_robot("panda")) and engine_clustered(load_robot("iiwa14"))
    assert engine_clustered(small_robot(7, 3)) and not engine_clustered(small_robot(6, 3))


def test_stalls_lose_nothing():
    robot = small_robot(3, 81)
    dut = NewtonEulerEngine(robot, width=18, interval=5, tag_width=8, bound_fraction=None)
    states = sample_states(robot, 9, np.random.default_rng(81))
    states[1][4, 1] = -2.5               # beyond 2 per second
    codes, inputs = stimulus(dut, states)
    sink = [1, 0, 0, 1, 0, 0, 0]
    run = run_stream(dut, inputs, sink_ready=lambda c: sink[(c // 7) % len(sink)],
                     source_valid=lambda c: c % 3 != 1)
    check(dut, run, codes, inputs)
    # A state is taken at most once an interval, at its first cycle.
    assert np.all(np.diff(run.input_cycles) >= 5)
    assert len({c % 5 for c in run.input_cycles}) == 1


def test_no_state_is_taken_in_the_first_interval():
    robot = small_robot(2, 90)
    dut = NewtonEulerEngine(robot, width=16, interval=6, bound_fraction=None)
    codes, inputs = stimulus(dut, sample_states(robot, 2, np.random.default_rng(9)))
    run = run_stream(dut, inputs)
    assert run.input_cycles[0] >= 6


def test_the_engine_is_accurate_where_its_bound_says():
    robot = load_robot("stanford")
    plan = LinkFramePlan(robot, width=24)
    states = sample_states(robot, 500, np.random.default_rng(13))
    out, inside = model_outputs(plan, encode_states(plan, *states))
    tau = decode_torques(plan, out)
    reference = inverse_dynamics(robot, *states)
    assert inside.all()
    assert np.all(np.abs(tau - reference) <= np.array(plan.accuracy.bounds))


def test_constructor_checks():
    with pytest.raises(ValueError, match=r"interval must be an integer in \[2, 1024\], not 1$"):
        NewtonEulerEngine("stanford", interval=1)
    with pytest.raises(TypeError, match=r"tag_width must be"):
        NewtonEulerEngine("stanford", tag_width="8")
    with pytest.raises(ValueError, match=r"operations need at least \d+ adders at interval 10"):
        NewtonEulerEngine("stanford", interval=10, adders=3)
    with pytest.raises(TypeError, match=r"clustered must be a bool, not 1"):
        NewtonEulerEngine("stanford", clustered=1)


SLOW = pytest.mark.slow


@pytest.mark.parametrize("robot, count", [
    pytest.param("puma560", 12, marks=HEAVY), pytest.param("ur5", 12, marks=HEAVY),
    pytest.param("panda", 12, marks=HEAVY), pytest.param("stanford", 12, marks=HEAVY),
    pytest.param("puma560", 200, marks=SLOW), pytest.param("ur5", 200, marks=SLOW),
    pytest.param("panda", 200, marks=SLOW)])
def test_a_real_arms_verilog_at_its_defaults_equals_the_model(robot, count, compiled_models):
    # The registry's design for the arm at its default width and interval (the PUMA 560's
    # 18 bits and II 5; the UR5's 20 and 5; the Panda's 21 and 15), under Verilator.
    from robohw.registry import design
    found = design("dynamics-engine", None if robot == "puma560" else robot)
    dut = found.build()
    assert (dut.plan.width, dut.interval) == (found.default_width, found.default_fold)
    states = sample_states(dut.plan.robot, count, np.random.default_rng(count))
    states[1][7, 0] = 3 * dut.plan.robot.joints[0].velocity_limit     # beyond its limit
    codes, inputs = stimulus(dut, states)
    run = run_stream_compiled(dut, inputs, sink_pattern=[1, 1, 0, 1],
                              directory=compiled_models)
    assert not check(dut, run, codes, inputs)[7]
    assert dut.latency == replay_engine(dut.plan, dut.program) + 2
    # Unstalled stretches take a state every interval.
    assert min(np.diff(run.input_cycles)) == dut.interval


@pytest.mark.parametrize("width, clustered, narrowed", [
    (20, False, False), pytest.param(20, True, False, marks=HEAVY),
    pytest.param(22, True, False, marks=HEAVY), pytest.param(21, True, True, marks=HEAVY)])
def test_on_an_ecp5_the_products_are_tiles_and_the_netlist_equals_the_model(
        width, clustered, narrowed, compiled_models):
    # At 20 and 22 bits each multiplier is one MULT18X18D and the fabric's partial products
    # (robohw.hw.multiplier.split_product: four addends, two levels in the first stage flat and
    # one a stage by locality, and eight, one level then two), a multiplier of narrowed
    # operands one tile alone; under Verilator, with the tile's model, the results and their
    # cycles are the generic netlist's and the model's, flat and by locality.
    robot = small_robot(3, 95)

    def engine():
        return NewtonEulerEngine(robot, width=width, interval=4, tag_width=8,
                                 clustered=clustered, narrowed=narrowed, bound_fraction=None)
    dut = engine()
    machine = dut.program.machine
    assert bool(machine.narrow_multipliers) == narrowed
    text = verilog.convert(engine(), name="top", platform=ECP5)
    assert len(re.findall(r"MULT18X18D #\(", text)) == \
        machine.multipliers + machine.narrow_multipliers
    states = sample_states(robot, 12, np.random.default_rng(95))
    states[1][3, 0] = 2.5                # beyond 2 per second
    codes, inputs = stimulus(dut, states)
    generic, ecp5 = (run_stream_compiled(dut, inputs, sink_pattern=[1, 0, 1],
                                         directory=compiled_models, platform=platform)
                     for platform in (None, ECP5))
    assert not check(dut, ecp5, codes, inputs)[3]
    assert ecp5.outputs == generic.outputs
    assert (ecp5.input_cycles, ecp5.output_cycles) == (generic.input_cycles,
                                                       generic.output_cycles)


def test_dynamics_command_on_the_engine(tmp_path, capsys):
    from robohw.commands import main
    robot = load_robot("stanford")
    q, qd, qdd = sample_states(robot, 4, np.random.default_rng(14))
    qd[2, 1] = 1.5                       # beyond the Stanford file's 1 rad/s
    source = write_state_file(tmp_path / "s.csv", q, qd, qdd)
    files = {}
    for backend in ("model", "rtl"):
        files[backend] = tmp_path / f"{backend}.csv"
        assert main(["dynamics", "--robot", "stanford", "--states", str(source),
                     "--out", str(files[backend]), "--backend", backend, "--design", "engine",
                     "--ii", "16", "--width", "20", "--reasons"]) == 0
    assert files["rtl"].read_bytes() == files["model"].read_bytes()
    rows = files["model"].read_text().splitlines()[1:]
    assert [r.endswith(",0,outside_limits") for r in rows] == [False, False, True, False]
    # The engine is the default design: its --ii needs no --design; another design's refuses it.
    assert main(["dynamics", "--states", str(source), "--out", str(tmp_path / "x.csv"),
                 "--backend", "model", "--ii", "8"]) == 0
    capsys.readouterr()
    assert main(["dynamics", "--states", str(source), "--out", str(tmp_path / "x.csv"),
                 "--backend", "model", "--design", "array", "--ii", "8"]) == 2
    assert "--ii applies to --design engine" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["dynamics", "--states", str(source), "--out", str(tmp_path / "x.csv"),
              "--backend", "model", "--design", "engine", "--ii", "1"])
    assert "--ii must be an integer [2, 1024], not '1'" in capsys.readouterr().err


@HEAVY
def test_the_compiled_backend_writes_the_models_file(tmp_path):
    from robohw.commands import main
    robot = load_robot("puma560")
    q, qd, qdd = sample_states(robot, 30, np.random.default_rng(15))
    qdd[4, 0] = 9.0
    source = write_state_file(tmp_path / "s.csv", q, qd, qdd)
    files = {}
    for backend in ("model", "compiled"):
        files[backend] = tmp_path / f"{backend}.csv"
        assert main(["dynamics", "--states", str(source), "--out", str(files[backend]),
                     "--backend", backend, "--design", "engine", "--width", "20"]) == 0
    assert files["compiled"].read_bytes() == files["model"].read_bytes()


def test_the_estimate_counts_the_flip_flops_within_a_tenth():
    # The report's table estimates from the program; the elaborated design's registers
    # (robohw.sim.resources) hold the estimate to them.
    from robohw.sim.resources import register_bits
    dut = NewtonEulerEngine(small_robot(3, 73), width=20, interval=3, tag_width=8,
                            bound_fraction=None)
    estimate = dut.resources()
    assert abs(estimate["register_bits"] / register_bits(dut) - 1) <= 0.1
    assert estimate["dsp_tiles"] == estimate["multipliers"] == dut.program.machine.multipliers
    assert estimate["file_words"] == sum(dut.program.depth.values())


def test_sim_measures_the_compilers_latency_and_interval(tmp_path, capsys):
    import json

    from robohw.commands import main
    out = tmp_path / "sim.json"
    assert main(["sim", "dynamics-engine", "--robot", "stanford", "--ii", "12", "--count",
                 "24", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    dut = NewtonEulerEngine(load_robot("stanford"), width=result["width"], interval=12)
    assert result["interval"] == result["stated_interval"] == 12
    assert result["latency"] == result["stated_latency"] == \
        replay_engine(dut.plan, dut.program) + 2
    assert result["equals_model"]
    capsys.readouterr()
    assert main(["sim", "dynamics-array", "--ii", "12"]) == 2
    assert ("--ii applies to the modulo-scheduled designs (dynamics-engine, forward-dynamics, "
            "dynamics-gradient), "
            "not dynamics-array") in capsys.readouterr().err
    assert main(["sim", "dynamics-engine", "--ii", "12", "--fold", "12"]) == 2
    assert "--ii and --fold name one thing: give one" in capsys.readouterr().err


def test_export_and_synth_take_the_interval_by_its_name(tmp_path, capsys):
    import json

    from robohw.commands import main
    assert main(["export", "--designs", "dynamics-engine", "--robot", "stanford", "--ii",
                 "12,16", "--widths", "20", "--no-lint", "--out", str(tmp_path)]) == 0
    for ii in (12, 16):
        sidecar = json.loads(next(tmp_path.glob(f"*_w20_f{ii}.json")).read_text())
        dut = NewtonEulerEngine(load_robot("stanford"), width=20, interval=ii)
        assert (sidecar["interval_cycles"], sidecar["latency_cycles"]) == \
            (ii, replay_engine(dut.plan, dut.program) + 2)
    capsys.readouterr()
    assert main(["synth", "--designs", "dynamics-engine,inertia-linear", "--ii", "64",
                 "--out", str(tmp_path)]) == 2
    assert ("--ii applies to the modulo-scheduled designs (dynamics-engine, forward-dynamics, "
            "dynamics-gradient), "
            "not inertia-linear") in capsys.readouterr().err
    assert main(["export", "--designs", "dynamics-engine", "--ii", "64", "--fold", "64",
                 "--out", str(tmp_path)]) == 2
    assert "--ii and --fold name one thing: give one" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["synth", "--designs", "dynamics-engine", "--ii", "64,1"])
    assert "--ii must be integers [2, 1024] separated by commas, not '64,1'" in \
        capsys.readouterr().err


def test_another_robots_interval_is_the_smallest_estimated_within_the_placed_engines():
    # A shipped arm's interval is the one placed and routed on seeds 1-3; another robot's the
    # smallest from ENGINE_INTERVAL whose estimate is no larger than the least placed one's,
    # each estimated flat or by locality as it was placed (the iiwa 14 and a seven-joint robot:
    # by locality).
    from robohw.dynamics.inverse.designs import EngineDesign
    from robohw.dynamics.inverse.engine import ENGINE_INTERVAL
    from robohw.engine.estimate import engine_resources
    from robohw.engine.partition import cell_partition

    def luts(robot, width, interval, clustered=False):
        plan = LinkFramePlan(robot, width=width, bound_fraction=None)
        partition = cell_partition(plan) if clustered else None
        return engine_resources(plan, compile_plan(plan, interval, partition=partition))["luts"]
    budget = min(luts("puma560", 18, 5), luts("ur5", 20, 5), luts("iiwa14", 20, 10, True))
    robot = small_robot(7, 3)
    found = EngineDesign("dynamics-engine").for_robot(robot, "seven", None)
    ii, width = found.default_fold, found.default_width
    assert ii > ENGINE_INTERVAL
    assert luts(robot, width, ii, True) <= budget < luts(robot, width, ii - 1, True)
