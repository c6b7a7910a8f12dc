"""Cycle-by-cycle driver for components with one input and one output stream.

:func:`run_stream` feeds a list of payloads into ``dut.i`` and collects ``dut.o``, with
optional stall patterns on both sides, and records the cycle of every transfer, so tests and
benchmarks measure latency and throughput instead of assuming them.
"""

import itertools
import time
from dataclasses import dataclass, field

from amaranth.sim import Simulator

__all__ = ["StreamRun", "run_stream", "cycle_budget"]


@dataclass
class StreamRun:
    """What :func:`run_stream` saw: output payloads (dicts of ints) in arrival order, the cycle
    of each input and output transfer, the number of cycles simulated and the wall-clock
    seconds they took (elaboration excluded)."""
    outputs: list = field(default_factory=list)
    input_cycles: list = field(default_factory=list)
    output_cycles: list = field(default_factory=list)
    cycles: int = 0
    wall_seconds: float = 0.0


def _always(cycle):
    return True


def cycle_budget(dut, count):
    """Cycles a run of ``count`` payloads may take before it is given up: four times what the
    design's stated timing needs (``latency + interval * count``: room for the stall patterns
    of tests, which at least halve the rate on each side) and 1000 more, or ``1000 + 100 *
    count`` for a design that states no timing."""
    try:
        return 1000 + 4 * (dut.latency + dut.interval * count)
    except (AttributeError, NotImplementedError):
        return 1000 + 100 * count


def run_stream(dut, payloads, *, source_valid=_always, sink_ready=_always, max_cycles=None,
               vcd=None, on_result=None, fragment=None):
    """Simulate ``dut`` until every payload has come out.

    Parameters
    ----------
    dut : :class:`amaranth.lib.wiring.Component`
        With members ``i`` (input stream) and ``o`` (output stream).
    payloads : list of dict
        Input payload fields by name.
    source_valid, sink_ready : callable
        ``cycle -> bool``: whether the source may offer a new payload in that cycle (once
        offered, it stays valid until taken, as streams require) and whether the sink is
        ready.
    max_cycles : int
        Give up (``TimeoutError``) after this many cycles; default :func:`cycle_budget`.
    vcd : str or None
        Write a waveform file.
    on_result : callable or None
        Called with the number of results so far after each one (progress reports).
    fragment : :class:`amaranth.hdl.Fragment` or None
        ``dut`` elaborated already (``Fragment.get(dut, None)``), so a caller that also
        counts its resources elaborates it once; default: elaborated here.
    """
    if max_cycles is None:
        max_cycles = cycle_budget(dut, len(payloads))
    run = StreamRun()
    out_fields = [name for name, _ in dut.o.payload.shape()]

    async def bench(ctx):
        pending = 0
        offering = False
        started = time.perf_counter()
        for cycle in itertools.count():
            if cycle >= max_cycles:
                raise TimeoutError(f"{len(run.outputs)} of {len(payloads)} results after "
                                   f"{max_cycles} cycles")
            if len(run.outputs) == len(payloads):
                run.cycles, run.wall_seconds = cycle, time.perf_counter() - started
                return
            if not offering and pending < len(payloads) and source_valid(cycle):
                offering = True
                for name, value in payloads[pending].items():
                    ctx.set(getattr(dut.i.payload, name), value)
            ctx.set(dut.i.valid, offering)
            ready = bool(sink_ready(cycle))
            ctx.set(dut.o.ready, ready)
            if offering and ctx.get(dut.i.ready):
                run.input_cycles.append(cycle)
                pending += 1
                offering = False
            if ready and ctx.get(dut.o.valid):
                payload = ctx.get(dut.o.payload)
                run.outputs.append({name: int(getattr(payload, name)) for name in out_fields})
                run.output_cycles.append(cycle)
                if on_result is not None:
                    on_result(len(run.outputs))
            await ctx.tick()

    sim = Simulator(dut if fragment is None else fragment)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    if vcd is None:
        sim.run()
    else:
        with sim.write_vcd(vcd):
            sim.run()
    return run
