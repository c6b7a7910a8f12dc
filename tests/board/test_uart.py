"""The UART (robohw.board.uart): its transmitter's line bit by bit, its receiver from a line
driven by the test at its own bit time and others up to 4 % away, back to back, a glitch that
is not a start bit, a framing error and an overrun flagged, the two looped back under a
consumer that stalls, and its arguments checked."""

import numpy as np
import pytest
from amaranth.hdl import Module
from amaranth.sim import Simulator

from robohw.board.uart import BITS_PER_BYTE, UARTReceiver, UARTTransmitter


def _line_bits(byte, stop=1):
    """A byte's bits on the line: start, data from the lowest, stop."""
    return [0] + [(byte >> k) & 1 for k in range(8)] + [stop]


def test_the_transmitter_sends_8n1_one_bit_every_divisor_cycles():
    divisor = 5
    dut = UARTTransmitter(divisor)
    sent, line = [0x35, 0xCA, 0x00, 0xFF], []

    async def bench(ctx):
        for byte in sent:
            ctx.set(dut.i.payload, byte)
            ctx.set(dut.i.valid, 1)
            await ctx.tick().until(dut.i.ready)
        ctx.set(dut.i.valid, 0)

    async def watch(ctx):
        async for _, _, tx in ctx.tick().sample(dut.tx):
            line.append(tx)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.add_process(watch)
    sim.run_until(1e-6 * (len(sent) * BITS_PER_BYTE * divisor + 20))
    start = line.index(0)
    expected = [bit for byte in sent for bit in _line_bits(byte) for _ in range(divisor)]
    # Back to back: each byte's start bit follows the last one's stop bit; then idle.
    assert line[start:start + len(expected)] == expected
    assert set(line[:start]) == {1} and set(line[start + len(expected):]) == {1}


def _receive(divisor, bits, bit_time, ready=lambda cycle: True):
    """What a receiver of ``divisor`` gives for ``bits`` driven on its line ``bit_time``
    cycles each (a float: the sender's clock), its consumer ready where ``ready(cycle)``."""
    dut = UARTReceiver(divisor)
    got = []

    async def drive(ctx):
        edges = np.floor(np.arange(len(bits) + 1) * bit_time).astype(int) + 7
        cycle = 0
        for bit, (begin, end) in zip(bits, zip(edges, edges[1:])):
            while cycle < end:
                ctx.set(dut.rx, bit if cycle >= begin else 1)
                await ctx.tick()
                cycle += 1
        ctx.set(dut.rx, 1)

    async def take(ctx):
        cycle = 0
        while True:
            ctx.set(dut.o.ready, int(ready(cycle)))
            if ctx.get(dut.o.valid) and ready(cycle):       # taken at this clock edge
                got.append((ctx.get(dut.o.payload.data), ctx.get(dut.o.payload.error)))
            await ctx.tick()
            cycle += 1

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(drive)
    sim.add_testbench(take, background=True)
    sim.run_until(1e-6 * (len(bits) * bit_time + 4 * divisor + 40))
    return got


# (divisor, the sender's bit time over it): at four cycles a bit the sample lands within a cycle
# of the middle, so no skew; at 7 and 32, 4 % either way.
SKEWS = [(4, 1.0), (7, 0.96), (7, 1.0), (7, 1.04), (32, 0.96), (32, 1.0), (32, 1.04)]


@pytest.mark.parametrize("divisor, skew", SKEWS)
def test_the_receiver_takes_bytes_back_to_back_within_the_clocks_tolerance(divisor, skew):
    rng = np.random.default_rng(divisor)
    sent = [0x00, 0xFF, 0x55, 0xAA] + [int(b) for b in rng.integers(0, 256, 12)]
    bits = [bit for byte in sent for bit in _line_bits(byte)]
    assert _receive(divisor, bits, divisor * skew) == [(b, 0) for b in sent]


def test_a_glitch_is_not_a_start_bit_and_a_low_stop_bit_is_a_framing_error():
    divisor = 16
    # In quarter bits: a low pulse of a quarter bit, then 0x3C with its stop bit low, then 0xC3.
    bits = [1] * 8 + [0] + [1] * 11 + _line_bits(0x3C, stop=0) + [1] * 2 + _line_bits(0xC3)
    quarters = bits[:20] + [bit for bit in bits[20:] for _ in range(4)]
    assert _receive(divisor, quarters, divisor / 4) == [(0x3C, 1), (0xC3, 0)]


def test_a_byte_that_finds_the_last_untaken_is_flagged_an_overrun():
    divisor = 8
    sent = [0x11, 0x22, 0x33]
    bits = [bit for byte in sent for bit in _line_bits(byte)]
    # The consumer takes nothing until the third byte has arrived.
    late = len(bits) * divisor + 10
    got = _receive(divisor, bits, divisor, ready=lambda cycle: cycle >= late)
    assert got == [(0x33, 1)]


def test_transmitter_to_receiver_loops_every_byte_under_a_stalling_consumer():
    divisor = 6
    m = Module()
    m.submodules.tx = tx = UARTTransmitter(divisor)
    m.submodules.rx = rx = UARTReceiver(divisor)
    m.d.comb += rx.rx.eq(tx.tx)
    rng = np.random.default_rng(3)
    sent = [int(b) for b in rng.integers(0, 256, 40)]
    got = []

    async def send(ctx):
        for byte in sent:
            ctx.set(tx.i.payload, byte)
            ctx.set(tx.i.valid, 1)
            await ctx.tick().until(tx.i.ready)
        ctx.set(tx.i.valid, 0)

    async def take(ctx):
        while len(got) < len(sent):
            # Ready in half the cycles: a byte waits a few cycles, never a byte time.
            ready = rng.random() < 0.5
            ctx.set(rx.o.ready, int(ready))
            if ctx.get(rx.o.valid) and ready:
                got.append((ctx.get(rx.o.payload.data), ctx.get(rx.o.payload.error)))
            await ctx.tick()

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(send)
    sim.add_testbench(take)
    sim.run()
    assert got == [(b, 0) for b in sent]


@pytest.mark.parametrize("cls", [UARTTransmitter, UARTReceiver])
def test_the_divisor_is_checked(cls):
    with pytest.raises(ValueError, match="divisor must be an integer of at least 4, not 3"):
        cls(3)
    with pytest.raises(TypeError, match="divisor must be an integer, not 8.0"):
        cls(8.0)
