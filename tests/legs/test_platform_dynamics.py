"""The platform's inverse dynamics on the leg processors (robohw.legs.dynamics_graph): the
graph's ideal CCMs against the float references, its scale and formats, the bit-exact model's
accuracy, the hardware against the model, and ``robohw platform dynamics`` on the hardware."""

import math
import re
from dataclasses import replace

import numpy as np
import pytest
from tiers import heavy_unless

from robohw.commands import main
from robohw.commands.platform import PLATFORM_MAX_WIDTH
from robohw.cordic.config import MAX_WIDTH, System
from robohw.legs.dynamics_graph import (
    DYNAMICS_GUARD_BITS,
    STATE_LIMITS,
    StateLimits,
    dynamics_format,
    dynamics_graph,
    dynamics_scale,
    reference_dynamics,
    sample_states,
    state_codes,
    state_fields,
    state_inputs,
)
from robohw.legs.fk_graph import FK_GUARD_BITS
from robohw.legs.ik_graph import GUARD_BITS
from robohw.legs.platform_dynamics import virtual_power_dynamics
from robohw.robots.platform import SHIPPED_PLATFORMS, load_platform
from robohw.sim.harness import run_stream
from robohw.taskgraph.model import evaluate_float, evaluate_model, output_codes
from robohw.taskgraph.pipeline import TaskGraphPipeline


def _forces(platform, graph, inputs, evaluate=evaluate_float, **formats):
    out, valid, values = evaluate(graph, inputs, **formats)
    return np.column_stack([out[f"f{i}"] for i in range(1, len(platform.legs) + 1)]), valid, \
        values


@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_ideal_ccms_give_the_reference_forces(name):
    platform = load_platform(name)
    states = sample_states(platform, 400, np.random.default_rng(1))
    scale = dynamics_scale(platform)
    forces, valid, _ = _forces(platform, dynamics_graph(platform, scale),
                               state_inputs(platform, states, scale))
    reference, condition = reference_dynamics(platform, states)
    # Virtual power, which shares nothing with Gosselin's decomposition, agrees too.
    pose, dof = len(platform.pose_fields), 6 if platform.spatial else 3
    order = [3, 4, 5, 0, 1, 2] if platform.spatial else [2, 0, 1]
    independent = virtual_power_dynamics(platform, states[:, :pose],
                                         states[:, pose:pose + dof][:, order],
                                         states[:, pose + dof:][:, order])
    solvable = valid & (condition < 1e3)
    assert solvable.mean() > 0.95
    top = np.abs(reference).max()
    assert np.abs(forces[solvable] * scale.force - reference[solvable]).max() < 1e-12 * top
    assert np.abs(forces[solvable] * scale.force - independent[solvable]).max() < 1e-9 * top


def test_a_wrong_constant_changes_the_forces():
    """The float test can fail: a platform 10 % heavier than the reference's."""
    platform = load_platform("hexapod")
    states = sample_states(platform, 50, np.random.default_rng(2))
    scale = dynamics_scale(platform)
    heavier = replace(platform, mass=platform.mass * 1.1)
    forces, _, _ = _forces(platform, dynamics_graph(heavier, scale),
                           state_inputs(platform, states, scale))
    reference, _ = reference_dynamics(platform, states)
    assert np.abs(forces * scale.force - reference).max() > 1.0


@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_every_leg_is_the_same_processor_and_talks_only_through_the_solve(name):
    platform = load_platform(name)
    graph = dynamics_graph(platform)
    legs = len(platform.legs)
    shapes = []
    for i in range(1, legs + 1):
        prefix = f"leg{i}_"
        own = [c for c in graph.ccms if c.name.startswith(prefix)]
        shapes.append([(c.name[len(prefix):], c.system, c.direction) for c in own])
        for ccm in own:
            for _, operand in ccm.operands():
                for source, _ in operand.sources():
                    # Phase 3 (the scatter, "_h_") reads the solve's f_i; nothing else does.
                    assert source in graph.inputs or source.startswith(prefix) or \
                        ("_h_" in ccm.name and source == f"s_d{i - 1}"), (ccm.name, source)
    assert all(shape == shapes[0] for shape in shapes)
    # Gosselin's phases: legs, then the platform (p_) and its solve (s_); nothing else.
    assert {c.name.split("_")[0] for c in graph.ccms} == \
        {f"leg{i}" for i in range(1, legs + 1)} | {"p", "s"}
    assert len([c for c in graph.ccms if "_h_" in c.name]) == legs


def _real_ports(graph, values):
    """``{ccm.port: largest |value|}`` of the real ports the graph reads."""
    out = {}
    for ccm in graph.ccms:
        for k, port in enumerate("xyz"):
            if port in graph.used_ports(ccm.name) and \
                    not (ccm.system is System.CIRCULAR and port == "z"):
                out[f"{ccm.name}.{port}"] = float(np.abs(values[ccm.name][k]).max())
    return out


@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_the_scale_keeps_states_inside_the_limits_inside_the_format(name):
    """The margin, measured: at the limits' corners (every rate and acceleration at +- its
    limit) every real the legs and the platform compute stays below half the format's range;
    the solve's values are below it for every state the reference solves with cond <= 100."""
    platform = load_platform(name)
    rng = np.random.default_rng(3)
    states = sample_states(platform, 3000, rng)
    pose = len(platform.pose_fields)
    states[:, pose:] = np.sign(states[:, pose:]) * np.abs(states[:, pose:]).max(0)
    scale = dynamics_scale(platform)
    assert math.log2(scale.time).is_integer() and math.log2(scale.mass).is_integer()
    graph = dynamics_graph(platform, scale)
    _, valid, values = _forces(platform, graph, state_inputs(platform, states, scale))
    _, condition = reference_dynamics(platform, states)
    well = condition <= 100
    assert well.mean() > 0.9 and valid[well].all()
    limit = 2.0 ** (dynamics_format(platform, 24)["width"] - 1 -
                    dynamics_format(platform, 24)["frac_bits"])
    well_values = {name: tuple(np.asarray(v)[well] if np.ndim(v) else v for v in port)
                   for name, port in values.items()}
    ports = _real_ports(graph, well_values)
    phase1 = max(v for k, v in ports.items() if not k.startswith("s_"))
    assert phase1 < limit / 2
    assert max(ports.values()) < limit


def _phase_of(key):
    name = key[0]
    return "solve" if name.startswith("s_") or "_h_" in name else "legs and wrench"


@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_the_legs_and_the_wrench_have_proven_ranges_that_hold(name):
    from robohw.legs.dynamics_graph import proven_ranges, state_bounds
    from robohw.legs.platform_kinematics import inverse_kinematics
    from robohw.taskgraph.ranges import graph_ranges
    platform = load_platform(name)
    scale, formats = dynamics_scale(platform), dynamics_format(platform, 24)
    ranges = proven_ranges(platform, scale, 24)
    assert ranges.limit == 2.0 ** (formats["width"] - 1 - formats["frac_bits"])
    for bounds in (ranges.ports, ranges.operands):      # operands: (ccm, slot)
        assert max(v for k, v in bounds.items() if _phase_of(k) != "solve") < ranges.limit
    # Without the legs' least lengths the divisions are bounded only by the CCMs' range:
    # nothing is proven (the pass can fail).
    loose = graph_ranges(dynamics_graph(platform, scale), state_bounds(platform, scale),
                         **formats)
    assert max(v for k, v in loose.ports.items() if _phase_of(k) != "solve") >= loose.limit
    # Sound: no value of the model exceeds its bound, at the limits' corners and inside them,
    # for states whose legs are within their strokes.
    states = sample_states(platform, 2000, np.random.default_rng(12))
    pose = len(platform.pose_fields)
    states[:1000, pose:] = np.sign(states[:1000, pose:]) * np.abs(states[:, pose:]).max(0)
    lengths = inverse_kinematics(platform, states[:, :pose])
    strokes = np.array([leg.stroke for leg in platform.legs])
    states = states[((lengths >= strokes[:, 0]) & (lengths <= strokes[:, 1])).all(1)]
    graph = dynamics_graph(platform, scale)
    _, valid, values = evaluate_model(graph, state_inputs(platform, states, scale), **formats)
    lsb = 2.0 ** -(formats["frac_bits"] + formats["guard_bits"])
    for (ccm, port), bound in ranges.ports.items():
        got = np.abs(values[ccm]["xyz".index(port)][valid]) * lsb
        assert got.max(initial=0) <= bound, (ccm, port)


def test_scale_and_limits_check_their_arguments():
    with pytest.raises(ValueError, match=r"StateLimits.velocity must be a positive number"):
        StateLimits(velocity=0.0, angular_velocity=1, acceleration=1, angular_acceleration=1)
    with pytest.raises(ValueError, match=r"the constant factor .* beyond the linear"):
        dynamics_graph(load_platform("hexapod"), replace(dynamics_scale(
            load_platform("hexapod")), mass=1.0))


def test_cli_width_limits_leave_room_for_the_guard_bits():
    assert PLATFORM_MAX_WIDTH == {"ik": MAX_WIDTH - GUARD_BITS,
                                  "jacobian": MAX_WIDTH - GUARD_BITS,
                                  "dynamics": MAX_WIDTH - DYNAMICS_GUARD_BITS,
                                  "fk": MAX_WIDTH - FK_GUARD_BITS}


# --- the bit-exact model ---------------------------------------------------------------------

@pytest.mark.parametrize("name", heavy_unless(SHIPPED_PLATFORMS, small=("planar_3rpr",)))
def test_model_forces_within_1e_4_of_the_largest_at_24_bits(name):
    """The goal: states with cond <= 100, forces within 1e-4 of max |h| (the largest
    force of the set; the hexapod, always pushing against gravity, also per state)."""
    platform, width = load_platform(name), 24
    states = sample_states(platform, 1500, np.random.default_rng(4))
    scale = dynamics_scale(platform)
    forces, valid, _ = _forces(platform, dynamics_graph(platform, scale),
                               state_inputs(platform, states, scale), evaluate_model,
                               **dynamics_format(platform, width))
    reference, condition = reference_dynamics(platform, states)
    well = condition <= 100
    assert valid[well].all()
    error = np.abs(forces[well] * scale.force - reference[well])
    assert error.max() < 1e-4 * np.abs(reference[well]).max()
    if platform.spatial:
        assert (error.max(1) / np.abs(reference[well]).max(1)).max() < 1e-4


def test_model_flags_near_singular_states_and_keeps_the_well_conditioned():
    platform = load_platform("planar_3rpr")
    scale = dynamics_scale(platform)
    graph = dynamics_graph(platform, scale)
    # The planar platform's workspace holds near-singular states (cond up to 3e4).
    states = sample_states(platform, 2000, np.random.default_rng(5))
    _, condition = reference_dynamics(platform, states)
    _, valid, _ = _forces(platform, graph, state_inputs(platform, states, scale),
                          evaluate_model, **dynamics_format(platform, 20))
    assert not valid[condition > 1e4].any()
    assert valid[condition <= 100].all()


# --- the hardware ----------------------------------------------------------------------------

@pytest.mark.slow   # 90 s of Amaranth simulation (113 CCMs, 640 cycles deep)
@pytest.mark.parametrize("timing", ["pipelined"])
def test_planar_dynamics_pipeline_equals_the_model(timing):
    platform, width = load_platform("planar_3rpr"), 16
    scale, formats = dynamics_scale(platform), dynamics_format(platform, 16)
    graph = dynamics_graph(platform, scale)
    states = sample_states(platform, 5, np.random.default_rng(6))
    codes = state_codes(platform, states, width, scale)
    payloads = [{**{k: int(c[s]) for k, c in codes.items()}, "tag": s} for s in range(5)]
    dut = TaskGraphPipeline(graph, **formats, tag_width=4, timing=timing)
    sink = [1, 1, 0, 1]
    run = run_stream(dut, payloads, sink_ready=lambda c: sink[c % 4])
    _, valid, values = evaluate_model(graph, state_inputs(platform, states, scale), **formats)
    assert [o["tag"] for o in run.outputs] == list(range(5))
    assert [o["unreachable"] for o in run.outputs] == (~valid).astype(int).tolist()
    for name, column in output_codes(graph, values, width, formats["guard_bits"]).items():
        assert [o[name] for o in run.outputs] == column.tolist(), name


def _states_file(path, platform, states):
    np.savetxt(path, states, delimiter=",", header=",".join(state_fields(platform)),
               comments="")


def test_platform_dynamics_model_backend_and_reasons(tmp_path):
    platform = load_platform("hexapod")
    states = sample_states(platform, 6, np.random.default_rng(7))
    states[4, 6] = 1.5 * STATE_LIMITS["spatial"].velocity             # vx beyond its limit
    states[5, 2] = 5.0                                      # z beyond the format's reach
    source = tmp_path / "s.csv"
    _states_file(source, platform, states)
    results = {}
    for backend in ("float", "model"):
        out = tmp_path / f"{backend}.csv"
        assert main(["platform", "dynamics", "--states", str(source), "--out", str(out),
                     "--backend", backend, "--reasons", "--quiet"]) == 0
        lines = out.read_text().splitlines()
        results[backend] = [line.split(",") for line in lines[1:]]
    assert [r[-1] for r in results["model"]] == ["ok"] * 4 + ["outside_limits",
                                                              "out_of_format"]
    assert [r[-1] for r in results["float"]][:5] == ["ok"] * 5
    for ours, theirs in zip(results["model"][:4], results["float"][:4]):
        assert np.allclose(np.array(ours[:6], float), np.array(theirs[:6], float), atol=2e-3)
    assert results["model"][4][:7] == ["0.0"] * 6 + ["0"]


def test_platform_dynamics_width_is_checked_in_one_line(tmp_path, capsys):
    source = tmp_path / "s.csv"
    _states_file(source, load_platform("hexapod"), np.zeros((1, 18)))
    code = None
    try:
        code = main(["platform", "dynamics", "--states", str(source), "--out",
                     str(tmp_path / "o.csv"), "--backend", "model", "--width", "37"])
    except SystemExit as exit_info:
        code = exit_info.code
    assert code == 2
    err = capsys.readouterr().err
    assert re.search(r"--width must be an integer \[16, 36\]", err) and err.count("\n") == 1


@pytest.mark.slow   # minutes: Verilator builds the 113-CCM planar graph
def test_platform_dynamics_compiled_backend_writes_the_models_file(tmp_path):
    platform = load_platform("planar_3rpr")
    states = sample_states(platform, 20, np.random.default_rng(8))
    source = tmp_path / "s.csv"
    _states_file(source, platform, states)
    for backend in ("model", "compiled"):
        assert main(["platform", "dynamics", "--platform", "planar_3rpr", "--states",
                     str(source), "--out", str(tmp_path / f"{backend}.csv"), "--backend",
                     backend, "--width", "20", "--reasons", "--quiet"]) == 0
    assert (tmp_path / "compiled.csv").read_bytes() == (tmp_path / "model.csv").read_bytes()


# --- the machine: a processor per leg, a platform processor, a bus --------------------------

def _check_plan(plan, timing):
    """Every rule of robohw.legs.machine_plan, from the plan's own records: raises
    AssertionError."""
    graph = plan.graph
    names = [c.name for c in graph.ccms]
    assert sorted(plan.start) == sorted(names)
    arrivals = {}
    assert len({t.cycle for t in plan.transfers}) == len(plan.transfers)   # a word a cycle
    for t in plan.transfers:
        if t.sender is not None:
            assert plan.finish[t.source] <= t.cycle
        for reader in t.readers:
            key = (t.source, t.port, reader)
            assert key not in arrivals                        # each value once
            arrivals[key] = t.cycle + 4   # read, across the chip, selected, written
    for ccm in graph.ccms:
        here = plan.processor[ccm.name]
        for _, operand in ccm.operands():
            for source, port in operand.sources():
                if source in plan.processor and plan.processor[source] == here:
                    assert plan.finish[source] <= plan.start[ccm.name], (ccm.name, source)
                else:
                    port = port if source in plan.processor else None
                    assert arrivals[(source, port, here)] <= plan.start[ccm.name]
        assert plan.finish[ccm.name] - plan.start[ccm.name] == timing[ccm.name][0]
    by_processor = {}
    for name in names:
        by_processor.setdefault(plan.processor[name], []).append(name)
    for processor, own in by_processor.items():
        own.sort(key=plan.start.get)
        for first, second in zip(own, own[1:]):
            assert plan.start[second] >= plan.start[first] + timing[first][1]
        assert plan.busy[processor] == sum(timing[n][1] for n in own)
    _check_registers(plan, arrivals)


def _check_registers(plan, arrivals):
    """No two values a processor holds at once share a register: a value is there from the
    cycle it is readable (its CCM's finish, or its word's arrival) to its last read (a CCM's
    start, a bus word's cycle, or the end for an output)."""
    graph, lives = plan.graph, {}

    def hold(value, processor, first, last):
        low, high = lives.get((value, processor), (first, last))
        lives[(value, processor)] = (min(low, first), max(high, last))

    for ccm in graph.ccms:
        here = plan.processor[ccm.name]
        for _, operand in ccm.operands():
            for source, port in operand.sources():
                if source in plan.processor and plan.processor[source] == here:
                    hold((source, port), here, plan.finish[source], plan.start[ccm.name])
                else:
                    port = port if source in plan.processor else None
                    hold((source, port), here, arrivals[(source, port, here)],
                         plan.start[ccm.name])
    for t in plan.transfers:
        if t.sender is not None:
            hold((t.source, t.port), t.sender, plan.finish[t.source], t.cycle)
    for source, port in graph.outputs.values():
        hold((source, port), plan.processor[source], plan.finish[source], plan.latency + 1)
    assert set(lives) == set(plan.registers)
    by_register = {}
    for (value, processor), (first, last) in lives.items():
        by_register.setdefault((processor, plan.registers[(value, processor)]), []).append(
            (first, last))
    for spans in by_register.values():
        spans.sort()
        for (_, last), (first, _) in zip(spans, spans[1:]):
            assert last < first          # read (at the latest) before the next is written
    # Each register holds one bank's values (one writer: its own CCM's port, or the bus), and
    # each bank has as few registers as its most values alive at once.
    for processor in set(plan.processor.values()):
        total = 0
        for bank in ("x", "y", "z", "bus"):
            mine = {key: span for key, span in lives.items() if key[1] == processor and
                    (key[0][1] if key[0][0] in plan.processor and
                     plan.processor[key[0][0]] == processor else "bus") == bank}
            if not mine:
                continue
            held = {plan.registers[key] for key in mine}
            assert not held & {plan.registers[k] for k in lives
                               if k[1] == processor and k not in mine}
            alive = max(sum(first <= c <= last for first, last in mine.values())
                        for c in {first for first, _ in mine.values()})
            assert len(held) == alive
            total += alive
        assert plan.register_count(processor) == total


def _ccm_timing(graph, formats):
    """Each CCM's (latency, occupancy) on a word-serial CORDIC, derived here: the registers
    read, the operands summed and saturated, the load, two cycles a register step, the
    finish stages and the write-back; the CORDIC is free again after the steps."""
    from robohw.cordic.config import CordicConfig
    from robohw.cordic.datapath import finish_stages, register_steps
    width, frac = formats["width"] + formats["guard_bits"], \
        formats["frac_bits"] + formats["guard_bits"]
    out = {}
    for ccm in graph.ccms:
        config = CordicConfig(ccm.system, ccm.direction, width=width, frac_bits=frac)
        steps = len(register_steps(config))
        out[ccm.name] = (3 + 1 + 2 * steps + len(finish_stages(config)) + 1, 2 * steps)
    return out


@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_machine_plans_keep_every_rule_and_count_the_phases(name):
    from robohw.legs.ik_graph import leg_ik_graph, platform_format
    from robohw.legs.machine_plan import plan_machine
    platform = load_platform(name)
    legs = len(platform.legs)
    for graph, formats in ((leg_ik_graph(platform, jacobian=True), platform_format(platform, 24)),
                           (dynamics_graph(platform), dynamics_format(platform, 24))):
        timing = _ccm_timing(graph, formats)
        parallel = plan_machine(graph, **formats)
        serial = plan_machine(graph, **formats, processors=1)
        _check_plan(parallel, timing)
        _check_plan(serial, timing)
        assert serial.busy == {0: sum(t[1] for t in timing.values())}
        spans = parallel.phase_spans()
        # The broadcast carries every input once; the gather every value a leg computes for
        # the platform processor; the scatter one force a leg.
        assert spans["broadcast"][2] == len(graph.inputs)
        if "s_d0" in parallel.start:
            gathered = {(s, p) for c in graph.ccms if parallel.processor[c.name] == 0
                        for _, o in c.operands() for s, p in o.sources() if s.startswith("leg")}
            assert spans["gather"][2] == len(gathered)
            assert spans["scatter"][2] == legs
        else:                     # the kinematics: no value passes between the legs
            assert {t.phase for t in parallel.transfers} == {"broadcast"}
            own = sum(t[1] for n, t in timing.items() if n.startswith("leg1_"))
            assert set(parallel.busy.values()) == {own}
            # Close to the legs' count: the broadcast and each leg's waits on its own
            # results are not divided.
            assert serial.latency / parallel.latency > 0.9 * legs


@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_machine_plans_of_the_forward_kinematics_keep_every_rule(name):
    from robohw.legs.fk_graph import fk_format, fk_graph
    from robohw.legs.machine_plan import plan_machine
    platform = load_platform(name)
    graph, formats = fk_graph(platform, 2), fk_format(platform, 24)
    plan = plan_machine(graph, **formats)
    _check_plan(plan, _ccm_timing(graph, formats))
    # Each iteration's legs on their processors (i{k}_leg{i}_...), the rest on processor 0;
    # the first iteration's new pose goes out from processor 0 to every leg.
    assert {plan.processor[c.name] for c in graph.ccms if "_leg2_" in c.name} == {2}
    poses = [t for t in plan.transfers if t.sender == 0]
    assert len(poses) == len(platform.pose_fields)
    assert all(t.readers == tuple(range(1, len(platform.legs) + 1)) for t in poses)


def test_a_broken_plan_fails_the_checks():
    from robohw.legs.machine_plan import plan_machine
    platform = load_platform("planar_3rpr")
    graph, formats = dynamics_graph(platform), dynamics_format(platform, 24)
    timing = _ccm_timing(graph, formats)
    plan = plan_machine(graph, **formats)
    late = max(plan.start, key=plan.start.get)
    plan.start[late] -= 1                 # one cycle early
    with pytest.raises(AssertionError):
        _check_plan(plan, timing)
    plan = plan_machine(graph, **formats)
    value = next(k for k in plan.registers if k[0][0].startswith("leg1_"))
    others = [k for k in plan.registers if k[1] == value[1] and k != value]
    plan.registers[value] = plan.registers[others[0]]   # two values in one register
    with pytest.raises(AssertionError):
        _check_plan(plan, timing)


def _machine_run(platform, graph, formats, inputs, codes, count, processors=None, **stalls):
    from robohw.legs.leg_machine import LegMachine
    dut = LegMachine(graph, **formats, processors=processors, tag_width=4)
    payloads = [{**{k: int(c[s]) for k, c in codes.items()}, "tag": s} for s in range(count)]
    run = run_stream(dut, payloads, **stalls)
    _, valid, values = evaluate_model(graph, inputs, **formats)
    assert [o["tag"] for o in run.outputs] == list(range(count))
    assert [o["unreachable"] for o in run.outputs] == (~valid).astype(int).tolist()
    for name, column in output_codes(graph, values, formats["width"],
                                     formats["guard_bits"]).items():
        assert [o[name] for o in run.outputs] == column.tolist(), name
    return dut, run, valid


@pytest.mark.heavy
def test_the_machine_runs_the_planar_dynamics_as_the_model_under_stalls():
    platform, width = load_platform("planar_3rpr"), 16
    scale, formats = dynamics_scale(platform), dynamics_format(platform, width)
    graph = dynamics_graph(platform, scale)
    states = sample_states(platform, 2000, np.random.default_rng(9))
    _, flagged, _ = _forces(platform, graph, state_inputs(platform, states, scale),
                            evaluate_model, **formats)
    # A valid state, one the solve flags (near-singular), another valid one.
    states = states[[0, int(np.argmin(flagged)), 1]]
    source, sink = [1, 0, 1], [1, 1, 0, 1, 0, 0, 1]
    dut, run, valid = _machine_run(platform, graph, formats,
                                   state_inputs(platform, states, scale),
                                   state_codes(platform, states, width, scale), 3,
                                   source_valid=lambda c: source[c % 3],
                                   sink_ready=lambda c: sink[c % 7])
    assert valid.tolist() == [True, False, True]
    # Latency: the state taken, the programs started (from a register), the first bus word's
    # read from its ROM and decoded, the plan (its rules checked above), the outputs offered;
    # a stalled sink only delays the transfer.
    timing = _ccm_timing(graph, formats)
    _check_plan(dut.plan, timing)
    waits = np.subtract(run.output_cycles, run.input_cycles)
    assert waits.min() == 1 + 3 + max(dut.plan.finish.values()) + 1 == dut.latency


@pytest.mark.heavy
@pytest.mark.parametrize("processors", [None, 1])
def test_the_machine_runs_the_kinematics_one_state_per_latency(processors):
    from robohw.legs.ik_graph import leg_ik_graph, platform_format, pose_codes, pose_inputs
    from robohw.robots.sampling import sample_poses
    platform, width = load_platform("planar_3rpr"), 16
    graph, formats = leg_ik_graph(platform, jacobian=True), platform_format(platform, width)
    poses = sample_poses(platform, 4, np.random.default_rng(10))
    dut, run, _ = _machine_run(platform, graph, formats, pose_inputs(platform, poses),
                               pose_codes(platform, poses, width), 4, processors)
    latency = 1 + 3 + max(dut.plan.finish.values()) + 1
    assert dut.latency == latency and dut.interval == latency
    assert np.diff(run.input_cycles).tolist() == [latency] * 3
    assert set(dut.plan.processor.values()) == ({0} if processors else {1, 2, 3})


def test_the_machine_flags_a_guarded_input_below_its_minimum():
    from robohw.legs.ik_graph import leg_ik_graph, platform_format, pose_codes, pose_inputs
    from robohw.robots.sampling import sample_poses
    from robohw.taskgraph.graph import Guard, TaskGraph
    platform, width = load_platform("planar_3rpr"), 16
    graph, formats = leg_ik_graph(platform), platform_format(platform, width)
    poses = sample_poses(platform, 3, np.random.default_rng(12))
    inputs = pose_inputs(platform, poses)
    name = next(n for n in graph.inputs if n not in graph.angle_inputs)
    # The middle pose's input is the smallest in magnitude: a minimum between it and the next.
    magnitudes = np.abs(np.asarray(inputs[name], dtype=float))
    order = np.argsort(magnitudes)
    poses = poses[[order[1], order[0], order[2]]]
    inputs = pose_inputs(platform, poses)
    guarded = TaskGraph(graph.name, graph.inputs, graph.ccms, graph.outputs,
                        angle_inputs=graph.angle_inputs,
                        guards=(*graph.guards, Guard(name, "x", float(np.mean(
                            np.sort(magnitudes)[:2])))))
    _, _, valid = _machine_run(platform, guarded, formats, inputs,
                               pose_codes(platform, poses, width), 3)
    assert valid.tolist() == [True, False, True]


@pytest.mark.slow   # minutes: 10,000 cycles a state in Amaranth
def test_the_machine_runs_the_hexapod_dynamics_as_the_model():
    platform, width = load_platform("hexapod"), 16
    scale, formats = dynamics_scale(platform), dynamics_format(platform, width)
    states = sample_states(platform, 2, np.random.default_rng(11))
    _machine_run(platform, dynamics_graph(platform, scale), formats,
                 state_inputs(platform, states, scale), state_codes(platform, states, width,
                                                                     scale), 2)


@pytest.mark.heavy
@pytest.mark.parametrize("kind", ["dynamics", "fk"])
def test_the_machine_designs_measure_as_stated(kind):
    # The registry's designs (the hexapod's) on the planar platform: workload, model and
    # check of the design class, timing measured from the transfers.
    from robohw.legs.designs import PlatformDynamicsDesign, PlatformFkDesign
    from robohw.registry import DESIGNS
    from robohw.sim.measure import measure_design
    registered = DESIGNS[f"platform-{kind}-machine"]
    assert registered.platform_name == "hexapod"
    design = (PlatformDynamicsDesign if kind == "dynamics" else PlatformFkDesign)(
        "planar", "planar_3rpr")
    row = measure_design(design, width=16, count=2)
    assert row["equals_model"] and row["results"] == 2
    assert (row["latency"], row["interval"]) == (row["stated_latency"], row["stated_interval"])
    plan = design.build(16).plan if kind == "dynamics" else design.build(16).pipeline.plan
    # One state at a time: the plan and five cycles (taken, the programs started, the first
    # event read from its ROM and registered, offered),
    # and for the servo loop the estimate's.
    assert row["latency"] == plan.latency + 5
    assert row["interval"] == row["latency"] + (kind == "fk")


def test_platform_command_runs_on_the_machine(tmp_path):
    from robohw.robots.sampling import sample_poses
    platform = load_platform("planar_3rpr")
    poses = sample_poses(platform, 3, np.random.default_rng(12))
    source = tmp_path / "p.csv"
    np.savetxt(source, poses, delimiter=",", header="x,y,phi", comments="")
    for backend, timing in (("model", "pipelined"), ("rtl", "machine")):
        assert main(["platform", "jacobian", "--platform", "planar_3rpr", "--poses",
                     str(source), "--out", str(tmp_path / f"{backend}.csv"), "--backend",
                     backend, "--timing", timing, "--width", "16", "--reasons",
                     "--quiet"]) == 0
    assert (tmp_path / "rtl.csv").read_bytes() == (tmp_path / "model.csv").read_bytes()


@pytest.mark.slow   # two minutes: Verilator builds the planar machine
def test_the_machine_under_verilator_writes_the_models_file(tmp_path):
    platform = load_platform("planar_3rpr")
    source = tmp_path / "s.csv"
    _states_file(source, platform, sample_states(platform, 6, np.random.default_rng(13)))
    for backend in ("model", "compiled"):
        assert main(["platform", "dynamics", "--platform", "planar_3rpr", "--states",
                     str(source), "--out", str(tmp_path / f"{backend}.csv"), "--backend",
                     backend, "--timing", "machine", "--width", "16", "--reasons",
                     "--quiet"]) == 0
    assert (tmp_path / "compiled.csv").read_bytes() == (tmp_path / "model.csv").read_bytes()
