"""Inertia arrays folded by k: bit for bit the unfolded model under stalls, one result every k
cycles, a valid modulo schedule, and as many multipliers and CORDICs in the netlist as stated."""

import dataclasses
import math
import re
import warnings

import numpy as np
import pytest
from amaranth.back import rtlil
from schedules import replay_modulo_schedule
from test_inertia_arrays import check_rtl, configurations, payloads
from tiers import heavy_unless

from robohw.dataflow.folding import modulo_schedule, shared_products
from robohw.registry import DESIGNS
from robohw.robots import load_robot
from robohw.robots.sampling import random_robot
from robohw.sim.compiled import run_stream_compiled
from robohw.sim.harness import run_stream
from robohw.systolic import ARRAYS, DEFAULT_FOLDS, PLANS
from robohw.systolic.codec import encode_joints, output_codes
from robohw.systolic.model import model_outputs

warnings.filterwarnings("ignore", message=".*triangle inequality")


@pytest.mark.heavy
@pytest.mark.parametrize("fold", [2, 3, 7])
@pytest.mark.parametrize("array", ARRAYS.values(), ids=ARRAYS)
def test_folded_rtl_equals_model_under_stalls(array, fold):
    robot = load_robot()
    dut = array(robot, fold=fold, tag_width=8, check_ranges=True)
    q = configurations(robot, np.random.default_rng(40 + fold), 14)
    source, sink = [1, 1, 0, 1, 1, 1, 0], [1, 0, 1, 1, 0]
    check_rtl(dut, q, source_valid=lambda c: source[c % len(source)],
              sink_ready=lambda c: sink[c % len(sink)])


@pytest.mark.heavy
@pytest.mark.parametrize("fold", [2, 5])
@pytest.mark.parametrize("array", ARRAYS.values(), ids=ARRAYS)
def test_folded_latency_and_interval(array, fold):
    robot = load_robot()
    dut = array(robot, fold=fold, tag_width=8)
    run = check_rtl(dut, configurations(robot, np.random.default_rng(7), 10))
    # Under continuous input: one input every `fold` cycles, one result every `fold` cycles,
    # the first `latency` cycles after its input.
    assert np.all(np.diff(run.input_cycles) == fold)
    assert np.all(np.diff(run.output_cycles) == fold)
    assert dut.interval == fold
    # The stated latency: the last output's ready cycle in the replayed schedule, and the output
    # queue's two cycles (its memory write and its read register).
    assert run.output_cycles[0] - run.input_cycles[0] == dut.latency == \
        replay_modulo_schedule(dut.plan) + 2


@pytest.mark.parametrize("fold", [2, 3, 4, 7, 8, 40])
@pytest.mark.parametrize("plan", PLANS.values(), ids=PLANS)
def test_the_modulo_schedule_is_valid(plan, fold):
    plan = plan("puma560", fold=fold)
    assert replay_modulo_schedule(plan) == plan.latency


def test_a_schedule_with_two_products_in_one_slot_is_wrong_in_the_check():
    plan = PLANS["linear"]("puma560", fold=3)
    first, second = sorted(plan.schedule.unit)[:2]
    plan.schedule.unit[second] = plan.schedule.unit[first]
    plan.schedule.start[second] = plan.schedule.start[first] + 3
    with pytest.raises(AssertionError):
        replay_modulo_schedule(plan)


@pytest.mark.parametrize("n", heavy_unless([1, 2, 3, 6], small=(1, 2, 3)) +
                         [pytest.param(8, marks=pytest.mark.slow)])
def test_random_robots_folded(n):
    rng = np.random.default_rng(60 + n)
    robot = random_robot(rng, n, prismatic=0.3)
    for name, array in ARRAYS.items():
        dut = array(robot, width=18, fold=3, tag_width=8)
        replay_modulo_schedule(dut.plan)
        run = check_rtl(dut, configurations(robot, rng, 5))
        assert run.output_cycles[0] - run.input_cycles[0] == dut.latency, name


def _cells(dut, kind):
    return len(re.findall(rf"cell \${kind} ", rtlil.convert(dut, name="top")))


# The linear array's netlist in `make test`, the log-depth one's in `make slow`: one check.
@pytest.mark.parametrize("array", [pytest.param(ARRAYS["linear"], marks=pytest.mark.heavy),
                                   pytest.param(ARRAYS["logdepth"], marks=pytest.mark.slow)],
                         ids=ARRAYS)
def test_the_netlist_has_the_stated_multipliers(array):
    robot = load_robot()
    for fold in (2, 4):
        dut = array(robot, fold=fold, width=16)
        resources = dut.resources()
        products = shared_products(dut.plan.tracer, dut.plan.live)
        assert _cells(dut, "mul") == resources["multipliers"] == \
            math.ceil(len(products) / fold), fold
        assert resources["constant_multipliers"] == 0
        assert resources["cordics"] == math.ceil(5 / fold)


def test_the_default_folds_fit_the_dsp_tiles_of_an_ecp5_85f():
    # 156 MULT18X18D tiles on the LFE5U-85F, one per shared product at the registry's 18 bits
    # (the folds themselves were chosen by placing them: systolic.DEFAULT_FOLDS).
    tiles = {}
    for name, fold in DEFAULT_FOLDS.items():
        design = DESIGNS[f"inertia-{name}"]
        plan = PLANS[name]("puma560", width=design.default_width, fold=fold)
        tiles[name] = math.ceil(len(shared_products(plan.tracer, plan.live)) / fold)
        assert design.default_width == 18 and design.default_fold == fold
    assert tiles == {"linear": 44, "logdepth": 37}


def test_folded_model_is_the_unfolded_model():
    # Folding moves operations in time, never changes them: one bit-exact model for every k.
    robot = load_robot()
    q = configurations(robot, np.random.default_rng(3), 50)
    for name, plan in PLANS.items():
        outputs = [model_outputs(p, encode_joints(p, q)) for p in
                   (plan(robot), plan(robot, fold=5))]
        for key in outputs[0]:
            assert np.array_equal(outputs[0][key], outputs[1][key]), (name, key)


@pytest.mark.parametrize("bad, error, message", [
    (0, ValueError, "fold must be a positive integer, not 0"),
    (-2, ValueError, "fold must be a positive integer, not -2"),
    (1.5, TypeError, "fold must be an integer, not 1.5"),
    (True, TypeError, "fold must be an integer, not True"),
    ("3", TypeError, "fold must be an integer, not '3'")])
def test_a_bad_fold_is_refused(bad, error, message):
    with pytest.raises(error, match=message):
        ARRAYS["linear"]("puma560", fold=bad)
    with pytest.raises(error, match=message):
        modulo_schedule(PLANS["linear"]("puma560").tracer, [], bad, {})


@pytest.mark.heavy
def test_range_checks_see_a_folded_product_overflow():
    # A product that claims four more fraction bits than its range allows overflows its
    # register; the folded array's range check (at the clock edge) says which.
    robot = load_robot()
    dut = ARRAYS["linear"](robot, width=16, fold=3, tag_width=8, check_ranges=True)
    plan = dut.plan
    products = [k for k in plan.schedule.unit if plan.tracer.nodes[k].op == "mul"]
    index = max(products, key=lambda k: plan.tracer.nodes[k].magnitude)
    plan.formats[index] = dataclasses.replace(plan.formats[index],
                                              frac=plan.formats[index].frac + 4)
    _, inputs = payloads(dut, configurations(robot, np.random.default_rng(12), 100))
    with pytest.raises(AssertionError, match=rf"_n{index} \(mul\) overflows signed\(16\)"):
        run_stream(dut, inputs)


@pytest.mark.slow
def test_folded_verilog_equals_model_under_verilator(compiled_models):
    # A fold the registry does not use, its exported Verilog under Verilator through the
    # compiled backend: a minute's build, in `make slow` (`make test` compiles the registry's
    # folds in tests/shared/test_compiled.py).
    robot = load_robot()
    dut = ARRAYS["logdepth"](robot, width=16, fold=3, tag_width=8)
    codes, inputs = payloads(dut, configurations(robot, np.random.default_rng(8), 120))
    run = run_stream_compiled(dut, inputs, source_pattern=[True, True, False, True],
                              sink_pattern=[True] * 5 + [False], directory=compiled_models)
    assert [o["tag"] for o in run.outputs] == [p["tag"] for p in inputs]
    got = output_codes(dut.plan, run.outputs)
    for key, values in model_outputs(dut.plan, codes).items():
        assert got[key].tolist() == values.tolist(), key
    assert np.all(np.diff(run.input_cycles) >= 3)
