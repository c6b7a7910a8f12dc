"""Register files of planned programs: the allocation, the read trees, the banked files."""

import numpy as np
import pytest
from amaranth.hdl import Fragment, Module, Signal, signed
from amaranth.sim import Simulator

from robohw.hw.register_file import TREE_LEVELS_PER_SIGNAL, BankedFile, left_edge, read_port


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
    address = Signal(3, name="address")
    out = Signal(signed(7))
    m = Module()
    m.d.comb += out.eq(read_port(registers, address))
    sim = Simulator(m)

    async def bench(ctx):
        for k, value in enumerate([-64, 63, -1, 5, 0]):
            ctx.set(address, k)
            assert ctx.get(out) == value
    sim.add_testbench(bench)
    sim.run()
    with pytest.raises(ValueError, match="a 2-bit address reaches 4 of 5 registers"):
        read_port(registers, Signal(2))


def test_read_port_in_a_module_reads_the_same_through_its_level_signals():
    # 37 registers, 6 address bits: levels 5..0, signals at level 3 over registers 0-15 and
    # 16-31 (32-36 sit under a shorter subtree); both reads agree at every address.
    values = [(-1) ** k * (k * 37 % 101) for k in range(37)]
    registers = [Signal(signed(8), name=f"r{k}", init=v) for k, v in enumerate(values)]
    address = Signal(6, name="address")
    plain, wired = Signal(signed(8)), Signal(signed(8))
    m = Module()
    m.d.comb += [plain.eq(read_port(registers, address)),
                 wired.eq(read_port(registers, address, m=m, name="file"))]
    fragment = Fragment.get(m, None)
    level = TREE_LEVELS_PER_SIGNAL - 1
    names = sorted(str(stmt.lhs.name) for stmt in fragment.statements["comb"]
                   if isinstance(stmt.lhs, Signal) and stmt.lhs.name.startswith("file"))
    assert names == [f"file_l{level}_0", f"file_l{level}_16"]
    sim = Simulator(m)

    async def bench(ctx):
        for k in range(64):
            ctx.set(address, k)
            assert ctx.get(wired) == ctx.get(plain)
            if k < len(values):
                assert ctx.get(wired) == values[k]
    sim.add_testbench(bench)
    sim.run()


def test_banked_file_writes_each_bank_and_reads_any_register_through_its_fields():
    # Registers 0-1 fixed signals (inputs), 2-4 bank "x", 5 bank "y" (one word: a memory of
    # two, so the exported address has a bit).
    fixed = [Signal(signed(8), name=f"in{k}", init=v) for k, v in enumerate([-7, 100])]
    banks = {0: "in", 1: "in", 2: "x", 3: "x", 4: "x", 5: "y"}
    m = Module()
    file = BankedFile(m, "f", banks, signed(8), {0: fixed[0], 1: fixed[1]})
    assert file.depth("x") == 3 and file.depth("y") == 2 and file.depth("in") == 2
    assert [file.address(r) for r in range(6)] == [0, 1, 0, 1, 2, 0]
    registers = [0, 1, 3, 4, 5]              # what the port reads: every bank but x's word 0
    widths = file.widths("p", registers)
    assert widths == {"p_in_in": 1, "p_at_in": 1, "p_in_x": 1, "p_at_x": 2,
                      "p_in_y": 1, "p_at_y": 1}
    held = {name: Signal(bits, name=name) for name, bits in widths.items()}
    out = Signal(signed(8))
    m.d.comb += out.eq(file.read(m, held, "p", registers))
    write = {bank: (Signal(name=f"{bank}_en"), Signal(2, name=f"{bank}_at"),
                    Signal(signed(8), name=f"{bank}_data")) for bank in "xy"}
    for bank, (enable, address, value) in write.items():
        file.write(m, bank, enable, address, value)
    peek = Signal(signed(8))
    m.d.comb += peek.eq(file.peek(m, 4))
    with pytest.raises(ValueError, match="bank 'in' is fixed signals"):
        file.write(m, "in", Signal(), Signal(), Signal(8))
    sim = Simulator(m)
    sim.add_clock(1e-6)
    contents = {0: -7, 1: 100, 3: -128, 4: 127, 5: 42}

    async def bench(ctx):
        for register in (3, 4, 5):          # one write a cycle, x then y
            enable, address, value = write[banks[register]]
            ctx.set(enable, 1)
            ctx.set(address, file.address(register))
            ctx.set(value, contents[register])
            await ctx.tick()
            ctx.set(enable, 0)
        assert ctx.get(peek) == 127
        for register in registers + [None]:
            for name, value in file.fields("p", registers, register).items():
                ctx.set(held[name], value)
            assert ctx.get(out) == (0 if register is None else contents[register])
    sim.add_testbench(bench)
    sim.run()


def test_banked_file_checks_its_banks():
    with pytest.raises(ValueError, match="bank 'x': its registers are not one run: 3 follows 1"):
        BankedFile(Module(), "f", {0: "y", 1: "x", 3: "x"}, signed(8))
    with pytest.raises(ValueError, match="a bank is either fixed signals or a memory"):
        BankedFile(Module(), "f", {0: "x", 1: "x"}, signed(8), {0: Signal(8)})
    with pytest.raises(ValueError, match=r"fixed registers \[2\] are in no bank"):
        BankedFile(Module(), "f", {0: "x", 1: "x"}, signed(8), {2: Signal(8)})
