"""cocotb test that drives any exported design with one input and one output stream.

Run by :func:`robohw.sim.verilator.run_stream_verilator`, which passes a job file (port field
layout, payloads, stall patterns) in ``ROBOHW_JOB`` and reads the outputs back from
``ROBOHW_RESULT``. Ports are Amaranth's flattened names: ``i__payload``, ``i__valid``,
``i__ready``, ``o__payload``, ``o__valid``, ``o__ready``, ``clk``, ``rst``.
"""

import json
import os
import time

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

from robohw.hw.payload import pack, unpack


@cocotb.test()
async def stream(dut):
    with open(os.environ["ROBOHW_JOB"]) as file:
        job = json.load(file)
    in_fields, out_fields = job["inputs"], job["outputs"]
    payloads = job["payloads"]
    source, sink = job["source_pattern"], job["sink_pattern"]

    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    dut.i__valid.value = 0
    dut.o__ready.value = 0
    for _ in range(2):
        await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.rst.value = 0

    outputs, input_cycles, output_cycles = [], [], []
    pending, offering, cycle = 0, False, 0
    started = time.perf_counter()
    while len(outputs) < len(payloads):
        assert cycle < job["max_cycles"], f"{len(outputs)} of {len(payloads)} results"
        if not offering and pending < len(payloads) and source[cycle % len(source)]:
            offering = True
            dut.i__payload.value = pack(in_fields, payloads[pending])
        dut.i__valid.value = int(offering)
        ready = bool(sink[cycle % len(sink)])
        dut.o__ready.value = int(ready)
        await ReadOnly()
        if offering and dut.i__ready.value:
            input_cycles.append(cycle)
            pending += 1
            offering = False
        if ready and dut.o__valid.value:
            outputs.append(unpack(out_fields, int(dut.o__payload.value)))
            output_cycles.append(cycle)
        await FallingEdge(dut.clk)
        cycle += 1
    wall = time.perf_counter() - started

    with open(os.environ["ROBOHW_RESULT"], "w") as file:
        json.dump({"outputs": outputs, "input_cycles": input_cycles,
                   "output_cycles": output_cycles, "cycles": cycle, "wall_seconds": wall}, file)
