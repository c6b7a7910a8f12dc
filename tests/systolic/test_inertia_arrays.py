"""Inertia-matrix arrays: traced graph against the references, the bit-exact model against
float, the RTL against the model bit for bit, latency and throughput as stated."""


import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from netlist import register_depths
from tiers import heavy_unless

from robohw.cordic.accuracy import ERROR_BOUND_LSB
from robohw.cordic.config import System
from robohw.dataflow.pipeline import schedule
from robohw.robots import Joint, Robot, load_robot
from robohw.robots.sampling import joint_limits, random_robot, sample_joints
from robohw.sim.compiled import run_stream_compiled
from robohw.sim.harness import run_stream
from robohw.systolic import ARRAYS, PLANS, LinearInertiaArray, LinearPlan, LogDepthPlan
from robohw.systolic.array import TRIG_ERROR_LSB
from robohw.systolic.codec import encode_joints, output_codes
from robohw.systolic.model import model_inertia, model_outputs, traced_float
from robohw.systolic.reference import jacobian_inertia, log2_levels

# The goal at the default width: max |H_fixed - H_float| <= 1e-4 max |H|.
ACCURACY_GOAL = 1e-4


def configurations(robot, rng, count, corners=True):
    """Uniform in the joint limits, plus configurations at the limits themselves."""
    q = sample_joints(robot, count, rng)
    limits = joint_limits(robot)
    if corners:
        pick = rng.integers(0, 2, (count // 4, robot.dof))
        q[:count // 4] = np.where(pick, limits[:, 1], limits[:, 0])
    return q


def payloads(dut, q, tag_bits=8):
    codes = encode_joints(dut.plan, q)
    return codes, [{**{name: int(v[b]) for name, v in codes.items()}, "tag": b % (1 << tag_bits)}
                   for b in range(len(q))]


def check_rtl(dut, q, **stalls):
    codes, inputs = payloads(dut, q)
    expected = model_outputs(dut.plan, codes)
    run = run_stream(dut, inputs, **stalls)
    assert [o["tag"] for o in run.outputs] == [p["tag"] for p in inputs]
    got = output_codes(dut.plan, run.outputs)
    for key, values in expected.items():
        assert got[key].tolist() == values.tolist(), key
    return run


@pytest.mark.parametrize("array", ARRAYS.values(), ids=ARRAYS)
def test_constructor_checks(array):
    # The plan checks eagerly too: the component's checks are the plan's.
    with pytest.raises(ValueError, match=r"width must be an integer in \[12, 31\], not 32"):
        array("puma560", width=32)
    with pytest.raises(ValueError, match="tag_width must be a non-negative integer"):
        array("puma560", tag_width=-1)
    with pytest.raises(ValueError, match="needs mass, com and inertia for every joint"):
        array("puma560_fgl")
    joint = Joint("prismatic", 0.1, 0.0, 0.0, 0.0, mass=1.0, com=(0, 0, 0),
                  inertia=(0.1, 0.1, 0.1, 0, 0, 0))
    with pytest.raises(ValueError, match="joint 2: limits: a prismatic joint needs limits"):
        array(Robot("r", (joint, joint)))


@pytest.mark.parametrize("plan", PLANS.values(), ids=PLANS)
@pytest.mark.parametrize("n", range(1, 9))
def test_traced_graph_equals_reference(plan, n):
    rng = np.random.default_rng(n)
    robot = random_robot(rng, n, prismatic=0.3)
    q = configurations(robot, rng, 300)
    reference = jacobian_inertia(robot, q)
    assert np.abs(traced_float(plan(robot), q) - reference).max() <= \
        1e-12 * np.abs(reference).max()


@pytest.mark.parametrize("plan", PLANS.values(), ids=PLANS)
def test_puma_accuracy_at_the_default_width(plan):
    robot = load_robot()
    dut = plan(robot)
    assert dut.width == 24
    q = configurations(robot, np.random.default_rng(3), 50_000)
    reference = jacobian_inertia(robot, q)
    error = np.abs(model_inertia(dut, q) - reference).max()
    assert error <= ACCURACY_GOAL * np.abs(reference).max()


@pytest.mark.parametrize("plan", PLANS.values(), ids=PLANS)
@pytest.mark.parametrize("seed", range(6))
def test_every_element_is_within_its_proven_bound(plan, seed):
    # The accuracy promise of the arrays (TracedPlan.output_bounds): each element of H within
    # its bound of float64, for random robots, widths and configurations at the limits too.
    rng = np.random.default_rng(80 + seed)
    robot = random_robot(rng, int(rng.integers(2, 8)), prismatic=0.3)
    dut = plan(robot, width=int(rng.integers(12, 32)))
    q = configurations(robot, rng, 4000)
    error = np.abs(model_inertia(dut, q) - jacobian_inertia(robot, q)).max(0)
    bounds = dut.output_bounds
    for (j, i), bound in bounds.items():
        slack = 1e-12 * max(abs(bound), 1.0)      # float64's own rounding of the reference
        assert error[j - 1, i - 1] <= bound + slack, ((j, i), error[j - 1, i - 1], bound)
    assert max(error[j - 1, i - 1] / b for (j, i), b in bounds.items() if b) > 0.01


@pytest.mark.parametrize("plan", PLANS.values(), ids=PLANS)
@pytest.mark.parametrize("width", [12, 16, 20, 31])
def test_formats_never_overflow(plan, width):
    # The model raises OverflowError naming the node if any register leaves signed(width)
    # (the next test shows the check firing). The largest output code stays in range and
    # within two bits of it: the proven ranges waste little (empirical, these robots).
    rng = np.random.default_rng(width)
    for n in (3, 7, 12):
        robot = random_robot(rng, n, prismatic=0.3)
        dut = plan(robot, width=width)
        q = configurations(robot, rng, 20_000)
        out = model_outputs(dut, encode_joints(dut, q))
        peak = max(int(np.abs(codes).max()) for codes in out.values())
        assert 1 << (width - 3) <= peak < 1 << (width - 1)


def test_a_format_that_claims_too_many_fraction_bits_is_caught():
    plan = LinearPlan("puma560", width=16)
    q = configurations(plan.robot, np.random.default_rng(12), 2000)
    model_outputs(plan, encode_joints(plan, q))
    products = [k for k in plan.live if plan.tracer.nodes[k].op == "mul"]
    index = max(products, key=lambda k: plan.tracer.nodes[k].magnitude)
    plan.formats[index] = dataclasses.replace(plan.formats[index],
                                              frac=plan.formats[index].frac + 4)
    with pytest.raises(OverflowError, match=r"\(mul\) leaves signed\(16\)"):
        model_outputs(plan, encode_joints(plan, q))


@pytest.mark.heavy
@pytest.mark.parametrize("array", ARRAYS.values(), ids=ARRAYS)
def test_puma_rtl_equals_model_under_stalls(array):
    robot = load_robot()
    dut = array(robot, tag_width=8, check_ranges=True)
    q = configurations(robot, np.random.default_rng(4), 24)
    source, sink = [1, 1, 0, 1, 1, 1, 0], [1, 0, 1, 1, 0]
    check_rtl(dut, q, source_valid=lambda c: source[c % len(source)],
              sink_ready=lambda c: sink[c % len(sink)])


@pytest.mark.heavy
@pytest.mark.parametrize("array", ARRAYS.values(), ids=ARRAYS)
def test_puma_latency_and_throughput(array):
    robot = load_robot()
    dut = array(robot, tag_width=8)
    run = check_rtl(dut, configurations(robot, np.random.default_rng(5), 16))
    lengths, n = dut.window_lengths, robot.dof
    if array is LinearInertiaArray:
        formula = lengths["in"] + lengths["T"] + max(n * lengths["A"],
                                                     lengths["A"] + (n - 1) * lengths["B"])
    else:
        formula = lengths["in"] + lengths["T"] + lengths["D"] + \
            log2_levels(n) * (lengths["A"] + lengths["B"])
    formula += 2      # the stream's output queue: its memory write and its read register
    assert run.output_cycles[0] - run.input_cycles[0] == dut.latency == formula
    # Counted in the elaborated netlist: every path crosses that many registers.
    assert register_depths(array(robot, tag_width=8)) == {formula}
    # One configuration per clock: consecutive inputs, consecutive results.
    assert np.all(np.diff(run.input_cycles) == 1) and np.all(np.diff(run.output_cycles) == 1)
    assert dut.interval == 1


@pytest.mark.parametrize("array", ARRAYS.values(), ids=ARRAYS)
@pytest.mark.parametrize("n", heavy_unless(range(1, 7), small=(1, 2, 3)) +
                         [pytest.param(n, marks=pytest.mark.slow) for n in (7, 8)])
def test_random_robot_rtl_equals_model(array, n):
    rng = np.random.default_rng(20 + n)
    robot = random_robot(rng, n, prismatic=0.3)
    dut = array(robot, width=18, tag_width=8)
    run = check_rtl(dut, configurations(robot, rng, 6))
    assert run.output_cycles[0] - run.input_cycles[0] == dut.latency


def test_logdepth_is_shallower_for_long_arms():
    rng = np.random.default_rng(9)
    robot = random_robot(rng, 12, prismatic=0.0)
    linear, logdepth = LinearPlan(robot), LogDepthPlan(robot)
    assert logdepth.latency < linear.latency
    assert logdepth.resources()["processing_elements"] > \
        linear.resources()["processing_elements"]


def test_a_short_window_is_caught():
    plan = LinearPlan("puma560")

    def window(cell):  # every processing element one cycle shorter than it needs
        first, end = plan._window(cell)
        return first, end - 1 if cell[0] == "A" else end

    with pytest.raises(AssertionError, match="after its window"):
        schedule(plan.tracer, plan.live, window, plan._input_ready)


# Unfolded arrays' Verilog under Verilator in `make slow` (a minute's build each): `make test`
# compiles the folded ones in tests/shared/test_compiled.py (the registry's linear array under
# stalls, the log-depth one through the inertia command, byte for byte) and an unfolded traced
# pipeline through the dynamics command.
@pytest.mark.slow
@pytest.mark.parametrize("array", ARRAYS.values(), ids=ARRAYS)
def test_exported_verilog_equals_model_under_verilator(array, compiled_models):
    # Unfolded (the registry's designs are folded; tests/shared/test_compiled.py runs those): the
    # exported Verilog under Verilator, through the compiled backend.
    robot = load_robot()
    dut = array(robot, width=16, tag_width=8)
    codes, inputs = payloads(dut, configurations(robot, np.random.default_rng(6), 300))
    sink = [True] * 7 + [False]
    run = run_stream_compiled(dut, inputs, source_pattern=[True, True, False, True],
                              sink_pattern=sink, directory=compiled_models)
    assert [o["tag"] for o in run.outputs] == [p["tag"] for p in inputs]
    got = output_codes(dut.plan, run.outputs)
    for key, values in model_outputs(dut.plan, codes).items():
        assert got[key].tolist() == values.tolist(), key
    # The first result shows `latency` cycles after its input and leaves when the sink takes it.
    shown = run.input_cycles[0] + dut.latency
    assert run.output_cycles[0] == next(c for c in range(shown, shown + 8)
                                        if sink[c % len(sink)])


def two_link_arm(mass1, mass2=1.0):
    """A 1 m planar arm: links of ``mass1`` and ``mass2`` kg with their centres mid-link."""
    def joint(mass):
        return Joint("revolute", 1.0, 0.0, 0.0, 0.0, limits=(-np.pi, np.pi), mass=mass,
                     com=(-0.5, 0.0, 0.0), inertia=(0.1, 0.1, 0.1, 0.0, 0.0, 0.0))
    return Robot("planar arm", (joint(mass1), joint(mass2)))


@pytest.mark.parametrize("mass", [3e6, 1e8])
@pytest.mark.parametrize("array", ARRAYS.values(), ids=ARRAYS)
def test_a_very_heavy_link_model_equals_rtl_and_float(array, mass):
    # The model once wrapped int64 in its alignment shifts here (H11 = 225,715 for 750,003;
    # at 1e8 kg an H that was not positive definite) while the RTL computed it right.
    robot = two_link_arm(mass)
    q = configurations(robot, np.random.default_rng(13), 40)
    reference = jacobian_inertia(robot, q)
    dut = array(robot, width=24, tag_width=8)
    assert np.abs(model_inertia(dut.plan, q) - reference).max() <= \
        ACCURACY_GOAL * np.abs(reference).max()
    check_rtl(dut, q[:8])


@st.composite
def extreme_robots(draw):
    """Serial robots with masses from 1 g to 1e8 kg, lengths from 1 mm to 100 m, any twist."""
    joints = []
    for _ in range(draw(st.integers(1, 4))):
        scale = st.floats(-3, 2)
        moments = 10 ** draw(st.floats(-4, 3)) * np.array([1.0, 1.0, 1.5])
        joints.append(Joint(
            "revolute", 10 ** draw(scale) * draw(st.sampled_from([0, 1])),
            draw(st.sampled_from([0.0, np.pi / 2, -np.pi / 2, 1.0])),
            10 ** draw(scale) * draw(st.sampled_from([0, 1])), 0.0, limits=(-np.pi, np.pi),
            mass=10 ** draw(st.floats(-3, 8)),
            com=tuple(10 ** draw(scale) * np.array(draw(st.sampled_from(
                [(1.0, 0.0, 0.0), (0.3, -0.5, 0.2), (0.0, 0.0, -1.0)])))),
            inertia=(*moments, 0.0, 0.0, 0.0)))
    return Robot("extreme robot", tuple(joints))


@settings(max_examples=40, deadline=None)
@given(robot=extreme_robots(), width=st.sampled_from([12, 16, 24, 31]),
       array=st.sampled_from(list(PLANS)))
def test_extreme_robots_model_is_exact_and_never_overflows(robot, width, array):
    # Formats are sized for the value plus every error it can carry: the model (which raises
    # OverflowError naming the node if a register would leave signed(width)) runs through
    # configurations in the limits and at them; at 24 bits the accuracy goal holds.
    plan = PLANS[array](robot, width=width)
    q = configurations(robot, np.random.default_rng(width), 400)
    got = model_inertia(plan, q)
    if width == 24:
        reference = jacobian_inertia(robot, q)
        assert np.abs(got - reference).max() <= ACCURACY_GOAL * np.abs(reference).max()


def test_the_formats_assume_the_cordics_stated_error():
    assert TRIG_ERROR_LSB == ERROR_BOUND_LSB[System.CIRCULAR]
