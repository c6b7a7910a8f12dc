"""Products of operands narrowed to a DSP tile's 18 bits (robohw.dataflow.narrowing, the ``nmul``
and ``ncmul`` kinds): chosen within each output's room, modelled bit for bit by the dataflow
pipeline's RTL and the engine's (its multipliers of narrowed operands one tile each on an
ECP5), the proven bound holding against float64 with the narrowing's error in it."""

import re

import numpy as np
import pytest
from amaranth.back import verilog
from amaranth.hdl import signed
from schedules import replay_engine

from robohw.dataflow.component import TracedPipeline
from robohw.dataflow.narrowing import NARROWED, narrowed_products, output_gains
from robohw.dataflow.operations import Op, Unit
from robohw.dataflow.plan import TracedPlan, model_codes, traced_float_values
from robohw.engine.component import Engine
from robohw.engine.plan import compile_plan
from robohw.hw.devices import DEVICES
from robohw.sim.harness import run_stream

ECP5 = DEVICES["ecp5-85k"]


class Products(TracedPlan):
    """Products of three inputs, constants' and negated operands' among them, and (with
    ``quotient``, for the
    engine: the dataflow pipeline has no reciprocal) a quotient's, which keeps its width;
    ``room`` each output's (``None``: nothing narrowed)."""

    def __init__(self, width, room=None, quotient=True):
        self._room, self._quotient = room, quotient
        super().__init__(width=width, fold=1)

    def _narrowing_room(self):
        return self._room

    def _trace(self):
        a = self.value_input("a", "a", -1.0, 1.0)
        b = self.value_input("b", "b", -3.0, 3.0)
        c = self.value_input("c", "c", 0.5, 2.0)
        # s: negated operands, which the unit narrows before it negates them.
        out = {"p": a * b + c * 0.7, "q": (a * c) * b - a * -1.3, "s": (-a) * b + (-c) * 0.3}
        return out | ({"r": a * self.tracer.reciprocal(c)} if self._quotient else {})


def _values(count, seed):
    rng = np.random.default_rng(seed)
    values = {"a": rng.uniform(-1, 1, count), "b": rng.uniform(-3, 3, count),
              "c": rng.uniform(0.5, 2, count)}
    values["a"][:2], values["b"][:2], values["c"][:2] = [1, -1], [3, -3], [2, 0.5]  # corners
    return values


def _codes(plan, values):
    fracs = plan.input_fracs
    return {name: np.clip(np.round(v * 2.0 ** fracs[name]), *plan.field_limits[name])
            .astype(np.int64) for name, v in values.items()}


def _kinds(plan):
    return sorted(str(plan.tracer.nodes[k].op) for k in plan.live
                  if plan.tracer.nodes[k].op not in (Op.INPUT, Op.NEG))


def test_with_room_every_product_but_the_quotients_narrows():
    wide = Products(22)
    narrow = Products(22, room={key: 1.0 for key in "pqrs"})
    assert wide.narrowed == frozenset() and "nmul" not in _kinds(wide)
    assert _kinds(narrow).count("nmul") == 4 and _kinds(narrow).count("ncmul") == 3
    assert _kinds(narrow).count("mul") == 1           # a / c: a quotient keeps its width
    assert len(narrow.narrowed) == 7
    for k in narrow.narrowed:
        fmt = narrow.formats[k]
        assert fmt.drop == 4 and abs(fmt.const_code) < 2 ** 17
    # The narrowing's error is in the bound, which holds against float64.
    values = _values(2000, 1)
    exact = traced_float_values(narrow, values)
    got = model_codes(narrow, _codes(narrow, values))
    for key in "pqrs":
        error = np.abs(got[key] * 2.0 ** -narrow.output_fracs[key] - exact[key])
        assert error.max() <= narrow.output_bounds[key]
        assert narrow.output_bounds[key] >= wide.output_bounds[key]
    assert set(narrow.narrowed) >= {narrow.outputs["s"].args[0].index}
    assert narrow.output_bounds["q"] > 2 * wide.output_bounds["q"]


def test_no_room_narrows_nothing_and_width_18_drops_nothing():
    assert Products(22, room={key: 0.0 for key in "pqrs"}).narrowed == frozenset()
    assert Products(18, room={key: 1.0 for key in "pqrs"}).narrowed == frozenset()


def test_the_chosen_products_grow_each_bound_within_its_room():
    # The first-order choice against the proven bounds of the narrowed graph: each output's
    # growth within its room (to the derivative's second-order terms). Narrowed, a product's
    # operand at 22 bits drops 4 bits: each product here grows an output's bound by 0.8 to 8
    # times.
    wide = Products(22)
    room = {key: 6 * wide.output_bounds[key] for key in "pqrs"}
    narrow = Products(22, room=room)
    assert 0 < len(narrow.narrowed) < 7
    for key in "pqrs":
        assert narrow.output_bounds[key] - wide.output_bounds[key] <= room[key] * 1.001
    # The gains: an output's on itself is 1, on a product feeding it through a sum 1 as well.
    outputs = [wide.outputs[key].index for key in "pq"]
    gains = output_gains(wide.tracer, wide.live, wide.formats, wide._format_errors, outputs)
    assert gains[outputs[0]].tolist() == [1.0, 0.0]
    product = wide.outputs["p"].args[0]                  # a * b, summed into p
    assert gains[product.index][0] == pytest.approx(1.0, rel=1e-6)
    assert narrowed_products(wide.tracer, wide.live, wide.formats, wide._format_errors, 18,
                             {"p": wide.outputs["p"]}, {"p": 1.0}) == set()


def test_the_pipelines_rtl_equals_the_model():
    plan = Products(21, room={key: 1.0 for key in "pqs"}, quotient=False)
    assert len(plan.narrowed) == 7
    dut = TracedPipeline(plan, {name: signed(21) for name in "abc"},
                         {key: key for key in "pqs"}, tag_width=4)
    codes = _codes(plan, _values(40, 2))
    inputs = [{name: int(codes[name][k]) for name in "abc"} | {"tag": k % 16}
              for k in range(40)]
    run = run_stream(dut, inputs)
    expected = model_codes(plan, codes)
    for key in "pqs":
        assert [o[key] for o in run.outputs] == expected[key].tolist()


@pytest.mark.parametrize("width, interval", [(20, 2), (22, 3)])
def test_the_engines_rtl_equals_the_model_a_tile_a_narrowed_multiplier(width, interval):
    plan = Products(width, room={key: 1.0 for key in "pqrs"})
    program = compile_plan(plan, interval)
    machine = program.machine
    assert machine.narrow_multipliers == -(-7 // interval) and machine.multipliers >= 1
    assert {issue.unit[:4] for issue in program.issues
            if issue.node in plan.narrowed} == {Unit.NMUL.value}

    def engine():
        return Engine(plan, program, {f: signed(width) for f in "abc"},
                      {key: key for key in "pqrs"}, tag_width=4)
    dut = engine()
    codes = _codes(plan, _values(30, 3))
    inputs = [{name: int(codes[name][k]) for name in "abc"} | {"tag": k % 16}
              for k in range(30)]
    run = run_stream(dut, inputs, sink_ready=lambda c: c % 5 != 2)
    expected = model_codes(plan, codes)
    for key in "pqrs":
        assert [o[key] for o in run.outputs] == expected[key].tolist()
    assert dut.latency == replay_engine(plan, program) + 2
    # On an ECP5: a tile each, no partial products beside the narrowed ones'.
    text = verilog.convert(engine(), name="top", platform=ECP5)
    tiles = re.findall(r"MULT18X18D #\(.*?\) (\w+) \(", text, flags=re.DOTALL)
    assert sum(name.startswith(Unit.NMUL.value) for name in tiles) == \
        machine.narrow_multipliers
    assert not re.search(r"\bnmul\d+_partial", text)


def test_the_narrowed_kinds_are_products():
    assert NARROWED == {Op.MUL: Op.NMUL, Op.CMUL: Op.NCMUL}
