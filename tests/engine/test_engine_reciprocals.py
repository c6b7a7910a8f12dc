"""Reciprocal units on the engine (robohw.engine.units, on robohw.hw.reciprocal and
robohw.hw.reciprocal_sqrt): a traced graph with reciprocals and reciprocal square roots, one of
a negated operand and several numerator exponents on one unit, compiled and built; the RTL
equal to the bit-exact model for states within the proven ranges and beyond them (a divisor of
0, of the wrong sign, quotients beyond the width), one state every interval, its latency the
independent replay's."""

import numpy as np
import pytest
from amaranth.hdl import signed
from schedules import replay_engine

from robohw.dataflow.plan import TracedPlan, model_codes
from robohw.engine.component import Engine
from robohw.engine.machine import reciprocal_fold, reciprocal_unit_latency
from robohw.engine.plan import compile_plan
from robohw.hw.reciprocal import reciprocal_latency
from robohw.hw.reciprocal_sqrt import reciprocal_sqrt_latency
from robohw.sim.harness import run_stream

OUTPUTS = ("quotient", "inverse", "negated", "other", "scaled", "root", "far")


class _Reciprocals(TracedPlan):
    """Quotients and roots of two divisors of different ranges (different numerator
    exponents), one negated."""

    def _trace(self):
        x = self.value_input("x", "x", -2.0, 2.0)
        d = self.value_input("d", "d", 0.2, 3.0)
        e = self.value_input("e", "e", 40.0, 90.0)
        t = self.tracer
        inverse, root = t.reciprocal(d), t.reciprocal_sqrt(d)
        return {"quotient": x * inverse, "inverse": inverse, "negated": t.reciprocal(-e),
                "other": t.reciprocal(e) * x, "scaled": x * root, "root": root,
                "far": t.reciprocal_sqrt(e)}


def _engine(width, interval):
    plan = _Reciprocals(width=width, fold=1)
    plan.program = compile_plan(plan, interval)
    return Engine(plan, plan.program, {f: signed(width) for f in "xde"},
                  {key: key for key in OUTPUTS}, tag_width=4, flag="in_bounds")


def _states(plan, count, seed):
    rng = np.random.default_rng(seed)
    values = {"x": rng.uniform(-2, 2, count), "d": rng.uniform(0.2, 3.0, count),
              "e": rng.uniform(40.0, 90.0, count)}
    fracs = plan.input_fracs
    codes = {f: np.round(v * 2.0 ** fracs[f]).astype(np.int64) for f, v in values.items()}
    # Beyond the proven ranges: divisors of 0, below 0, tiny (quotients beyond the width),
    # the extreme codes.
    low = -(1 << (plan.width - 1))
    codes["d"][:6] = [0, -5, 1, low, -low - 1, 2]
    codes["e"][:6] = [3, 0, -(1 << 10), 1, low, -low - 1]
    return codes


# (width, interval, (reciprocal fold, units), (root fold, units)): each kind's fold and units
# by the fewest copies of a step, a unit's five input and output stages counted (3 reciprocals
# and 2 roots): at (16, 2) the reciprocals' fold 1 needs 2 x (16 + 5) copies, fold 2 (a unit
# each) 3 x (8 + 5), the roots' fold 1 one unit (21) against fold 2's 2 x 13; at (24, 12) fold
# 3 puts 3 on one unit (8 + 5; fold 4 two: 2 x 11), fold 6 puts 2 on one (4 + 5); at (40, 5)
# fold 5 a unit each, 3 x 13 against fold 1's 45, and fold 2 puts 2 on one (20 + 5).
FOLDED = [(16, 2, (2, 3), (1, 1)), (24, 12, (3, 1), (6, 1)), (40, 5, (5, 3), (2, 1))]


@pytest.mark.parametrize("width, interval, reciprocals, roots", FOLDED)
def test_rtl_equals_the_model_with_reciprocal_units(width, interval, reciprocals, roots):
    dut = _engine(width, interval)
    machine = dut.program.machine
    assert (machine.reciprocal_fold, machine.reciprocals) == reciprocals
    assert (machine.root_fold, machine.roots) == roots
    # A folded unit holds each operation for its fold: no two overlap on a unit.
    for unit, fold in (("recip0", reciprocals[0]), ("rsqrt0", roots[0])):
        slots = [(i.cycle + d) % interval for i in dut.program.issues if i.unit == unit
                 for d in range(fold)]
        assert len(slots) == len(set(slots))
    # One unit then takes every reciprocal: the negated one and each numerator's exponent.
    if machine.reciprocals == 1:
        words = [dut.program.operation(i) for i in dut.program.issues if i.unit == "recip0"]
        assert len({w["shift"] for w in words}) == 2 and sum(w["neg_a"] for w in words) == 1
    assert machine.reciprocal_latency == reciprocal_latency(width) + 2
    assert machine.root_latency == reciprocal_sqrt_latency(width) + 2
    codes = _states(dut.plan, 40, width)
    inputs = [{**{f: int(codes[f][b]) for f in "xde"}, "tag": b % 16} for b in range(40)]
    run = run_stream(dut, inputs)
    expected = model_codes(dut.plan, codes, overflow="wrap")
    assert [o["tag"] for o in run.outputs] == [p["tag"] for p in inputs]
    for key in OUTPUTS:
        assert [o[key] for o in run.outputs] == expected[key].tolist(), key
    assert [o["in_bounds"] for o in run.outputs][:6] == [0] * 6
    # One state every interval; the latency the replay's output cycle and the queue's.
    assert np.all(np.diff(run.input_cycles) == interval)
    assert np.all(np.array(run.output_cycles) - np.array(run.input_cycles) == dut.latency)
    assert dut.latency == replay_engine(dut.plan, dut.program) + 2


def test_a_kinds_fold_and_units_need_the_fewest_copies_of_a_step():
    # Six reciprocals at II 144: fold 8, one unit (5 + 5 copies; the most fold allowed).
    assert reciprocal_fold(6, 144, 40) == (8, 1)
    assert reciprocal_fold(6, 144, 40, most=4) == (4, 1)
    # At II 20 fold 2 puts all six on one unit (20 + 5 copies), where a unit of fold 8 holds
    # 2 (an op's 8 slots bar 15 starts: 3 units of 10) and one of fold 4 holds 3 (2 of 15).
    assert reciprocal_fold(6, 20, 40) == (2, 1)
    assert reciprocal_fold(0, 20, 40) == (1, 0)
    with pytest.raises(ValueError, match="interval must be an integer in \\[2, 1024\\]"):
        reciprocal_fold(3, 1, 40)


def test_a_units_latency_is_its_recurrences_and_two():
    # The operand read, the two input stages, the steps one a stage, the three output
    # stages, the write.
    assert reciprocal_unit_latency("recip", 40) == 1 + 2 + 40 + 3 + 1
    assert reciprocal_unit_latency("rsqrt", 33) == 1 + 2 + 33 + 3 + 1


class _Checked(TracedPlan):
    """Products and sums whose ranges are assumed narrower than their operands give: checked
    (the forward dynamics' accelerations within their limits), one from a reciprocal."""

    def _trace(self):
        x = self.value_input("x", "x", -2.0, 2.0)
        y = self.value_input("y", "y", -2.0, 2.0)
        d = self.value_input("d", "d", 0.5, 3.0)
        t = self.tracer
        p, s = x * y, x + y
        t.assume([p], 1.5)
        t.assume([s], 2.5)
        q = x * t.reciprocal(d)
        t.assume([q], 1.0)
        return {"p": p * 0.5 + s, "q": q + y * 0.25}


@pytest.mark.parametrize("width, interval", [(16, 2), (28, 4)])
def test_the_engine_flags_a_state_whose_checks_fail_as_the_model_does(width, interval):
    from robohw.dataflow.evaluate import evaluate_fixed
    from robohw.dataflow.plan import _input_codes, checked_model_codes
    plan = _Checked(width=width, fold=1)
    assert len(plan.checks) == 3
    plan.program = compile_plan(plan, interval)
    dut = Engine(plan, plan.program, {f: signed(width) for f in "xyd"}, {"p": "p", "q": "q"},
                 tag_width=4, flag="in_bounds", checked="checked")
    rng = np.random.default_rng(width)
    values = {"x": rng.uniform(-2, 2, 60), "y": rng.uniform(-2, 2, 60),
              "d": rng.uniform(0.5, 3.0, 60)}
    # One check each fails alone: x y, x + y, x / d.
    for name, column in zip("xyd", ([1.3, 2.0, 1.8], [-1.3, 0.6, 0.1], [2.0, 2.5, 0.6])):
        values[name][3:6] = column
    fracs = plan.input_fracs
    codes = {f: np.round(v * 2.0 ** fracs[f]).astype(np.int64) for f, v in values.items()}
    codes["d"][:3] = [0, -1, 1]                     # beyond the proven range
    expected, passed = checked_model_codes(plan, codes)
    # Rows that fail one check alone, for each check: every check's flag reaches the output.
    fails = {}
    evaluate_fixed(plan.tracer, plan.live, plan.formats, _input_codes(plan, codes),
                   plan.width, "wrap", observe=lambda k, r: fails.__setitem__(
                       k, np.abs(np.asarray(r)) > plan.checks[k]) if k in plan.checks else None)
    alone = [(fails[k] & ~np.any([fails[j] for j in fails if j != k], axis=0)).sum()
             for k in fails]
    assert len(alone) == 3 and min(alone) > 0 and passed.sum() > 5, alone
    inputs = [{**{f: int(codes[f][b]) for f in "xyd"}, "tag": b % 16} for b in range(60)]
    run = run_stream(dut, inputs)
    assert [o["checked"] for o in run.outputs] == passed.astype(int).tolist()
    for key in ("p", "q"):
        assert [o[key] for o in run.outputs] == expected[key].tolist(), key


def test_a_check_no_unit_makes_is_refused():
    class _InputChecked(TracedPlan):
        def _trace(self):
            x = self.value_input("x", "x", -2.0, 2.0)
            self.tracer.assume([x], 1.0)            # an input: no unit computes it
            return {"p": x * x}

    plan = _InputChecked(width=16, fold=1)
    plan.program = compile_plan(plan, 2)
    with pytest.raises(ValueError, match=r"^checks of nodes no unit computes: \[\d+\]$"):
        Engine(plan, plan.program, {"x": signed(16)}, {"p": "p"}, checked="checked")
