"""Formal proofs (SymbiYosys, k-induction with Yices; ``make prove``): the delay lines.

Each proof follows one value: the solver picks the inputs of every cycle, and the cycle in
which the tracked value enters (``mark``, once). From then on the harness counts the enabled
cycles and asserts that the line's output shows the tracked value when the count equals the
line's stages. Because the solver picks the value, the cycle and every enable, this covers
every value through every tap under every stall pattern, in every reachable state (the
proofs are unbounded: k-induction). Each proof has a mutant that must fail: a line one stage
short of what it claims.
"""

import pytest
from amaranth.hdl import Assert, Module, Mux, Signal

from robohw.flows.formal import prove
from robohw.hw.delay_line import MIN_MEMORY_STAGES, memory_delay, tapped_delay_line

pytestmark = [pytest.mark.heavy, pytest.mark.formal]

WIDTH = 4       # the value's width: the logic is the same for every bit


def _follow(m, value, enable, longest):
    """The harness's tracking of one value into ``m``: returns ``(tracking, count, marked,
    ports)``, ``count`` being the enabled cycles since the value entered (1 after its own),
    up to ``longest + 1``, and ``ports`` the free inputs it adds."""
    mark = Signal()
    tracking, marked = Signal(), Signal(WIDTH)
    count = Signal(range(longest + 2))
    with m.If(~tracking & mark & enable):
        m.d.sync += [tracking.eq(1), marked.eq(value), count.eq(1)]
    with m.Elif(tracking & enable & (count <= longest)):
        m.d.sync += count.eq(count + 1)
    m.d.comb += Assert(~tracking | count.any())    # for induction: the count starts at 1
    return tracking, count, marked, [mark]


def _shift_line_harness(stages, claimed):
    """A shift-register line with a tap at every stage up to ``stages`` (one line serves
    every tap, so the sparse lines are these registers), each asserted to hold the tracked
    value when the count is its claimed stage: ``claimed(tap)``."""
    m = Module()
    value, enable = Signal(WIDTH), Signal()
    out = tapped_delay_line(m, value, range(1, stages + 1), enable, "line")
    tracking, count, marked, ports = _follow(m, value, enable, claimed(stages))
    for tap, stage in out.items():
        m.d.comb += Assert(~(tracking & (count == claimed(tap))) | (stage == marked))
    return m, [value, enable, *ports]


def test_a_shift_register_line_delays_every_tap_by_its_count_of_enables(tmp_path):
    m, ports = _shift_line_harness(6, claimed=lambda tap: tap)
    proof = prove(m, ports, "shift_line", tmp_path, mode="prove", depth=4)
    assert proof.passed, proof.folder


def test_a_shift_register_line_one_stage_short_fails(tmp_path):
    # Claimed one stage longer than it is: the proof must find the counterexample.
    m, ports = _shift_line_harness(6, claimed=lambda tap: tap + 1)
    proof = prove(m, ports, "shift_line_short", tmp_path, mode="prove", depth=4)
    assert proof.status == "FAIL" and (proof.folder / "engine_0" / "trace.vcd").exists()


def _memory_harness(stages, claimed):
    """:func:`memory_delay` of ``stages``, asserted to show the tracked value after
    ``claimed`` enabled cycles.

    For induction the harness also states where the value is on its way: in its row of the
    memory (read through a port the harness adds) until the row pointer comes back to it, then
    in the read port's register, then at the output. The memory's ports are reached through
    the submodule :func:`memory_delay` adds; its write address is the row pointer."""
    m = Module()
    value, enable = Signal(WIDTH), Signal()
    out = memory_delay(m, value, stages, enable, "mem")
    memory = m.submodules["mem"]
    pointer, read = memory.write_ports[0].addr, memory.read_ports[0]
    rows = stages - 2
    tracking, count, marked, ports = _follow(m, value, enable, max(stages, claimed))
    row = Signal.like(pointer)                      # the tracked value's row
    expected = Signal.like(pointer)                 # where the pointer must be
    with m.If(~tracking):
        m.d.sync += [row.eq(pointer), expected.eq(Mux(pointer == rows - 1, 0, pointer + 1))]
    with m.Elif(enable):
        m.d.sync += expected.eq(Mux(expected == rows - 1, 0, expected + 1))
    probe = memory.read_port(domain="comb")
    m.d.comb += probe.addr.eq(row)
    on_its_way = [
        (count <= stages, (pointer == expected) & (expected == (row + count) % rows)),
        (count <= rows, probe.data == marked),        # written, not yet overwritten
        (count == rows + 1, read.data == marked),     # read as its row was overwritten
        (count == rows + 2, out == marked),           # the line's last register
    ]
    for when, holds in on_its_way:
        m.d.comb += Assert(~(tracking & when) | holds)
    m.d.comb += Assert(~(tracking & (count == claimed)) | (out == marked))
    return m, [value, enable, *ports]


@pytest.mark.parametrize("stages", [MIN_MEMORY_STAGES, 6])
def test_a_memory_line_delays_by_its_stages(stages, tmp_path):
    m, ports = _memory_harness(stages, claimed=stages)
    proof = prove(m, ports, f"memory_line_{stages}", tmp_path, mode="prove", depth=4)
    assert proof.passed, proof.folder


def test_a_memory_line_one_stage_short_fails(tmp_path):
    # Bounded: the induction's base case of 4 cycles is too short to reach the 7th enable.
    m, ports = _memory_harness(6, claimed=7)
    proof = prove(m, ports, "memory_line_short", tmp_path, mode="bmc", depth=10)
    assert proof.status == "FAIL"


def _mixed_harness(claimed):
    """A tapped line of taps 2 and 7 with ``memory_above=3``: registers to tap 2, then a
    memory of 5 stages to tap 7, as :func:`tapped_delay_line` builds long gaps."""
    m = Module()
    value, enable = Signal(WIDTH), Signal()
    out = tapped_delay_line(m, value, [2, 7], enable, "mixed", memory_above=3)
    m.submodules["mixed_m2"]            # the memory segment is there (a KeyError if not)
    tracking, count, marked, ports = _follow(m, value, enable, claimed(7))
    for tap, stage in out.items():
        m.d.comb += Assert(~(tracking & (count == claimed(tap))) | (stage == marked))
    return m, [value, enable, *ports]


def test_a_tapped_line_of_registers_and_memory_delays_every_tap(tmp_path):
    # Bounded (the memory's rows are inside the line: see the memory line's own induction
    # proof): 3 x 7 + 4 cycles, so the memory's row pointer turns more than three times.
    m, ports = _mixed_harness(lambda tap: tap)
    proof = prove(m, ports, "mixed_line", tmp_path, mode="bmc", depth=3 * 7 + 4)
    assert proof.passed, proof.folder


def test_a_tapped_line_whose_memory_is_one_stage_short_fails(tmp_path):
    # The memory's tap claimed one stage longer; the register tap as it is.
    m, ports = _mixed_harness(lambda tap: tap + (tap == 7))
    proof = prove(m, ports, "mixed_line_short", tmp_path, mode="bmc", depth=12)
    assert proof.status == "FAIL"
