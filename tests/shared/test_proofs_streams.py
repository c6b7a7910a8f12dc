"""Formal proofs (SymbiYosys, Yices; ``make prove``): the stream contract of the stream-pipeline
base, its latency and its interval.

The base (:class:`~robohw.hw.stream.StreamPipeline`) is proven on reduced instances: a probe
whose datapath is cut down to a delay line carrying a 4-bit ``x`` beside the control's valid
and tag lines, with each control the designs use (a pipeline moving every cycle, word-serial
stages of ``period`` cycles and ``slots`` positions, a datapath folded by ``fold``). The
harness (``formal_streams.py``) numbers the input transfers through the tag and ties ``x`` to
the number, so an output whose tag or payload is not the next one in order fails a proof.

Each property has a mutant that must fail: an ``i.ready`` that ignores the output queue's
credits (a dropped ready), a data line one position short of the tag's (a payload that leaves
its tag), an output queue one entry short of the stated throughput.
"""

import pytest
from amaranth.hdl import Assert, Assume, Module, Mux, Signal, unsigned
from formal_streams import stream_contract

from robohw.flows.formal import prove
from robohw.hw.delay_line import tapped_delay_line
from robohw.hw.queue import QueueLane
from robohw.hw.stream import StreamPipeline

pytestmark = [pytest.mark.heavy, pytest.mark.formal]

WIDTH = TAG_WIDTH = 4
SCRAMBLE = 0b1010       # x = number ^ SCRAMBLE: the payload is not a copy of the tag


class _Probe(StreamPipeline):
    """The base with a datapath of one delay line: ``y = x + 1``, ``x`` delayed by the
    control's positions. ``mutant`` breaks it: ``"dropped_ready"``, ``"short_data"`` or
    ``"short_queue"``."""
    def __init__(self, stages, *, period=1, slots=1, fold=1, mutant=None):
        # (not _period, _fold: the base's own)
        self.stages, self.period, self.slots, self.fold = stages, period, slots, fold
        self._mutant = mutant
        super().__init__({"x": unsigned(WIDTH)}, {"y": unsigned(WIDTH)}, tag_width=TAG_WIDTH)

    @property
    def latency(self):
        return self.control_latency(self.stages, self.period)

    @property
    def interval(self):
        return self.fold if self.fold > 1 else self.period // self.slots

    def queue_depth(self, stages, interval=1, *, period=1, slots=1):
        depth = super().queue_depth(stages, interval, period=period, slots=slots)
        return depth - 1 if self._mutant == "short_queue" else depth

    def elaborate(self, platform):
        m = Module()
        if self.fold > 1:
            advance, result, _ = self.fold_control(m, self.stages, self.fold)
            positions = self.stages
        else:
            advance, result = self.pipeline_control(m, self.stages, period=self.period,
                                                    slots=self.slots)
            positions = self.stages * self.slots
        if self._mutant == "short_data":
            positions -= 1
        x = tapped_delay_line(m, self.i.payload.x, [positions], advance, "x")[positions]
        m.d.comb += result.y.eq(x + 1)
        if self._mutant == "dropped_ready":
            m.d.comb += self.i.ready.eq(1)     # the last assignment wins: credits ignored
        return m


def _contract(dut, **timing):
    # Never more inside than the output queue holds: the credits count every result on its way.
    if dut.period > 1:
        capacity = dut.queue_depth(dut.stages, period=dut.period, slots=dut.slots)
    else:
        capacity = dut.queue_depth(dut.stages, dut.fold)
    return stream_contract(
        dut, TAG_WIDTH, capacity,
        inputs={"x": lambda number: number ^ SCRAMBLE},
        payload_ok=lambda payload: payload.y == ((payload.tag ^ SCRAMBLE) + 1)[:WIDTH],
        **timing)


CONTROLS = {
    "every_cycle": dict(stages=1),
    "word_serial": dict(stages=2, period=3, slots=2),
    "folded": dict(stages=3, fold=3),
}

# The cycles each control takes an input in, once o.ready stays high, derived from the
# docstrings: every cycle; the last `slots` of every `period` (phase counted from reset);
# phase 0 of every `fold`.
ACCEPTS = {
    "every_cycle": (1, lambda phase: 1),
    "word_serial": (3, lambda phase: phase >= 3 - 2),
    "folded": (3, lambda phase: phase == 0),
}
# Latency in cycles: each stage's period, and two for the output queue (its memory's write,
# then its read register).
LATENCY = {"every_cycle": 1 + 2, "word_serial": 2 * 3 + 2, "folded": 3 + 2}
# Cycles from reset the bounded proofs cover: enough for results to fill the output queue (4, 8
# and 3 entries) at least once: up to 13, 8 and 7 writes (inputs in the accepting cycles, each
# written a latency later). The solver's time grows steeply with the bound (the
# every-cycle contract: 37 s at 16 cycles, 231 s at 20; the word-serial one 11 s at 20, 213 s
# at 24).
DEPTH = {"every_cycle": 16, "word_serial": 20, "folded": 24}


@pytest.mark.parametrize("control", CONTROLS)
def test_the_base_loses_duplicates_and_reorders_nothing_under_any_stalls(control, tmp_path):
    m, ports = _contract(_Probe(**CONTROLS[control]))
    proof = prove(m, ports, f"contract_{control}", tmp_path, mode="bmc", depth=DEPTH[control])
    assert proof.passed, proof.folder


@pytest.mark.parametrize("control", CONTROLS)
def test_the_base_has_its_stated_latency_and_interval(control, tmp_path):
    dut = _Probe(**CONTROLS[control])
    assert dut.latency == LATENCY[control]
    m, ports = _contract(dut, always_ready=True, latency=LATENCY[control],
                         accepts=ACCEPTS[control])
    proof = prove(m, ports, f"timing_{control}", tmp_path, mode="bmc", depth=DEPTH[control])
    assert proof.passed, proof.folder


@pytest.mark.parametrize("control, mutant", [("every_cycle", "dropped_ready"),
                                             ("word_serial", "short_data"),
                                             ("folded", "short_data")])
def test_a_broken_base_breaks_the_contract(control, mutant, tmp_path):
    m, ports = _contract(_Probe(**CONTROLS[control], mutant=mutant))
    proof = prove(m, ports, f"contract_{control}_{mutant}", tmp_path, mode="bmc",
                  depth=DEPTH[control])
    assert proof.status == "FAIL"


def test_a_queue_one_entry_short_misses_the_interval(tmp_path):
    dut = _Probe(**CONTROLS["every_cycle"], mutant="short_queue")
    m, ports = _contract(dut, always_ready=True, latency=LATENCY["every_cycle"],
                         accepts=ACCEPTS["every_cycle"])
    proof = prove(m, ports, "timing_short_queue", tmp_path, mode="bmc",
                  depth=DEPTH["every_cycle"])
    assert proof.status == "FAIL"


def _queue_lane_harness(depth, built=None):
    """A :class:`QueueLane` of ``built`` entries (default ``depth``) written by a writer that
    keeps at most ``depth`` in it, following one entry, chosen by the solver, from its write to
    its read: it must come out after the ``ahead`` entries written before it, unchanged.

    For induction the harness states where the entry is: in the memory ``ahead`` entries (less
    the one at ``r_data``) past the read pointer, then at ``r_data``. The lane is elaborated
    here so the harness can read its memory through a port of its own; the memory's write and
    read addresses are the lane's pointers."""
    m = Module()
    lane = QueueLane(unsigned(WIDTH), built or depth)
    m.submodules.lane = lane_module = lane.elaborate(None)
    memory = lane_module.submodules["memory"]
    head, tail = memory.write_ports[0].addr, memory.read_ports[0].addr
    rows = built or depth
    read = lane.r_valid & lane.r_ready
    held = Signal(range(depth + 2))            # entries in the lane, r_data's included
    m.d.sync += held.eq(held + lane.w_en - read)
    m.d.comb += Assume(~lane.w_en | (held < depth))   # the writer's credits
    mark, tracking = Signal(), Signal()
    marked, ahead = Signal(WIDTH), Signal(range(depth + 1))
    with m.If(~tracking & mark & lane.w_en):
        m.d.sync += [tracking.eq(1), marked.eq(lane.w_data), ahead.eq(held - read)]
    with m.Elif(tracking & read):
        with m.If(ahead == 0):
            m.d.sync += tracking.eq(0)             # out: another may be followed
        with m.Else():
            m.d.sync += ahead.eq(ahead - 1)
    used = Signal(range(rows))                 # entries in the memory, unread
    m.d.comb += used.eq(Mux(head >= tail, head - tail, head + rows - tail))
    at_data = lane.r_valid & (ahead == 0)
    position = ahead - lane.r_valid            # in the memory, from the read pointer
    probe = memory.read_port(domain="comb")
    m.d.comb += probe.addr.eq((tail + position) % rows)
    m.d.comb += [
        Assert((head < rows) & (tail < rows)),
        Assert(held == used + lane.r_valid),
        Assert(~tracking | (ahead < held)),
        Assert(~(tracking & at_data) | (lane.r_data == marked)),
        Assert(~(tracking & ~at_data) | ((position < used) & (probe.data == marked))),
    ]
    return m, [lane.w_data, lane.w_en, lane.r_ready, mark]


def test_a_queue_lane_is_a_fifo(tmp_path):
    m, ports = _queue_lane_harness(5)
    proof = prove(m, ports, "queue_lane", tmp_path, mode="prove", depth=4)
    assert proof.passed, proof.folder


def test_a_queue_lane_shorter_than_its_writer_thinks_fails(tmp_path):
    m, ports = _queue_lane_harness(5, built=4)
    proof = prove(m, ports, "queue_lane_short", tmp_path, mode="bmc", depth=12)
    assert proof.status == "FAIL"
