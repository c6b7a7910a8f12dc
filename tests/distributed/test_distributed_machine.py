"""The link computers in hardware: the Amaranth RTL and the exported Verilog under Verilator
equal the bit-exact model (torques, validity, tags) under stalls, a state every interval of
the thesis's formulas, latency three sample periods and the output queue's.

The Amaranth simulator runs this design at about 230 cycles a second here (six processors,
two units each, 48-bit operands through wide shifts): `make test` simulates a few samples of
zero-order prediction; the other schemes (first-order prediction's corrections included),
other units and long runs under Verilator are in `make slow`."""

import numpy as np
import pytest

from robohw.distributed.machine import LinkComputers
from robohw.distributed.model import model_run, prediction_depth
from robohw.distributed.thesis import sample_trajectory
from robohw.dynamics.inverse.codec import encode_states, torque_codes
from robohw.sim.compiled import run_stream_compiled
from robohw.sim.harness import run_stream


def _payloads(dut, count, number=1, duration=1.0):
    _, q, qd, qdd = sample_trajectory(number, duration)
    codes = encode_states(dut.plan, q[:count], qd[:count], qdd[:count])
    payloads = [{**{f: int(v[k]) for f, v in codes.items()},
                 "tag": k % (1 << dut.tag_width)} for k in range(count)]
    return codes, payloads


def _check(dut, run, codes):
    out, valid = model_run(dut.plan, codes)
    count = len(valid)
    assert [o["tag"] for o in run.outputs] == [k % (1 << dut.tag_width) for k in range(count)]
    got = torque_codes(dut.plan, run.outputs)
    for k in range(1, 7):
        assert got[k].tolist() == [int(v) for v in out[k]], k
    assert [o["valid"] for o in run.outputs] == valid.astype(int).tolist()


@pytest.mark.heavy
def test_zero_order_prediction_rtl_equals_the_model():
    dut = LinkComputers(scheme="zero", width=24, tag_width=3)
    codes, payloads = _payloads(dut, 3)
    # The sink stalls once the first torques are out.
    run = run_stream(dut, payloads, sink_ready=lambda c: c < 780 or c % 3 != 1)
    _check(dut, run, codes)
    # A state every 257 cycles (Table 2.1's operations, one a cycle); its torques three
    # sample periods and the output queue's two cycles later.
    assert np.diff(run.input_cycles).tolist() == [257, 257]
    assert run.output_cycles[0] - run.input_cycles[0] == 3 * 257 + 2 == dut.latency


@pytest.mark.slow
@pytest.mark.parametrize("scheme, interval", [("serial", 1542), ("v1", 1052), ("v2", 812),
                                              ("hybrid", 497), ("first", 334)])
def test_the_other_schemes_rtl_equals_the_model(scheme, interval):
    dut = LinkComputers(scheme=scheme, width=24, tag_width=3)
    codes, payloads = _payloads(dut, 3)
    run = run_stream(dut, payloads)
    _check(dut, run, codes)
    assert np.diff(run.input_cycles).tolist() == [interval] * 2 == [dut.interval] * 2


@pytest.mark.slow
@pytest.mark.parametrize("options", [{"issue": "dual"},
                                     {"multiplier_latency": 3, "adder_latency": 2}])
def test_other_units_rtl_equals_the_model(options):
    dut = LinkComputers(scheme="zero", width=24, tag_width=3, **options)
    codes, payloads = _payloads(dut, 3)
    run = run_stream(dut, payloads)
    _check(dut, run, codes)
    assert np.diff(run.input_cycles).tolist() == [dut.interval] * 2
    assert dut.interval == sum(dut.plan.term_cycles.values()) < 257 + 10


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["zero", "hybrid", "serial", "first"])
def test_verilog_equals_the_model_over_a_trajectory(scheme, compiled_models):
    # 48 bits, trajectory 2 in 2 s (401 states) under stalls on both sides; a few minutes'
    # build each.
    dut = LinkComputers(scheme=scheme, width=48, tag_width=8)
    codes, payloads = _payloads(dut, 401, number=2, duration=2.0)
    run = run_stream_compiled(dut, payloads, source_pattern=[1, 1, 0],
                              sink_pattern=[1, 0, 1, 1], directory=compiled_models)
    _check(dut, run, codes)
    assert sum(o["valid"] for o in run.outputs) == 401 - prediction_depth(dut.plan)
