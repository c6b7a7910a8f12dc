"""The PUMA IK pipeline in Amaranth against the bit-exact model of its task graph: exact
outputs and unreachable flags, measured latency and throughput, stalls, operand alignment."""

import numpy as np
import pytest
from netlist import register_depths

from robohw.cordic.config import CordicConfig, Direction, System
from robohw.hw.fixed import FixedFormat
from robohw.ik.codec import POSE_INPUTS, pose_inputs
from robohw.ik.puma_graph import best_graph, paper_graph, puma_format
from robohw.robots import load_robot
from robohw.robots.kinematics import forward_kinematics
from robohw.robots.sampling import sample_joints
from robohw.sim.compiled import run_stream_compiled
from robohw.sim.harness import run_stream
from robohw.sim.resources import memory_bits, register_bits
from robohw.taskgraph.graph import Ccm, Operand, TaskGraph, const
from robohw.taskgraph.model import evaluate_float, evaluate_model, output_codes
from robohw.taskgraph.pipeline import TaskGraphPipeline

BRANCHES = ("arm", "elbow", "wrist")


def workload(robot, count, width, seed, frac_bits=None):
    rng = np.random.default_rng(seed)
    pose = forward_kinematics(robot, sample_joints(robot, count, rng))
    # Unreachable (but inside the registry format's [-2, 2) m):
    pose[:3, :3, 3] = [[1.9, 0.0, 0.3], [0.0, 0.05, 0.8], [0.01, 0.0, 0.0]]
    pose[3] = forward_kinematics(robot, np.zeros(6))  # the wrist exactly singular
    inputs = pose_inputs(pose)
    branches = {b: rng.choice([-1, 1], count) for b in BRANCHES}
    fmt = FixedFormat(width, width - 3 if frac_bits is None else frac_bits)
    payloads = [{**{n: int(fmt.from_float(inputs[n][k])) for n in POSE_INPUTS},
                 **{b: int(branches[b][k] < 0) for b in BRANCHES}, "tag": k % 256}
                for k in range(count)]
    return inputs, branches, payloads


def check(dut, graph, robot, width, count=24, seed=0, **stalls):
    inputs, branches, payloads = workload(robot, count, width, seed)
    run = run_stream(dut, payloads, **stalls)
    _, valid, codes = evaluate_model(graph, inputs, branches, width=width)
    assert [o["tag"] for o in run.outputs] == [p["tag"] for p in payloads]
    assert [o["unreachable"] for o in run.outputs] == (~valid).astype(int).tolist()
    assert not valid[:3].any() and valid.mean() > 0.5
    for name, values in output_codes(graph, codes, width).items():
        assert [o[name] for o in run.outputs] == values.tolist(), name
    return run


# The second robot's full-size pipeline in `make slow`: `make test`'s quick report simulates
# both registry IK designs against the model.
@pytest.mark.heavy
@pytest.mark.parametrize("name, width", [("puma560", 14),
                                         pytest.param("puma560_fgl", 16, marks=pytest.mark.slow)])
def test_pipeline_equals_model_one_result_per_clock(name, width):
    robot = load_robot(name)
    graph = best_graph(robot)
    dut = TaskGraphPipeline(graph, width=width, tag_width=8, check_alignment=True)
    run = check(dut, graph, robot, width)
    assert set(np.subtract(run.output_cycles, run.input_cycles).tolist()) == {dut.latency}
    assert set(np.diff(run.output_cycles).tolist()) == {1}
    # Counted in the elaborated netlist: every path from the input to the output crosses the
    # same number of registers (the graph is balanced), and that number is the latency.
    assert register_depths(TaskGraphPipeline(graph, width=width, tag_width=8)) == {dut.latency}


@pytest.mark.slow   # full size; `make test`'s quick report simulates ik-paper-* against the model
def test_paper_graph_pipeline_equals_model():
    robot = load_robot()
    graph = paper_graph(robot)
    dut = TaskGraphPipeline(graph, width=12, tag_width=8, check_alignment=True)
    run = check(dut, graph, robot, 12, count=16, seed=9)
    assert run.output_cycles[0] - run.input_cycles[0] == dut.latency


@pytest.mark.heavy
def test_stalls_lose_nothing_and_keep_operands_aligned():
    robot = load_robot()
    graph = best_graph(robot)
    dut = TaskGraphPipeline(graph, width=12, tag_width=8, check_alignment=True)
    source, sink = [1, 1, 0, 1, 0, 0, 1], [1, 0, 0, 1, 1, 1, 0, 1, 0]
    check(dut, graph, robot, 12, count=20, seed=3,
          source_valid=lambda c: source[c % len(source)], sink_ready=lambda c: sink[c % len(sink)])


@pytest.mark.heavy
def test_memory_delay_lines_change_nothing_but_the_flip_flops():
    # Every segment over 4 stages a memory (the slot shadows too): the same results under
    # stalls, the same register count on every path, and most line bits out of the flip-flops.
    robot = load_robot()
    graph = best_graph(robot)
    dut = TaskGraphPipeline(graph, width=12, tag_width=8, check_alignment=True, memory_above=4)
    source, sink = [1, 1, 0, 1, 0, 0, 1], [1, 0, 0, 1, 1, 1, 0, 1, 0]
    check(dut, graph, robot, 12, count=20, seed=5,
          source_valid=lambda c: source[c % len(source)], sink_ready=lambda c: sink[c % len(sink)])
    plain = TaskGraphPipeline(graph, width=12, tag_width=8)
    memories = TaskGraphPipeline(graph, width=12, tag_width=8, memory_above=4)
    assert register_depths(memories) == register_depths(plain) == {plain.latency}
    moved = register_bits(plain) - register_bits(memories)
    assert memory_bits(memories) > 0.8 * moved > 0
    with pytest.raises(ValueError, match="memory_above must be an integer of at least 2, not 1"):
        TaskGraphPipeline(graph, width=12, memory_above=1)


@pytest.mark.heavy
def test_alignment_check_catches_a_wrong_schedule():
    robot = load_robot()
    graph = best_graph(robot)
    dut = TaskGraphPipeline(graph, width=12, tag_width=8, check_alignment=True)
    dut.plan.latencies["r"] -= 1  # consumers of r now tap one stage too late
    _, _, payloads = workload(robot, 4, 12, seed=4)
    with pytest.raises(AssertionError, match="operands of .* come from different input slots"):
        run_stream(dut, payloads)


@pytest.mark.slow
def test_exported_verilog_equals_model_under_verilator(compiled_models):
    # The compiled backend runs the exported Verilog under Verilator. Long delay lines in
    # memories, as the registry builds them; tagged, under stalls. Its build takes about two
    # minutes: `make slow` (in `make test`, tests/shared/test_compiled.py's `robohw ik --backend
    # compiled` runs the same pipeline, untagged, against the model).
    robot = load_robot()
    graph = best_graph(robot)
    width, fmt = 16, puma_format(16)
    inputs, branches, payloads = workload(robot, 200, width, seed=6, frac_bits=fmt["frac_bits"])
    sink = [True, True, False, True, False]
    dut = TaskGraphPipeline(graph, **fmt, tag_width=8, memory_above=16)
    run = run_stream_compiled(dut, payloads, sink_pattern=sink, directory=compiled_models)
    _, valid, codes = evaluate_model(graph, inputs, branches, **fmt)
    assert [o["tag"] for o in run.outputs] == [p["tag"] for p in payloads]
    assert [o["unreachable"] for o in run.outputs] == (~valid).astype(int).tolist()
    for name, values in output_codes(graph, codes, width, fmt["guard_bits"]).items():
        assert [o[name] for o in run.outputs] == values.tolist(), name
    # The first result is valid `latency` cycles after the first input and leaves in the first
    # cycle from then on in which the sink is ready.
    valid_at = run.input_cycles[0] + TaskGraphPipeline(graph, **fmt).latency
    taken_at = next(c for c in range(valid_at, valid_at + len(sink)) if sink[c % len(sink)])
    assert run.output_cycles[0] == taken_at


@pytest.mark.heavy
def test_word_serial_timing_two_poses_per_stage():
    robot = load_robot()
    graph = best_graph(robot)
    dut = TaskGraphPipeline(graph, width=10, tag_width=8, timing="word_serial",
                            check_alignment=True)
    run = check(dut, graph, robot, 10, count=8, seed=7)
    # One stage = the longest CCM's time from its two starts to both results: the operand
    # registers, the load cycle, two cycles per micro-rotation and per non-trivial
    # normalization factor (a shift cycle and an add cycle), two finish stages (rounding,
    # saturation), one more for the second pose, rounded up to even (two poses a stage);
    # the balanced depth is the graph's longest
    # chain of CCMs (11 for the best graph, its docstring), one stage each; and the output
    # queue's two cycles.
    configs = [CordicConfig(c.system, c.direction, width=10, expansion=c.expansion)
               for c in graph.ccms]
    stage = 1 + 1 + 2 * max(sum((s.shift is not None) + (s.gamma != 0) for s in c.steps)
                            for c in configs) + 2 + 1
    stage += stage % 2
    assert graph.depth() == 11
    assert dut.latency == 11 * stage + 2
    assert set(np.subtract(run.output_cycles, run.input_cycles).tolist()) == {dut.latency}
    # Two poses leave in consecutive cycles of every stage while the input keeps up.
    assert dut.interval == stage // 2
    assert np.diff(run.output_cycles).tolist() == [1, stage - 1] * 3 + [1]


@pytest.mark.heavy
def test_word_serial_pipeline_under_stalls():
    robot = load_robot()
    graph = paper_graph(robot)
    dut = TaskGraphPipeline(graph, width=10, tag_width=8, timing="word_serial")
    source, sink = [1, 0, 1, 1], [1, 1, 1, 0, 1, 0, 0]
    check(dut, graph, robot, 10, count=8, seed=3, source_valid=lambda c: source[c % 4],
          sink_ready=lambda c: sink[c % 7])


def test_rejects_unknown_timing():
    with pytest.raises(ValueError, match="timing must be 'pipelined' or 'word_serial', not 'fast'"):
        TaskGraphPipeline(best_graph(load_robot()), timing="fast")


# --- a real read as turns of an angle --------------------------------------------------------

def _turns_graph():
    """theta (a real, radians) to turns by a linear CCM, then (0.5, 0) turned by it."""
    return TaskGraph("turns", ("theta",), (
        Ccm("t", System.LINEAR, Direction.ROTATION, Operand("theta"), const(0),
            const(1 / (2 * np.pi))),
        Ccm("r", System.CIRCULAR, Direction.ROTATION, const(0.5), const(0),
            Operand("t", "y", turns=True))), {"c": ("r", "x"), "s": ("r", "y")})


def test_turns_are_a_real_source_alone_in_an_angle_slot():
    def graph(ccm):
        return TaskGraph("g", ("a", "b", "q"), (ccm,), {"out": (ccm.name, "x")},
                         angle_inputs=("q",))
    message = "turns are a real source alone, read as the angle of a circular CCM"
    for ccm in (Ccm("c", System.CIRCULAR, Direction.ROTATION, Operand("a", turns=True),
                    const(0), const(0)),
                Ccm("c", System.LINEAR, Direction.ROTATION, const(1), const(0),
                    Operand("a", turns=True)),
                Ccm("c", System.CIRCULAR, Direction.ROTATION, const(1), const(0),
                    Operand("q", turns=True)),
                Ccm("c", System.CIRCULAR, Direction.ROTATION, const(1), const(0),
                    Operand("a", turns=True, addend=Operand("b")))):
        with pytest.raises(ValueError, match=message):
            graph(ccm)


def test_turns_turn_a_vector_in_float_model_and_rtl():
    graph = _turns_graph()
    # Beyond half a turn either way too: the binary angle wraps whole turns away.
    theta = np.concatenate([np.linspace(-3.99, 3.99, 41), [0.0, np.pi, -np.pi, 3.5]])
    out, valid, _ = evaluate_float(graph, {"theta": theta})
    assert valid.all()
    assert np.abs(out["c"] - 0.5 * np.cos(theta)).max() < 1e-12
    assert np.abs(out["s"] - 0.5 * np.sin(theta)).max() < 1e-12
    width, frac = 16, 13
    model, valid, values = evaluate_model(graph, {"theta": theta}, width=width, guard_bits=1)
    assert valid.all()
    # The real theta rounds to 2^-13, its turns to 2^-14 inside: 4 LSB covers both.
    for name, want in (("c", np.cos(theta)), ("s", np.sin(theta))):
        assert np.abs(model[name] - 0.5 * want).max() < 4 * 2.0 ** -frac, name
    codes = output_codes(graph, values, width, 1)
    payloads = [{"theta": int(c), "tag": k % 16} for k, c in
                enumerate(FixedFormat(width, frac).from_float(theta))]
    for timing in ("pipelined", "word_serial"):
        dut = TaskGraphPipeline(graph, width=width, guard_bits=1, tag_width=4, timing=timing)
        run = run_stream(dut, payloads)
        for name in ("c", "s"):
            assert [o[name] for o in run.outputs] == codes[name].tolist(), (timing, name)
