"""Both CORDIC architectures, simulated cycle by cycle in Amaranth, against the bit-exact model:
exact equality, measured latency and throughput, and random stalls on both streams."""

from fractions import Fraction

import numpy as np
import pytest
from amaranth.hdl import Module, Signal, signed
from amaranth.sim import Simulator
from hypothesis import given, settings
from hypothesis import strategies as st
from netlist import register_depths
from tiers import HEAVY, heavy_unless

from robohw.cordic.accuracy import mixed_inputs
from robohw.cordic.config import CordicConfig, Direction, Normalization, System
from robohw.cordic.model import cordic_model
from robohw.cordic.pipelined import PipelinedCordic
from robohw.cordic.word_serial import WordSerialCordic, word_serial_datapath, word_serial_period
from robohw.sim.harness import run_stream


class OneCycleWordSerial(WordSerialCordic):
    """The word-serial unit with shifter and adder in one cycle a step."""
    def __init__(self, config, **kwargs):
        super().__init__(config, registered_shift=False, **kwargs)


ARCHITECTURES = [PipelinedCordic, WordSerialCordic, OneCycleWordSerial]
MODES = [(s, d) for s in System for d in Direction]
CONFIGS = [(s, d, n) for s, d in MODES for n in Normalization
           if s is not System.LINEAR or n is Normalization.INTERLEAVED]
TAG_WIDTH = 10


def check_against_model(dut, x, y, z, **stalls):
    payloads = [{"x": int(a), "y": int(b), "z": int(c), "tag": k % (1 << TAG_WIDTH)}
                for k, (a, b, c) in enumerate(zip(x, y, z))]
    run = run_stream(dut, payloads, **stalls)
    want = cordic_model(dut.config, x, y, z)
    got = {name: np.array([out[name] for out in run.outputs]) for name in run.outputs[0]}
    assert got["tag"].tolist() == [p["tag"] for p in payloads]  # none lost, duplicated, reordered
    for name in ("x", "y", "z", "domain_error", "overflow"):
        assert got[name].tolist() == getattr(want, name).astype(int).tolist(), name
    return run


@pytest.mark.parametrize("architecture", heavy_unless(ARCHITECTURES,
                                                      small=(PipelinedCordic, WordSerialCordic)))
@pytest.mark.parametrize("system, direction, normalization", [
    config if config[2] is Normalization.INTERLEAVED else pytest.param(*config, marks=HEAVY)
    for config in CONFIGS])
def test_rtl_equals_model(architecture, system, direction, normalization):
    config = CordicConfig(system, direction, width=12, normalization=normalization)
    check_against_model(architecture(config, tag_width=TAG_WIDTH), *mixed_inputs(config, 40, 1))


@pytest.mark.parametrize("architecture", heavy_unless(ARCHITECTURES,
                                                      small=(PipelinedCordic, WordSerialCordic)))
@pytest.mark.parametrize("kwargs", [
    pytest.param(dict(system="circular", direction="rotation", width=24), marks=HEAVY),
    pytest.param(dict(system="circular", direction="vectoring", width=32, rounding="truncate"),
                 marks=HEAVY),
    pytest.param(dict(system="hyperbolic", direction="rotation", width=40,
                      normalization="multiply"), marks=HEAVY),
    dict(system="linear", direction="vectoring", width=4, frac_bits=1),
    dict(system="hyperbolic", direction="vectoring", width=16, guard_bits=0, iterations=14,
         normalization="after", rounding="truncate"),
    dict(system="circular", direction="rotation", width=16, shifts=[0, 1, 2, 3, 3, 4, 5, 6]),
    dict(system="hyperbolic", direction="vectoring", width=16, expansion=2),
    dict(system="hyperbolic", direction="rotation", width=12, expansion=4, normalization="after"),
    dict(system="hyperbolic", direction="vectoring", width=12, expansion=3,
         normalization="multiply"),
])
def test_rtl_equals_model_other_parameters(architecture, kwargs):
    kwargs = dict(kwargs)
    config = CordicConfig(kwargs.pop("system"), kwargs.pop("direction"), **kwargs)
    check_against_model(architecture(config, tag_width=TAG_WIDTH), *mixed_inputs(config, 30, 2))


@pytest.mark.parametrize("architecture", ARCHITECTURES)
@pytest.mark.parametrize("normalization", ["interleaved", "after", "multiply"])
def test_latency_and_throughput_are_as_stated(architecture, normalization):
    config = CordicConfig("circular", "rotation", width=12, normalization=normalization)
    dut = architecture(config, tag_width=TAG_WIDTH)
    run = check_against_model(dut, *mixed_inputs(config, 20, 3))
    latencies = np.array(run.output_cycles) - np.array(run.input_cycles)
    assert set(latencies.tolist()) == {dut.latency}
    assert set(np.diff(run.output_cycles).tolist()) == {dut.interval}
    assert set(np.diff(run.input_cycles).tolist()) == {dut.interval}
    # One register step per micro-rotation and per non-trivial normalization factor (no step
    # chains two adders); then the finish stages: rounding, saturation, and before them the
    # gain multiplication when there is one.
    program = sum((s.shift is not None) + (s.gamma != 0) for s in config.steps)
    finish = 2 + (normalization == "multiply")
    if architecture is PipelinedCordic:
        # Counted in the elaborated netlist: the registers between the input and the output,
        # the stream's output queue last (its memory write and its read register).
        assert register_depths(dut) == {dut.latency} == {1 + program + finish + 2}
        assert (dut.interval, dut.throughput) == (1, 1)
    else:
        # The unit loads in one cycle, then runs the program a step every two cycles (shift,
        # then add; one with registered_shift=False), the last into its result register; a new
        # operand loads during the last step.
        per_step = 2 if dut.registered_shift else 1
        assert (dut.latency, dut.interval) == (1 + per_step * program + finish,
                                               per_step * program)
        assert dut.throughput == Fraction(1, per_step * program)


def run_interleaved(config, pairs, spacing):
    """Pairs of operands into an interleaved word-serial unit (``start`` high for two cycles,
    a pair every ``spacing`` cycles); returns the outputs read in the two start cycles of the
    next pair (the first result, then the second) and the model's results."""
    m = Module()
    x, y, z = (Signal(signed(config.width), name=n) for n in "xyz")
    start = Signal()
    unit = word_serial_datapath(m, config, x, y, z, start, interleave=2)
    xs, ys, zs = (v[:2 * pairs] for v in mixed_inputs(config, 2 * pairs, 4))
    fields = ("x", "y", "z", "domain_error", "overflow")
    got = []

    async def bench(ctx):
        for k in range(pairs + 1):
            for slot in range(2):
                if k:
                    got.append([ctx.get(unit.outputs[f]) for f in fields])
                if k < pairs:
                    for port, values in zip((x, y, z), (xs, ys, zs)):
                        ctx.set(port, int(values[2 * k + slot]))
                ctx.set(start, 1)
                await ctx.tick()
            ctx.set(start, 0)
            await ctx.tick().repeat(spacing - 2)
    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    want = cordic_model(config, xs, ys, zs)
    return np.array(got).T, np.array([getattr(want, f).astype(int) for f in fields])


@pytest.mark.parametrize("kwargs", [
    dict(system="circular", direction="rotation", width=12),
    dict(system="circular", direction="vectoring", width=14, normalization="after"),
    dict(system="linear", direction="rotation", width=12),
    dict(system="hyperbolic", direction="vectoring", width=16, expansion=2),
    dict(system="hyperbolic", direction="rotation", width=12, expansion=4,
         normalization="multiply"),
])
def test_interleaved_unit_equals_model_at_its_period(kwargs):
    # Two operands a unit, C-slow: each result equals the model's when the pairs come every
    # word_serial_period cycles (and later); one cycle sooner, some first result is not
    # caught yet. The period derived here: the operand registers, the load, a shift and an
    # add cycle per register step, the finish stages, one cycle for the second operand.
    kwargs = dict(kwargs)
    config = CordicConfig(kwargs.pop("system"), kwargs.pop("direction"), **kwargs)
    program = sum((s.shift is not None) + (s.gamma != 0) for s in config.steps)
    finish = 2 + (config.normalization is Normalization.MULTIPLY)
    period = word_serial_period(config, True, 2)
    assert period == 1 + 1 + 2 * program + finish + 1
    for spacing in (period, period + 3):
        got, want = run_interleaved(config, 5, spacing)
        assert got.tolist() == want.tolist()
    got, want = run_interleaved(config, 5, period - 1)
    assert got.tolist() != want.tolist()


def test_interleave_is_checked():
    config = CordicConfig("circular", "rotation", width=12)
    for interleave in (3, 0, 2.0, True):
        with pytest.raises(ValueError, match=f"interleave must be 1 or 2, not {interleave!r}"):
            word_serial_period(config, True, interleave)
    with pytest.raises(ValueError, match="interleave 2 needs registered_shift"):
        word_serial_datapath(Module(), config, 0, 0, 0, Signal(), registered_shift=False,
                             interleave=2)
    with pytest.raises(ValueError, match="an interleaved word-serial unit cannot hold"):
        word_serial_datapath(Module(), config, 0, 0, 0, Signal(), hold=Signal(), interleave=2)


@pytest.mark.heavy
@settings(max_examples=25, deadline=None)
@given(architecture=st.sampled_from(ARCHITECTURES),
       mode=st.sampled_from(CONFIGS),
       source=st.lists(st.booleans(), min_size=1, max_size=16),
       sink=st.lists(st.booleans(), min_size=1, max_size=16),
       seed=st.integers(0, 2 ** 16))
def test_random_stalls_lose_nothing(architecture, mode, source, sink, seed):
    system, direction, normalization = mode
    config = CordicConfig(system, direction, width=8, normalization=normalization)
    source = source if any(source) else source + [True]
    sink = sink if any(sink) else sink + [True]
    rng = np.random.default_rng(seed)
    fmt = config.io_format
    x, y, z = (rng.integers(fmt.min_int, fmt.max_int + 1, 24) for _ in range(3))
    check_against_model(architecture(config, tag_width=TAG_WIDTH), x, y, z,
                        source_valid=lambda c: source[c % len(source)],
                        sink_ready=lambda c: sink[c % len(sink)])


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_bad_component_arguments(architecture):
    with pytest.raises(TypeError, match="config must be a CordicConfig"):
        architecture("circular")
    with pytest.raises(ValueError, match="tag_width must be a non-negative integer"):
        architecture(CordicConfig("circular", "rotation"), tag_width=-1)
