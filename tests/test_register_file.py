"""Register files of planned programs: the allocation, the read trees, the write enables."""

import numpy as np
import pytest
from amaranth.hdl import Module, Signal, signed
from amaranth.sim import Simulator

from robohw.hw.register_file import left_edge, one_hot, read_port


def test_left_edge_shares_registers_between_values_that_do_not_overlap():
    rng = np.random.default_rng(1)
    for _ in range(50):
        first = rng.integers(0, 60, 40)
        lives = {k: (int(f), int(f + rng.integers(-1, 20))) for k, f in enumerate(first)}
        registers = left_edge(lives)
        by_register = {}
        for key, r in registers.items():
            by_register.setdefault(r, []).append(lives[key])
        for spans in by_register.values():
            spans.sort()
            # A value holds its register from its first cycle to its last read (at least its
            # first cycle); the next is written after that read.
            for (low, high), (next_low, _) in zip(spans, spans[1:]):
                assert max(low, high) < next_low
        alive = max(sum(f <= c <= max(f, last) for f, last in lives.values())
                    for c in range(100))
        assert max(registers.values()) + 1 == alive


def test_left_edge_gives_the_lowest_free_register_in_order_of_first_cycles():
    # a: 0-3, b: 1-2, c: 3-5 (a is still read at 3), d: 4-4 (b's register is free).
    assert left_edge({"a": (0, 3), "b": (1, 2), "c": (3, 5), "d": (4, 4)}) == \
        {"a": 0, "b": 1, "c": 1, "d": 0}


def test_read_port_selects_the_addressed_register_and_checks_the_address():
    registers = [Signal(signed(7), name=f"r{k}", init=v) for k, v in
                 enumerate([-64, 63, -1, 5, 0])]
    address = [Signal(3, name="a0"), Signal(3, name="a1")]   # two copies: two slices
    out = Signal(signed(7))
    m = Module()
    m.d.comb += out.eq(read_port(registers, address))
    enables = one_hot(m, address[0] < 4, address[0], 5, "enables")
    sim = Simulator(m)
    sim.add_clock(1e-6)

    async def bench(ctx):
        for k, value in enumerate([-64, 63, -1, 5, 0]):
            ctx.set(address[0], k)
            ctx.set(address[1], k)
            assert ctx.get(out) == value
            await ctx.tick()
            assert ctx.get(enables) == (1 << k if k < 4 else 0)
    sim.add_testbench(bench)
    sim.run()
    with pytest.raises(ValueError, match="a 2-bit address reaches 4 of 5 registers"):
        read_port(registers, [Signal(2)])
