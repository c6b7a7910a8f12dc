"""A processor's micro-program (robohw.hw.micro_program): each field holds, in every cycle of
the running program, the value its words give that cycle, hopped or not."""

import pytest
from amaranth.hdl import Module, Mux, Signal, unsigned
from amaranth.sim import Simulator

from robohw.hw.micro_program import MicroProgram

PERIOD = 7
# A field's value in the cycles the program names (0 and the last cycle among them: a hopped
# field's word for cycle 0 is the period's last).
WORDS = {0: 5, 2: 9, 3: 1, 6: 12}


@pytest.mark.parametrize("wrap", [None, PERIOD])
def test_every_field_holds_its_cycles_value_hopped_or_not(wrap):
    m = Module()
    pc = Signal(range(PERIOD))
    ahead = Signal(range(PERIOD), init=1)
    ahead2 = Signal(range(PERIOD), init=2)
    m.d.sync += [pc.eq(ahead), ahead.eq(ahead2),
                 ahead2.eq(Mux(ahead2 == PERIOD - 1, 0, ahead2 + 1))]
    program = MicroProgram(m, ahead, ahead2, "p", wrap=wrap)
    # Cycles a period later name the same words with wrap.
    words = {c + (PERIOD if wrap else 0): {"x": v, "y": 15 - v, "valid": 1}
             for c, v in WORDS.items()}
    plain = program.fetch({"x": unsigned(4), "valid": unsigned(1)}, words, "plain")
    hopped = program.fetch({"y": unsigned(4), "valid": unsigned(1)}, words, "hopped",
                           hopped=True)
    program.build(PERIOD)
    sim = Simulator(m)
    sim.add_clock(1e-6)
    seen = []

    async def bench(ctx):
        for _ in range(4 * PERIOD):
            await ctx.tick()
            seen.append((ctx.get(pc), ctx.get(plain["x"]), ctx.get(hopped["y"]),
                         ctx.get(plain["valid"]), ctx.get(hopped["valid"])))
    sim.add_testbench(bench)
    sim.run()
    # From the second period on (the first cycles read the ROM before the first word).
    for cycle, x, y, plain_valid, hopped_valid in seen[PERIOD:]:
        assert plain_valid == hopped_valid == int(cycle in WORDS)
        if cycle in WORDS:
            assert (x, y) == (WORDS[cycle], 15 - WORDS[cycle])


@pytest.mark.parametrize("hopped", [False, True])
def test_a_bit_the_same_in_every_word_is_a_constant_not_a_rom_column(hopped):
    # Such a bit's registers, equal in every micro-program of a design, were merged by
    # Yosys into one register driving fields across the chip (the board's limiting path).
    m = Module()
    ahead = Signal(range(PERIOD), init=1)
    ahead2 = Signal(range(PERIOD), init=2)
    m.d.sync += [ahead.eq(ahead2), ahead2.eq(Mux(ahead2 == PERIOD - 1, 0, ahead2 + 1))]
    program = MicroProgram(m, ahead, ahead2, "p", wrap=PERIOD)
    # Bit 1 of "x" is 1 in every word, bits 0 and 2 vary; "y" is 2 in every word.
    words = {c: {"x": 2 | (c & 1) | (c & 4), "y": 2} for c in range(PERIOD)}
    fields = program.fetch({"x": unsigned(3), "y": unsigned(2)}, words, "f", hopped=hopped)
    program.build(PERIOD)
    assert m.submodules["p_rom"].shape == unsigned(2)
    sim = Simulator(m)
    sim.add_clock(1e-6)
    seen = []

    async def bench(ctx):
        for _ in range(2 * PERIOD):
            seen.append((ctx.get(fields["x"]), ctx.get(fields["y"])))
            await ctx.tick()
    sim.add_testbench(bench)
    sim.run()
    # From reset on, before the ROM's first word arrives.
    assert all(x & 2 and y == 2 for x, y in seen)
    # From the second period on, every cycle's word (the program counter is 0 at reset).
    cycles = range(PERIOD, 2 * PERIOD)
    assert [x for x, _ in seen[PERIOD:]] == [words[c % PERIOD]["x"] for c in cycles]
