"""Delay lines: a memory-backed line equals the shift register it replaces, tap for tap, under
every enable pattern."""

import numpy as np
import pytest
from amaranth.hdl import Module, Signal, signed
from amaranth.sim import Simulator

from robohw.hw import delay_line
from robohw.hw.delay_line import memory_delay, tapped_delay_line


def _run(taps, memory_above, cycles=300, seed=0):
    """Per cycle, the taps of a shift-register line and of a line with memories."""
    m = Module()
    value, enable = Signal(signed(12)), Signal()
    plain = tapped_delay_line(m, value, taps, enable, "plain")
    mixed = tapped_delay_line(m, value, taps, enable, "mixed", memory_above=memory_above)
    rng = np.random.default_rng(seed)
    seen = []

    async def bench(ctx):
        for _ in range(cycles):
            ctx.set(value, int(rng.integers(-2048, 2048)))
            ctx.set(enable, int(rng.random() < 0.7))
            await ctx.tick()
            seen.append(([ctx.get(plain[t]) for t in sorted(set(taps))],
                         [ctx.get(mixed[t]) for t in sorted(set(taps))]))
    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return seen


@pytest.mark.parametrize("taps, memory_above", [
    ([0, 3], 2), ([5], 2), ([3, 9, 10, 40], 4), ([1, 2, 3, 6], 2), ([7, 30], 10)])
def test_a_memory_line_equals_the_shift_register(taps, memory_above):
    seen = _run(taps, memory_above)
    assert all(plain == mixed for plain, mixed in seen)
    assert len({tuple(p) for p, _ in seen}) > 100      # the values really move


def test_an_off_by_one_memory_is_seen(monkeypatch):
    # A mutant that keeps one row too many delays one enabled cycle too long.
    real = delay_line.memory_delay

    def longer(m, value, stages, enable, name):
        return real(m, value, stages + 1, enable, name)
    monkeypatch.setattr(delay_line, "memory_delay", longer)
    seen = _run([6], 2)
    assert any(plain != mixed for plain, mixed in seen)


def test_bad_arguments_are_refused():
    m = Module()
    value, enable = Signal(8), Signal()
    with pytest.raises(ValueError, match="memory_above must be an integer of at least 2, not 1"):
        tapped_delay_line(m, value, [4], enable, "x", memory_above=1)
    with pytest.raises(ValueError, match="x: a line that resets cannot be a memory"):
        tapped_delay_line(m, value, [4], enable, "x", reset_less=False, memory_above=2)
    with pytest.raises(ValueError, match="y: stages must be an integer of at least 3, not 2"):
        memory_delay(m, value, 2, enable, "y")
