"""The engine's compiler (robohw.engine.program) and its rotating register files
(robohw.engine.registers): allocations checked register by register over overlapped states,
compiled programs replayed independently (tests/schedules.py), latencies against the graph's
critical path, the machine's argument checks."""

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest
from amaranth.hdl import Module, Signal
from schedules import engine_critical_path, replay_engine

from robohw.dataflow.operations import unit_of
from robohw.dynamics.inverse.engine import LinkFramePlan
from robohw.engine.machine import MAX_INTERVAL, MIN_INTERVAL, Machine
from robohw.engine.partition import cell_link, cell_partition
from robohw.engine.plan import compile_plan
from robohw.engine.program import compile_program
from robohw.engine.registers import (
    access_offset,
    live_lower_bound,
    padded_depth,
    physical_register,
    rotating_allocation,
)
from robohw.hw.micro_program import MicroProgram
from robohw.robots.sampling import random_robot


def occupancy_clashes(lives, interval, depth, base, states):
    """Every pair of (value, state) that holds one register at one time: each value of the
    state entering at ``s * interval`` holds register ``(base + s) % depth`` from the end of
    cycle ``first - 1`` (its write) through cycle ``last`` (its last read), absolute."""
    held = {}
    clashes = []
    for state in range(states):
        for key, (first, last) in lives.items():
            register = physical_register(base[key], state, depth)
            for time in range(state * interval + first, state * interval + max(first, last) + 1):
                other = held.setdefault((register, time), (key, state))
                if other != (key, state):
                    clashes.append((other, (key, state), register, time))
    return clashes


@pytest.mark.parametrize("seed", range(40))
def test_rotating_allocation_never_shares_a_live_register(seed):
    rng = np.random.default_rng(seed)
    interval = int(rng.integers(1, 12))
    count = int(rng.integers(1, 30))
    firsts = rng.integers(0, 80, count)
    lives = {f"v{k}": (int(f), int(f + rng.integers(0, 60))) for k, f in enumerate(firsts)}
    depth, base = rotating_allocation(lives, interval)
    assert set(base) == set(lives)
    assert depth >= live_lower_bound(lives, interval)
    span = max(last for _, last in lives.values()) + 1
    assert occupancy_clashes(lives, interval, depth, base, 2 * depth + span // interval + 2) \
        == []


def test_a_shorter_bank_clashes():
    # The check above can fail: the same lives in one register fewer.
    lives = {"a": (0, 9), "b": (3, 12), "c": (5, 5)}
    depth, base = rotating_allocation(lives, 4)
    assert occupancy_clashes(lives, 4, depth, base, 12) == []
    assert occupancy_clashes(lives, 4, depth - 1, base, 12) != []


def test_allocation_edges():
    assert rotating_allocation({}, 5) == (1, {})
    # One value as long as the interval: one register; one cycle longer: two.
    assert rotating_allocation({"a": (3, 6)}, 4)[0] == 1
    assert rotating_allocation({"a": (3, 7)}, 4)[0] == 2
    with pytest.raises(ValueError, match=r"interval must be at least 1, not 0"):
        rotating_allocation({"a": (0, 1)}, 0)


def test_the_access_offset_plus_the_counter_is_the_register():
    # An access t cycles into the program of the state that entered in iteration s happens in
    # iteration s + t // ii: the constant plus that iteration is the state's register.
    for base in range(5):
        for s in range(7):
            for t in range(40):
                assert (access_offset(base, t, 6, 5) + s + t // 6) % 5 == \
                    physical_register(base, s, 5)


def _compiled(robot, width, ii):
    """``(plan, program)``: the link-frame equations of ``robot`` at ``width`` bits compiled at
    II ``ii``."""
    plan = LinkFramePlan(robot, width=width, bound_fraction=None)
    return plan, compile_plan(plan, ii)


@pytest.fixture(scope="module")
def puma_plans():
    return {ii: _compiled("puma560", 18, ii) for ii in (2, 5, 10, 32, 128)}


@pytest.mark.parametrize("ii", [2, 5, 10, 32, 128])
def test_puma_programs_replay_and_come_near_the_critical_path(puma_plans, ii):
    plan, program = puma_plans[ii]
    assert replay_engine(plan, program) == program.output_cycle == program.latency
    bound = engine_critical_path(plan, program.machine)
    assert bound == program.critical_path <= program.latency
    if ii <= 32:                # the units, not the interval, set the latency
        assert program.latency <= 1.1 * bound, (program.latency, bound)
    # A tenth spare of each kind of unit.
    counts = plan.tracer.counts(plan.live)
    assert program.machine.multipliers == math.ceil(1.1 * counts["mul"] / ii)
    assert program.machine.adders == math.ceil(1.1 * counts["add"] / ii)


@pytest.mark.parametrize("robot, ii", [("stanford", 2), ("stanford", 7), ("stanford", 64)])
def test_stanford_programs_replay(robot, ii):
    plan, program = _compiled(robot, 20, ii)
    assert replay_engine(plan, program) == program.latency
    assert program.latency <= 1.1 * engine_critical_path(plan, program.machine) or ii > 32


@pytest.mark.parametrize("n, ii", [(2, 2), (3, 3), (5, 11)])
def test_random_robots_with_spare_units_replay(n, ii):
    robot = random_robot(np.random.default_rng(60 + n), n, prismatic=0.4)
    plan, fewest = _compiled(robot, 16, ii)
    spare = Machine.for_plan(plan, ii, multipliers=fewest.machine.multipliers + 2,
                             adders=fewest.machine.adders + 1)
    program = compile_program(plan, spare)
    assert replay_engine(plan, program) == program.latency


def test_the_replay_catches_a_broken_program(puma_plans):
    plan, program = puma_plans[10]
    issue = next(i for i in program.issues if i.cycle > 50)
    early = dataclasses.replace(issue, cycle=issue.cycle - 30)
    # A file one register short of its values' lives together must clash somewhere.
    tight = max(program.files, key=program.lower_bound)
    short = dataclasses.replace(program.files[tight], depth=program.lower_bound(tight) - 1)
    # Another writer's value in a file: two writes in one cycle, or one its port lacks.
    other = next(name for name, file in program.files.items() if len(file.writers) > 1)
    for mutate, message in (
            (lambda p: p.issues.__setitem__(p.issues.index(issue), early), "before it is ready"),
            (lambda p: p.files.__setitem__(tight, short), "which holds"),
            (lambda p: p.files.__setitem__(other, dataclasses.replace(
                p.files[other], writers=p.files[other].writers[1:])), r"^\('"),
            (lambda p: p.reads.__setitem__(next(iter(p.reads)), []), r"^\(Issue\(")):
        copy = dataclasses.replace(program, issues=list(program.issues),
                                   files=dict(program.files), reads=dict(program.reads))
        mutate(copy)
        with pytest.raises(AssertionError, match=message):
            replay_engine(plan, copy)


def test_files_hold_only_what_their_reader_reads_one_write_a_slot(puma_plans):
    # Every file's values are read by its reader from it, written in distinct slots; a port
    # has few files; the padded depths are powers of two up to a LUT-RAM block.
    program = puma_plans[10][1]
    ii = program.interval
    for name, file in program.files.items():
        values = program.file_values(name)
        assert values and all(program.source[(file.reader, k)] == name for k in values)
        slots = [(program.ready[k] - 1) % ii for k in values]
        assert len(set(slots)) == len(slots), name
        assert set(file.writers) == {program.writer[k] for k in values}
        assert file.depth >= program.lower_bound(name)
        assert file.depth > 16 or file.depth & (file.depth - 1) == 0, (name, file.depth)
    assert max(len(files) for files in program.reads.values()) <= 4


def test_padded_depths():
    assert [padded_depth(d) for d in (1, 2, 3, 5, 9, 16, 17, 31, 33, 48, 64, 65)] == \
        [1, 2, 4, 8, 16, 16, 32, 32, 33, 48, 64, 65]
    with pytest.raises(ValueError, match=r"depth must be a positive integer, not 0"):
        padded_depth(0)


def test_the_fewest_units_are_all_busy_in_some_slot():
    # With no spare units the PUMA's multipliers at II 4 are all busy in some slot: one fewer
    # would not fit.
    plan = LinkFramePlan("puma560", width=20, bound_fraction=None)
    program = compile_program(plan, Machine.for_plan(plan, 4, spare=0))
    assert replay_engine(plan, program) == program.latency
    assert program.machine.multipliers == math.ceil(plan.tracer.counts(plan.live)["mul"] / 4)
    slots = {}
    for issue in program.issues:
        if issue.unit.startswith("mul"):
            slots.setdefault(issue.cycle % 4, set()).add(issue.unit)
    assert max(len(units) for units in slots.values()) == program.machine.multipliers


def test_machine_checks():
    plan = LinkFramePlan("stanford", width=16, bound_fraction=None)
    span = rf"interval must be an integer in \[{MIN_INTERVAL}, {MAX_INTERVAL}\]"
    with pytest.raises(ValueError, match=rf"{span}, not 1$"):
        Machine.for_plan(plan, 1)
    with pytest.raises(ValueError, match=rf"{span}, not 1025$"):
        Machine.for_plan(plan, 1025)
    with pytest.raises(TypeError, match=r"interval must be an integer, not 2.5"):
        Machine.for_plan(plan, 2.5)
    with pytest.raises(ValueError, match=r"operations need at least \d+ multipliers at "
                                         r"interval 4, not 1"):
        Machine.for_plan(plan, 4, multipliers=1)
    with pytest.raises(ValueError, match=r"multipliers must be a non-negative integer, not -1"):
        Machine.for_plan(plan, 4, multipliers=-1)
    with pytest.raises(ValueError, match=r"spare must be from 0 to 1, not 2"):
        Machine.for_plan(plan, 4, spare=2)
    with pytest.raises(TypeError, match=r"spare must be a number, not '1'"):
        Machine.for_plan(plan, 4, spare="1")
    good = Machine.for_plan(plan, 4)
    with pytest.raises(ValueError, match=r"adder_latency must be a positive integer, not 0"):
        dataclasses.replace(good, adder_latency=0)
    few = dataclasses.replace(good, loaders=1)
    with pytest.raises(ValueError, match=r"fields do not fit 1 loaders at interval 4"):
        compile_program(plan, few)
    with pytest.raises(ValueError, match=r"angles do not fit 0 CORDICs"):
        compile_program(plan, dataclasses.replace(good, cordics=0))
    with pytest.raises(ValueError, match=r"mul operations do not fit"):
        compile_program(plan, dataclasses.replace(good, multipliers=1))


def test_a_wrapped_micro_program_refuses_two_uses_of_one_slot():
    m = Module()
    ahead, ahead2 = Signal(range(4)), Signal(range(4))
    micro = MicroProgram(m, ahead, ahead2, "unit", wrap=4)
    micro.fetch({"at": range(8)}, {1: {"at": 3}, 6: {"at": 2}}, "unit_s0")
    with pytest.raises(ValueError, match=r"unit_s1_at: two values in word 1 of a 4-word "
                                         r"program"):
        micro.fetch({"at": range(8)}, {1: {"at": 3}, 5: {"at": 2}}, "unit_s1")


def _clustered(robot, width, ii):
    plan = LinkFramePlan(robot, width=width, bound_fraction=None)
    return plan, compile_plan(plan, ii, partition=cell_partition(plan))


@pytest.mark.parametrize("robot, width, ii", [("puma560", 18, 5), ("puma560", 18, 10),
                                              ("panda", 21, 10), ("stanford", 20, 3)])
def test_clustered_programs_replay_hops_and_all(robot, width, ii):
    plan, program = _clustered(robot, width, ii)
    machine = program.machine
    assert len(machine.clusters) >= 3
    assert replay_engine(plan, program) == program.output_cycle
    assert engine_critical_path(plan, machine) == program.critical_path <= program.latency
    assert program.latency <= 1.1 * program.critical_path
    # Each cluster a tenth spare of its own operations; no unit's result register writes a
    # file of another cluster: every far value goes through its hop.
    counts = {}
    for issue in program.issues:
        counts.setdefault(machine.home(issue.unit), []).append(issue.node)
    for cluster in machine.clusters:
        muls = sum(1 for k in cluster.nodes if unit_of(plan.tracer.nodes[k]) == "mul")
        assert cluster.multipliers == math.ceil(Fraction(11, 10) * muls / ii)
        assert set(counts[cluster.name]) == set(cluster.nodes)
    for file in program.files.values():
        for writer in file.writers:
            if writer in program.hops:
                assert machine.home(program.hops[writer]) != file.home
            elif machine.home(writer) is not None:
                assert machine.home(writer) == file.home
    assert program.hops


@pytest.mark.parametrize("n", range(2, 8))
def test_random_robots_clustered_replay(n):
    robot = random_robot(np.random.default_rng(90 + n), n, prismatic=0.3)
    plan, program = _clustered(robot, 16, 3 + n % 4)
    assert replay_engine(plan, program) == program.latency
    assert engine_critical_path(plan, program.machine) == program.critical_path


def test_the_partition_merges_a_light_link_and_binds_every_operation():
    plan = LinkFramePlan("panda", width=21, bound_fraction=None)
    partition = cell_partition(plan)
    # The Panda's base link has 7 of its 1,090 operations: it joins link 1.
    assert sorted(set(partition.values())) == ["link0", "link2", "link3", "link4", "link5",
                                               "link6"]
    nodes = plan.tracer.nodes
    assert {cell_link(nodes[k]) for k, c in partition.items() if c == "link0"} == {0, 1}
    assert set(partition) == {k for k in plan.live if unit_of(nodes[k]) in ("mul", "add")}
    narrowed = LinkFramePlan("panda", width=21, bound_fraction=None, narrowed=True)
    assert set(cell_partition(narrowed)) == {k for k in narrowed.live if unit_of(
        narrowed.tracer.nodes[k]) in ("mul", "nmul", "add")}
    # Every link its own cluster when none is light.
    assert len(set(cell_partition(plan, light=0).values())) == 7
    with pytest.raises(TypeError, match="light must be a number"):
        cell_partition(plan, light="half")


def test_clustered_machine_checks():
    plan = LinkFramePlan("puma560", width=18, bound_fraction=None)
    partition = cell_partition(plan)
    with pytest.raises(ValueError, match="counts its units by cluster"):
        Machine.for_plan(plan, 5, multipliers=60, partition=partition)
    missing = dict(partition)
    missing.pop(next(iter(missing)))
    with pytest.raises(ValueError, match="the partition binds it to no cluster"):
        Machine.for_plan(plan, 5, partition=missing)
    machine = Machine.for_plan(plan, 5, partition=partition)
    with pytest.raises(ValueError, match="multipliers must be the clusters' sum"):
        dataclasses.replace(machine, multipliers=machine.multipliers + 1)
    with pytest.raises(ValueError, match="the clusters' names must differ"):
        dataclasses.replace(machine, clusters=machine.clusters[:1] * 2)
    with pytest.raises(ValueError, match="name must be an identifier"):
        dataclasses.replace(machine.clusters[0], name="link 0")
    # A narrowed plan's clusters count their multipliers of narrowed operands, summed.
    narrowed = LinkFramePlan("panda", width=21, bound_fraction=None, narrowed=True)
    machine = Machine.for_plan(narrowed, 14, partition=cell_partition(narrowed))
    assert machine.narrow_multipliers == sum(c.narrow_multipliers for c in machine.clusters) > 0
    with pytest.raises(ValueError, match="narrow_multipliers must be the clusters' sum"):
        dataclasses.replace(machine, narrow_multipliers=0)
