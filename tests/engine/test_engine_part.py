"""A part of an engine by locality placed alone (robohw.engine.part): the chosen clusters'
operations replayed with their kinds, constants and ranges, every operand from outside an input
and every value read outside an output; its program replays; its RTL equals its own bit-exact
model; the registry and ``robohw synth --clusters`` refuse what has no clusters."""

import numpy as np
import pytest
from schedules import replay_engine

from robohw.dataflow.operations import Op
from robohw.dataflow.plan import model_codes
from robohw.dynamics.inverse.engine import LinkFramePlan
from robohw.engine.part import PartPlan, part_engine
from robohw.engine.partition import cell_partition
from robohw.registry import design, design_part
from robohw.robots.sampling import random_robot
from robohw.sim.harness import run_stream


def _source(node):
    while node.op == Op.NEG:
        node = node.args[0]
    return node


@pytest.fixture(scope="module")
def puma():
    return LinkFramePlan("puma560", width=18, bound_fraction=None)


def test_a_part_replays_its_operations_with_their_edges(puma):
    partition = cell_partition(puma)
    chosen = {k for k, c in partition.items() if c in ("link3", "link4")}
    part = PartPlan(puma, chosen, partition)
    nodes, replayed = puma.tracer.nodes, part.tracer.nodes
    operations = [n for n in replayed if n.op not in (Op.INPUT, Op.NEG)]
    assert sorted(n.op for n in operations) == sorted(nodes[k].op for k in chosen)
    assert {part.partition[n.index] for n in operations} == {"link3", "link4"}
    # Every operand from outside the part is an input named by its node, with its range.
    outside = {_source(a).index for k in chosen for a in nodes[k].args} - chosen
    assert set(part.value_fields) == {f"v{k}" for k in outside}
    for k in outside:
        node = next(n for n in replayed if n.name == f"v{k}")
        assert (node.low, node.high) == (nodes[k].low, nodes[k].high)
    # Every value of the part the rest of the machine (or an output) reads is an output.
    read = {_source(a).index for k in set(puma.live) - chosen for a in nodes[k].args}
    read |= {_source(v).index for v in puma.outputs.values() if not isinstance(v, float)}
    assert set(part.outputs) == {f"v{k}" for k in read & chosen}
    with pytest.raises(ValueError, match="at least one operation"):
        PartPlan(puma, [], partition)


def test_a_parts_rtl_equals_its_model_and_its_program_replays():
    robot = random_robot(np.random.default_rng(5), 4, prismatic=0.3)
    plan = LinkFramePlan(robot, width=16, bound_fraction=None)
    names = sorted(set(cell_partition(plan).values()))
    dut = part_engine(plan, names[1:3], 4)
    assert replay_engine(dut.plan, dut.program) == dut.program.latency
    assert len(dut.program.machine.clusters) == 2 and dut.program.hops
    rng = np.random.default_rng(1)
    codes = {field: rng.integers(*dut.plan.field_limits[field], endpoint=True, size=5)
             for field in dut.plan.value_fields.values()}
    inputs = [{**{f: int(v[b]) for f, v in codes.items()}, "tag": b} for b in range(5)]
    run = run_stream(dut, inputs)
    expected = model_codes(dut.plan, codes)
    for key, values in expected.items():
        assert [o[key] for o in run.outputs] == values.tolist(), key
    with pytest.raises(ValueError, match=r"clusters must be among link\d"):
        part_engine(plan, ["link9"], 4)


def test_only_an_engine_design_has_clusters(tmp_path, capsys):
    with pytest.raises(ValueError, match="only a design on the engine has clusters"):
        design_part(design("dynamics-array"), ["link1"])
    part = design_part(design("dynamics-engine"), ["link2"])
    assert part.module_name == "dynamics_engine_link2"
    from robohw.commands import main
    with pytest.raises(SystemExit) as exit_info:
        main(["synth", "--designs", "dynamics-engine", "--clusters", "2,link3",
              "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    assert "--clusters must be distinct names link<k>" in capsys.readouterr().err
