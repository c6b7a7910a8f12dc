"""The stream-pipeline base: eager argument checks with the messages users see, and the
handshake it writes once for every pipeline, on a pipeline of plain registers."""

import numpy as np
import pytest
from amaranth.hdl import Assert, Module, signed

from robohw.hw.delay_line import tapped_delay_line
from robohw.hw.stream import StreamPipeline
from robohw.ik.pipeline import TaskGraphPipeline, plan_pipeline
from robohw.ik.puma_graph import best_graph
from robohw.robots import load_robot
from robohw.sim.harness import run_stream
from robohw.systolic import LinearInertiaArray


class Delay(StreamPipeline):
    """``o.value = i.value + 1`` after ``stages`` register stages, advancing once per
    ``period`` cycles; with ``copied`` the stages after the first move on a copy of the
    enable (:meth:`StreamPipeline.enable_copy`)."""
    def __init__(self, stages, period=1, tag_width=4, copied=False):
        self.stages, self.period, self.copied = stages, period, copied
        super().__init__({"value": signed(8)}, {"value": signed(8)}, tag_width=tag_width)

    @property
    def latency(self):
        return self.control_latency(self.stages, self.period)

    @property
    def interval(self):
        return self.period

    def elaborate(self, platform):
        m = Module()
        advance, result = self.pipeline_control(m, self.stages, period=self.period)
        if not self.copied:
            line = tapped_delay_line(m, self.i.payload.value + 1, [self.stages], advance, "data")
            m.d.comb += result.value.eq(line[self.stages])
            return m
        copy = self.enable_copy(m, "advance_copy")
        m.d.comb += Assert(copy == advance, "the copy of the enable differs")
        first = tapped_delay_line(m, self.i.payload.value + 1, [1], advance, "first")[1]
        line = tapped_delay_line(m, first, [self.stages - 1], copy, "rest")
        m.d.comb += result.value.eq(line[self.stages - 1])
        return m


@pytest.mark.parametrize("stages, period, copied", [(1, 1, False), (3, 1, False), (4, 3, False),
                                                    (5, 1, True)])
def test_nothing_lost_duplicated_or_reordered_under_stalls(stages, period, copied):
    source, sink = [1, 0, 1, 1, 0, 1], [1, 1, 0, 1, 0, 0, 1]
    payloads = [{"value": v, "tag": k % 16} for k, v in enumerate(range(-20, 20))]
    run = run_stream(Delay(stages, period, copied=copied), payloads, source_valid=lambda c: source[c % 6],
                     sink_ready=lambda c: sink[c % 7])
    assert [o["value"] for o in run.outputs] == [p["value"] + 1 for p in payloads]
    assert [o["tag"] for o in run.outputs] == [p["tag"] for p in payloads]


@pytest.mark.parametrize("stages, period", [(1, 1), (3, 1), (4, 3)])
def test_latency_and_interval_without_stalls(stages, period):
    run = run_stream(Delay(stages, period), [{"value": v} for v in range(10)])
    # stages advances of period cycles each, or with period 1 the stages and the output
    # buffer's register; one result per period.
    assert run.output_cycles[0] - run.input_cycles[0] == (stages + 1 if period == 1
                                                          else stages * period)
    assert set(np.diff(run.output_cycles).tolist()) == {period}


@pytest.mark.parametrize("tag_width", [-1, 1.5, True, "8"])
def test_tag_width_is_checked(tag_width):
    with pytest.raises(ValueError, match="tag_width must be a non-negative integer, not"):
        Delay(1, tag_width=tag_width)


def test_enable_copy_needs_the_registered_enable():
    class Early(Delay):
        def elaborate(self, platform):
            self.enable_copy(Module(), "copy")
    with pytest.raises(ValueError, match="enable_copy needs pipeline_control with period 1"):
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
    with pytest.raises(ValueError, match=r"width must be in \[4, 40\], not 64"):
        plan_pipeline(graph, width=64)
    with pytest.raises(TypeError, match="check_alignment must be a bool"):
        TaskGraphPipeline(graph, check_alignment=1)


def test_inertia_array_checks_its_arguments():
    with pytest.raises(ValueError, match="tag_width must be a non-negative integer, not -2"):
        LinearInertiaArray(tag_width=-2)
    with pytest.raises(TypeError, match="check_ranges must be a bool"):
        LinearInertiaArray(check_ranges="yes")
