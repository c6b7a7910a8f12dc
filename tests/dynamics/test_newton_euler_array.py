"""Lee & Chang's processor array for the Newton-Euler equations: the networks route what they
claim, the compiled program is a valid schedule (replayed independently), the RTL equals the
bit-exact model for both networks and any number of elements, the counters count the program,
and interval and latency are measured as stated."""

import math
import re

import numpy as np
import pytest
from amaranth.back import verilog
from amaranth.sim import Simulator
from schedules import replay_program
from state_files import write_state_file
from tiers import HEAVY

from robohw.dynamics.inverse.array import NewtonEulerArray
from robohw.dynamics.inverse.array_plan import ArrayPlan
from robohw.dynamics.inverse.codec import encode_states, torque_codes
from robohw.dynamics.inverse.model import model_outputs, model_torques
from robohw.dynamics.inverse.network import DirectNetwork, OmegaNetwork, omega_route
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.dynamics.inverse.scans import corrected_pfp_time, pfp_schedule
from robohw.hw.devices import DEVICES
from robohw.robots import load_robot
from robohw.robots.sampling import random_robot, sample_states
from robohw.sim.compiled import run_stream_compiled
from robohw.sim.harness import run_stream

ECP5 = DEVICES["ecp5-85k"]


@pytest.mark.parametrize("ports", [2, 4, 8, 16])
def test_every_cyclic_shift_passes_the_omega_network_in_one_round(ports):
    for shift in range(ports):
        pairs = [(j, (j + shift) % ports) for j in range(ports)]
        trace = omega_route(ports, pairs)
        assert trace is not None and all(trace[pair][-1] == pair[1] for pair in pairs)
    # Not every permutation does: two values that need one switch output conflict.
    assert omega_route(8, [(0, 0), (4, 1)]) is None


def test_direct_paths_use_the_links_only():
    network = DirectNetwork(7)
    assert network.distances == [-4, -2, -1, 1, 2, 4]
    for source in range(7):
        for target in range(7):
            hops = network.path(source, target)
            assert (hops[-1][1] if hops else source) == target
            assert all(b - a in network.distances for a, b in hops)
            assert len(hops) <= math.ceil(math.log2(7)) + 1
    assert not network.compatible([(0, 1), (2, 1)])       # one receive per round
    assert OmegaNetwork(6).ports == 8 and OmegaNetwork(6).stages == 4


@pytest.mark.parametrize("network", ["direct", "shuffle"])
@pytest.mark.parametrize("processors", [1, 2, 3, 4, 6, 7])
def test_the_program_is_a_valid_schedule(processors, network):
    plan = ArrayPlan("puma560", processors=processors, network=network, width=20,
                     bound_fraction=None)
    assert replay_program(plan) == plan.program_cycles


@pytest.mark.parametrize("n", [2, 5, 9])
def test_random_robots_compile_and_replay(n):
    rng = np.random.default_rng(40 + n)
    robot = random_robot(rng, n, prismatic=0.3)
    for processors, network in ((1, "direct"), (3, "shuffle"), (n, "direct")):
        plan = ArrayPlan(robot, processors=processors, network=network, width=20,
                         bound_fraction=None, multiplier_latency=2, adder_latency=2)
        assert replay_program(plan) == plan.program_cycles


def test_the_array_runs_pfp_whose_steps_are_the_corrected_t_p():
    # The scans with n + 1 elements (omega, omega-dot, p-ddot, f, n) run PFP's schedule on p
    # elements; its steps are part 1's measured T_p. Steps holding work can be fewer: the
    # robot's structural zeros (omega_0 = 0, no tool load) cost nothing.
    robot = load_robot("puma560")
    for processors in range(1, 8):
        plan = ArrayPlan(robot, processors=processors, width=20, bound_fraction=None)
        schedule = len(pfp_schedule(robot.dof + 1, processors))
        assert schedule == corrected_pfp_time(robot.dof, processors)
        for phase, steps in plan.scan_steps().items():
            assert steps <= schedule, phase


def test_constructor_checks():
    with pytest.raises(ValueError, match="network must be one of direct, shuffle, not 'ring'"):
        ArrayPlan("puma560", network="ring")
    with pytest.raises(ValueError, match="processors must be a positive integer, not 0"):
        ArrayPlan("puma560", processors=0)
    with pytest.raises(ValueError, match="multiplier_latency must be a positive integer"):
        ArrayPlan("puma560", multiplier_latency=0)
    # A plan may be a what-if; the hardware's units have their pipelines.
    assert ArrayPlan("puma560", multiplier_latency=3, adder_latency=1).program_cycles > 0
    with pytest.raises(ValueError, match=r"adder_latency must be at least 6 \(the unit's "
                                         r"pipeline\), not 1"):
        NewtonEulerArray("puma560", adder_latency=1)


def check(dut, q, qd, qdd, **stalls):
    codes = encode_states(dut.plan, q, qd, qdd)
    inputs = [{**{n: int(v[b]) for n, v in codes.items()}, "tag": b % 256}
              for b in range(len(q))]
    run = run_stream(dut, inputs, **stalls)
    expected, inside = model_outputs(dut.plan, codes)
    assert [o["tag"] for o in run.outputs] == [p["tag"] for p in inputs]
    assert [o["in_bounds"] for o in run.outputs] == inside.astype(int).tolist()
    got = torque_codes(dut.plan, run.outputs)
    for k, values in expected.items():
        assert got[k].tolist() == values.tolist(), k
    return run


@pytest.mark.parametrize("robot, processors, network, latencies", [
    pytest.param("puma560", 6, "direct", {}, marks=HEAVY),
    pytest.param("puma560", 6, "shuffle", {"multiplier_latency": 8}, marks=HEAVY),
    pytest.param("puma560", 1, "direct", {"adder_latency": 7}, marks=HEAVY),
    ("stanford", 3, "shuffle", {}),
    ("stanford", 4, "direct", {"multiplier_latency": 9, "adder_latency": 7})])
def test_rtl_equals_model(robot, processors, network, latencies):
    # The units' least latencies, and more (registers on the exact result).
    robot = load_robot(robot)
    dut = NewtonEulerArray(robot, processors=processors, network=network, width=18,
                           tag_width=8, **latencies)
    q, qd, qdd = sample_states(robot, 3, np.random.default_rng(processors))
    qd[1] *= 1.5                         # out of bounds: flagged, registers wrap as modelled
    run = check(dut, q, qd, qdd)
    # Interval and latency measured: one state per program (and its capture cycle).
    assert np.all(np.diff(run.input_cycles) == dut.plan.program_cycles + 1)
    assert run.output_cycles[0] - run.input_cycles[0] == dut.latency == \
        dut.plan.program_cycles + 1 + 2


def test_backpressure_loses_nothing():
    robot = load_robot("puma560")
    dut = NewtonEulerArray(robot, processors=3, network="shuffle", width=16, tag_width=8,
                           bound_fraction=None)
    sink = [1, 0, 0, 1, 0, 0, 0]
    check(dut, *sample_states(robot, 5, np.random.default_rng(12)),
          sink_ready=lambda c: sink[(c // 50) % len(sink)], source_valid=lambda c: c % 3 != 1)


def test_counters_count_the_program():
    # The elements run their programs every interval from reset; after two intervals each
    # counter holds twice the plan's count.
    dut = NewtonEulerArray("stanford", processors=3, network="direct", width=16,
                           bound_fraction=None)
    counted = {}

    async def bench(ctx):
        await ctx.tick().repeat(2 * dut.interval)
        for element, counters in enumerate(dut.counters):
            counted[element] = {kind: ctx.get(signal) for kind, signal in counters.items()}

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    for element, row in enumerate(dut.plan.counts()):
        assert counted[element] == {kind: 2 * row[kind]
                                    for kind in ("multiplies", "adds", "idle")}
    assert sum(row["multiplies"] for row in dut.plan.counts()) == \
        dut.plan.tracer.counts(dut.plan.live)["mul"]


def test_the_array_is_accurate_at_24_bits():
    robot = load_robot("stanford")
    states = sample_states(robot, 2000, np.random.default_rng(13))
    tau, inside = model_torques(ArrayPlan(robot, processors=3, network="shuffle", width=24),
                                *states)
    reference = inverse_dynamics(robot, *states)
    assert inside.all()
    assert np.abs(tau - reference).max() <= 1e-4 * np.abs(reference).max()


def test_dynamics_command_on_the_array(tmp_path, capsys):
    from robohw.commands import main
    robot = load_robot("puma560")
    q, qd, qdd = sample_states(robot, 4, np.random.default_rng(14))
    qdd[2, 5] = 2.5                      # beyond the PUMA file's 2 rad/s^2
    source = write_state_file(tmp_path / "s.csv", q, qd, qdd)
    files = {}
    for backend in ("model", "rtl"):
        files[backend] = tmp_path / f"{backend}.csv"
        assert main(["dynamics", "--states", str(source), "--out", str(files[backend]),
                     "--backend", backend, "--design", "array", "--processors", "3",
                     "--network", "shuffle", "--width", "18", "--reasons"]) == 0
    assert files["rtl"].read_bytes() == files["model"].read_bytes()
    rows = files["model"].read_text().splitlines()[1:]
    assert [r.endswith(",0,outside_limits") for r in rows] == [False, False, True, False]
    assert main(["dynamics", "--states", str(source), "--out", str(tmp_path / "x.csv"),
                 "--backend", "model", "--processors", "3"]) == 2
    assert "--processors applies to --design array" in capsys.readouterr().err


@pytest.mark.parametrize("n", range(2, 9))
def test_sequenced_by_steps_the_controller_runs_t_p_steps(n):
    # Every (n, p): the steps of each scan the program holds are PFP's, part 1's corrected
    # T_p for its K elements (n + 1, or n for the rotations).
    robot = random_robot(np.random.default_rng(60 + n), n, prismatic=0.2)
    for processors in range(1, n + 2):
        plan = ArrayPlan(robot, processors=processors, width=20, sequencing="steps",
                         bound_fraction=None)
        counts = plan.step_counts()
        assert counts.pop("R") == corrected_pfp_time(n - 1, processors)
        assert set(counts.values()) == {corrected_pfp_time(n, processors)}, counts
        assert replay_program(plan) == plan.program_cycles


@pytest.mark.heavy
@pytest.mark.parametrize("robot, processors, network", [
    ("puma560", 6, "direct"), ("puma560", 2, "shuffle"), ("stanford", 3, "direct")])
def test_sequenced_by_steps_rtl_equals_model_and_counts_t_p(robot, processors, network):
    robot = load_robot(robot)
    dut = NewtonEulerArray(robot, processors=processors, network=network, width=18,
                           sequencing="steps", tag_width=8)
    check(dut, *sample_states(robot, 2, np.random.default_rng(15)))
    counted = {}

    async def bench(ctx):
        await ctx.tick().repeat(dut.interval)
        counted.update({phase: ctx.get(signal) for phase, signal in dut.steps.items()})

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    n = robot.dof
    assert counted.pop("R") == corrected_pfp_time(n - 1, processors)
    assert set(counted.values()) == {corrected_pfp_time(n, processors)}


def test_on_an_ecp5_the_multipliers_are_tiles_and_the_netlist_equals_the_model(
        compiled_models):
    # Elaborated for an ECP5, each element's multiplier is a MULT18X18D holding its operand
    # and product registers (robohw.hw.multiplier); under Verilator, with the tile's model,
    # the results and their cycles are the generic netlist's and the bit-exact model's.
    robot = load_robot("stanford")
    dut = NewtonEulerArray(robot, processors=3, network="shuffle", width=18, tag_width=8)
    text = verilog.convert(NewtonEulerArray(robot, processors=3, network="shuffle", width=18,
                                            tag_width=8), name="top", platform=ECP5)
    assert len(re.findall(r"MULT18X18D #\(", text)) == 3
    assert not re.findall(r"\bpe\d_mul_(in_a|in_b|product)\b", text)
    q, qd, qdd = sample_states(robot, 6, np.random.default_rng(5))
    qd[1] *= 1.5                         # out of bounds: flagged, registers wrap as modelled
    codes = encode_states(dut.plan, q, qd, qdd)
    inputs = [{**{n: int(v[b]) for n, v in codes.items()}, "tag": b} for b in range(len(q))]
    generic, ecp5 = (run_stream_compiled(dut, inputs, sink_pattern=[1, 0, 1],
                                         directory=compiled_models, platform=platform)
                     for platform in (None, ECP5))
    expected, inside = model_outputs(dut.plan, codes)
    got = torque_codes(dut.plan, ecp5.outputs)
    for k, values in expected.items():
        assert got[k].tolist() == values.tolist(), k
    assert [o["in_bounds"] for o in ecp5.outputs] == inside.astype(int).tolist()
    assert ecp5.outputs == generic.outputs
    assert (ecp5.input_cycles, ecp5.output_cycles) == (generic.input_cycles,
                                                       generic.output_cycles)
