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
