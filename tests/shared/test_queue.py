"""A lane of the output queue: first in, first out against the written sequence, up to its
depth, under random writes and reads; its latency; its argument check."""

import numpy as np
import pytest
from amaranth.sim import Simulator

from robohw.hw.queue import QUEUE_LATENCY, QueueLane


def _run(depth, write_rate, ready_rate, cycles=400, seed=0):
    """Drive a lane with random writes (never more entries than ``depth``, as the stream's
    credits guarantee) and random ``r_ready``; return (entries read, entries written, the
    most it held)."""
    dut = QueueLane(16, depth)
    rng = np.random.default_rng(seed)
    written, read, held = [], [], [0]

    async def bench(ctx):
        inside = 0
        for cycle in range(cycles):
            write = inside < depth and rng.random() < write_rate
            ready = rng.random() < ready_rate
            ctx.set(dut.w_en, write)
            ctx.set(dut.w_data, cycle)
            ctx.set(dut.r_ready, ready)
            if ctx.get(dut.r_valid) and ready:
                read.append(ctx.get(dut.r_data))
                inside -= 1
            if write:
                written.append(cycle)
                inside += 1
            held[0] = max(held[0], inside)
            await ctx.tick()
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return read, written, held[0]


@pytest.mark.parametrize("depth", [2, 3, 5, 16])
@pytest.mark.parametrize("write_rate, ready_rate", [(0.9, 0.2), (0.5, 0.5), (0.3, 0.9),
                                                    (1.0, 1.0)])
def test_first_in_first_out_up_to_its_depth(depth, write_rate, ready_rate):
    read, written, held = _run(depth, write_rate, ready_rate, seed=depth)
    assert read == written[:len(read)] and len(read) > 10
    if write_rate > ready_rate:
        assert held == depth          # it was full, and lost nothing


def test_latency_from_a_write_into_the_empty_lane():
    dut = QueueLane(8, 4)
    seen = []

    async def bench(ctx):
        ctx.set(dut.r_ready, 1)
        ctx.set(dut.w_data, 77)
        ctx.set(dut.w_en, 1)
        await ctx.tick()
        ctx.set(dut.w_en, 0)
        for cycle in range(1, 5):
            if ctx.get(dut.r_valid):
                seen.append((cycle, ctx.get(dut.r_data)))
            await ctx.tick()
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    # written at the first clock edge, read into the register at the second
    assert seen == [(QUEUE_LATENCY, 77)] and QUEUE_LATENCY == 2


@pytest.mark.parametrize("depth, error, message", [
    (1, ValueError, "depth must be an integer of at least 2, not 1"),
    (0, ValueError, "depth must be an integer of at least 2, not 0"),
    (2.5, TypeError, "depth must be an integer, not 2.5"),
    (True, TypeError, "depth must be an integer, not True")])
def test_a_bad_depth_is_refused(depth, error, message):
    with pytest.raises(error, match=message):
        QueueLane(8, depth)
