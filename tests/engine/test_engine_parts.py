"""The engine's parts alone (robohw.engine.control, .files, .units), each simulated against what
its docstring states, outside any whole design: the phase counters and the interval's first
cycle, the iteration counters and the rotating addresses; a register file's write and read;
a loader's field selection; the held state with a sign input."""

import dataclasses

import numpy as np
import pytest
from amaranth.hdl import Const, Module, Signal, signed
from amaranth.sim import Simulator

from robohw.dynamics.inverse.engine import LinkFramePlan
from robohw.engine.control import EngineControl
from robohw.engine.plan import compile_plan
from robohw.engine.program import LOAD_LATENCY
from robohw.engine.register_files import RegisterFiles
from robohw.engine.units import build_loader, held_state
from robohw.robots.sampling import random_robot


@pytest.fixture(scope="module")
def plan():
    robot = random_robot(np.random.default_rng(3), 3, prismatic=0.4)
    robot = dataclasses.replace(robot, joints=tuple(
        dataclasses.replace(j, friction=0.5) for j in robot.joints))
    return LinkFramePlan(robot, width=16, bound_fraction=None)


@pytest.fixture(scope="module")
def program(plan):
    return compile_plan(plan, 3)


def _simulate(m, cycles, probe):
    """``probe(ctx)`` after each of ``cycles`` clock edges (from reset), collected."""
    seen = []

    async def bench(ctx):
        for _ in range(cycles):
            await ctx.tick()
            seen.append(probe(ctx))
    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return seen


def test_the_control_counts_the_interval_and_rotates_the_addresses(plan, program):
    ii = program.interval
    # A file that rotates (depth above 1), its reader's micro-program, an address of it.
    deepest = max(program.files.values(), key=lambda f: f.depth).depth
    assert deepest > 1
    name, file = next((n, f) for n, f in program.files.items() if f.depth == deepest)
    owner = "outputs" if file.reader[0] == "out" else file.reader[0]
    m = Module()
    control = EngineControl(m, program)
    control.micro_program(owner)
    offset = file.depth - 1
    address = control.address("probe", name, Const(offset))
    control.build()
    seen = _simulate(m, 12 * ii, lambda ctx: (ctx.get(control.first), ctx.get(address)))
    firsts = [cycle for cycle, (first, _) in enumerate(seen, start=1) if first]
    # The first cycle of every interval (cycle 0 after reset is the first's) but the first.
    assert firsts == list(range(ii, 12 * ii + 1, ii))
    # The address turns once an interval: offset plus the intervals done, modulo the depth.
    addresses = [at for _, at in seen]
    turns = [addresses[k] for k in range(ii + 2, len(addresses), ii)]
    assert all((b - a) % file.depth == 1 for a, b in zip(turns, turns[1:]))
    assert set(addresses) <= set(range(file.depth))


def test_a_file_reads_what_its_port_wrote(plan, program):
    m = Module()
    files = RegisterFiles(m, program, plan.width)
    name = next(iter(program.files))
    memory = files.memories[name]
    assert memory.depth == max(program.files[name].depth, 2)
    assert memory.attrs["ram_style"] == "distributed"
    at, data = Signal(range(memory.depth)), Signal(signed(plan.width))
    port = memory.write_port()
    m.d.comb += [port.en.eq(1), port.addr.eq(at), port.data.eq(data)]
    read_at = Signal(range(memory.depth))
    word = files.read(name, read_at)
    values = [-7, 300, -32768 % 2 ** 15]
    seen = []

    async def bench(ctx):
        for k, value in enumerate(values):
            ctx.set(at, k % memory.depth)
            ctx.set(data, value)
            await ctx.tick()
        for k in range(len(values)):
            ctx.set(read_at, k % memory.depth)
            seen.append(ctx.get(word))
    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    expected = {k % memory.depth: v for k, v in enumerate(values)}
    assert seen == [expected[k % memory.depth] for k in range(len(values))]


def test_the_held_state_and_a_loader(plan, program):
    ii = program.interval
    payload_fields = {f: signed(plan.width) for f in plan.value_fields.values()}
    for field in plan.angle_fields.values():
        payload_fields[field] = signed(plan.cordic.width)
    m = Module()
    payload = {f: Signal(shape, name=f"in_{f}") for f, shape in payload_fields.items()}

    class Payload:                      # what held_state reads: payload.<field>, .shape()
        def __getattr__(self, field):
            return payload[field]

        def shape(self):
            return {f: type("F", (), {"shape": s})() for f, s in payload_fields.items()}

    first = Signal()
    held = held_state(m, plan, Payload(), first)
    control = EngineControl(m, program)
    unit = program.machine.units("load")[0]
    value = build_loader(m, control.micro_program(unit), unit, program, held)
    control.build()
    codes = {f: (7 * k + 3) * (-1) ** k for k, f in enumerate(sorted(payload_fields))}
    loads = {load.cycle % ii: load.field for load in program.loads if load.unit == unit}
    seen = []

    async def bench(ctx):
        for f, code in codes.items():
            ctx.set(payload[f], code)
        ctx.set(first, 1)
        await ctx.tick()
        ctx.set(first, 0)
        for _ in range(6 * ii):
            await ctx.tick()
            seen.append(ctx.get(value))
    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    # Every held field plus its offset; a sign input its constant by the field's sign.
    assert plan.sign_inputs and all(codes[s.field] for s in plan.sign_inputs.values())
    expected_held = {f: codes[f] + plan.field_offset(f) for f in plan.value_fields.values()}
    expected_held |= {n: int(np.sign(codes[s.field])) * s.code
                      for n, s in plan.sign_inputs.items()}
    # The loader gives, the cycle after each load of its program, the held field it names
    # (its files write it LOAD_LATENCY - 1 cycles after the load, through the writers'
    # copies); in steady state, from the second interval on.
    assert LOAD_LATENCY == 3
    assert loads and set(loads.values()) <= set(expected_held)
    for cycle, value in enumerate(seen, start=2):     # seen from cycle 2 on
        if cycle >= 2 * ii and (cycle - 1) % ii in loads:
            assert value == expected_held[loads[(cycle - 1) % ii]], cycle
