"""Formal proofs (SymbiYosys, k-induction with Yices; ``make prove``): the delay lines.

Each proof follows one value: the solver picks the inputs of every cycle, and the cycle in
which the tracked value enters (``mark``, once). From then on the harness counts the enabled
cycles and asserts that each tap shows the tracked value exactly when the count equals the
tap. Because the solver picks the value, the cycle and every enable, this covers every value
through every tap under every stall pattern. Each proof has a mutant that must fail: a line
one stage short of what it claims.
"""

import pytest

from amaranth.hdl import Assert, Module, Signal

from robohw.flows.formal import prove
from robohw.hw.delay_line import MIN_MEMORY_STAGES, memory_delay, tapped_delay_line

pytestmark = [pytest.mark.slow, pytest.mark.formal]

WIDTH = 4       # the value's width: the logic is the same for every bit


def _follow(m, value, enable, lines):
    """The harness's tracking of one value into ``m``: returns ``(tracking, count, marked,
    ports)``, ``count`` being the enabled cycles since the value entered (1 after its own),
    up to one past the longest of ``lines``, and ``ports`` the free inputs it adds."""
    mark = Signal()
    tracking, marked = Signal(), Signal(WIDTH)
    count = Signal(range(max(lines) + 2))
    with m.If(~tracking & mark & enable):
        m.d.sync += [tracking.eq(1), marked.eq(value), count.eq(1)]
    with m.Elif(tracking & enable & (count <= max(lines))):
        m.d.sync += count.eq(count + 1)
    m.d.comb += Assert(~tracking | count.any())    # for induction: the count starts at 1
    return tracking, count, marked, [mark]


def _shift_line_harness(taps, claimed):
    """A shift-register line with a tap at every stage up to ``max(taps)`` (one line serves
    every tap, so the sparse lines are these registers), each asserted to hold the tracked
    value when the count is its claimed stage: ``claimed(tap)``."""
    m = Module()
    value, enable = Signal(WIDTH), Signal()
    out = tapped_delay_line(m, value, range(1, max(taps) + 1), enable, "line")
    tracking, count, marked, ports = _follow(m, value, enable, [claimed(max(taps))])
    for tap, stage in out.items():
        m.d.comb += Assert(~(tracking & (count == claimed(tap))) | (stage == marked))
    return m, [value, enable, *ports]


def test_a_shift_register_line_delays_every_tap_by_its_count_of_enables(tmp_path):
    m, ports = _shift_line_harness([6], claimed=lambda tap: tap)
    proof = prove(m, ports, "shift_line", tmp_path, mode="prove", depth=4)
    assert proof.passed, proof.folder


def test_a_shift_register_line_one_stage_short_fails(tmp_path):
    # Claimed one stage longer than it is: the proof must find the counterexample.
    m, ports = _shift_line_harness([6], claimed=lambda tap: tap + 1)
    proof = prove(m, ports, "shift_line_short", tmp_path, mode="prove", depth=4)
    assert proof.status == "FAIL" and (proof.folder / "engine_0" / "trace.vcd").exists()


def _memory_harness(stages, claimed):
    """:func:`memory_delay` of ``stages``, asserted to show the tracked value after
    ``claimed`` enabled cycles."""
    m = Module()
    value, enable = Signal(WIDTH), Signal()
    out = memory_delay(m, value, stages, enable, "mem")
    tracking, count, marked, ports = _follow(m, value, enable, [claimed])
    m.d.comb += Assert(~(tracking & (count == claimed)) | (out == marked))
    return m, [value, enable, *ports]


@pytest.mark.parametrize("stages", [MIN_MEMORY_STAGES, 6])
def test_a_memory_line_delays_by_its_stages_in_the_first_cycles(stages, tmp_path):
    # Bounded (the harness cannot see the memory's rows to state an invariant over them, so
    # no induction): every trace of 3 * stages + 4 cycles from reset, stalls anywhere, so
    # values entering after the row pointer has turned more than once are among those
    # checked at their tap.
    m, ports = _memory_harness(stages, claimed=stages)
    proof = prove(m, ports, f"memory_line_{stages}", tmp_path, mode="bmc",
                  depth=3 * stages + 4)
    assert proof.passed, proof.folder


def test_a_memory_line_one_stage_short_fails(tmp_path):
    m, ports = _memory_harness(6, claimed=7)
    proof = prove(m, ports, "memory_line_short", tmp_path, mode="bmc", depth=3 * 6 + 4)
    assert proof.status == "FAIL"


def test_proof_arguments_are_checked(tmp_path):
    m = Module()
    with pytest.raises(ValueError, match="mode must be one of prove, bmc, not 'cover'"):
        prove(m, [], "x", tmp_path, mode="cover")
    with pytest.raises(ValueError, match="depth must be a positive integer, not 0"):
        prove(m, [], "x", tmp_path, depth=0)
    with pytest.raises(ValueError, match="name must be an identifier"):
        prove(m, [], "a/b", tmp_path)
