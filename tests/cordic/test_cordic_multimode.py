"""The multi-mode word-serial CORDIC (robohw.cordic.multimode): every mode equal to its own
configuration's bit-exact model, in its own configuration's cycles."""

import numpy as np
import pytest

from robohw.cordic.config import CordicConfig, Direction, System
from robohw.cordic.datapath import finish_stages, register_steps
from robohw.cordic.model import cordic_model
from robohw.cordic.multimode import OUTPUT_FIELDS, MultiModeCordic, check_modes
from robohw.sim.harness import run_stream

MODES = [(System.CIRCULAR, Direction.ROTATION), (System.CIRCULAR, Direction.VECTORING),
         (System.LINEAR, Direction.ROTATION), (System.LINEAR, Direction.VECTORING)]


def _configs(width, frac_bits):
    return [CordicConfig(s, d, width=width, frac_bits=frac_bits) for s, d in MODES]


def _expected(config, x, y, z):
    out = cordic_model(config, [x], [y], [z])
    return {f: int(getattr(out, f)[0]) for f in OUTPUT_FIELDS}


@pytest.mark.parametrize("width, frac_bits", [(16, 13), (28, 26)])
def test_every_mode_equals_its_model_under_backpressure(width, frac_bits):
    configs = _configs(width, frac_bits)
    rng = np.random.default_rng(width)
    count = 48
    low, high = -(1 << (width - 1)), 1 << (width - 1)
    codes = rng.integers(low, high, (count, 3))
    codes[:8] = [[low, high - 1, high - 1], [high - 1, low, low], [0, low, 0], [low, 0, low],
                 [0, 0, 0], [-1, 1, -1], [high - 1, high - 1, high - 1], [low, low, low]]
    modes = np.concatenate([np.arange(8) % 4, rng.integers(0, 4, count - 8)])
    payloads = [{"x": int(x), "y": int(y), "z": int(z), "mode": int(k), "tag": n}
                for n, ((x, y, z), k) in enumerate(zip(codes, modes))]
    sink = [1, 1, 0, 1, 0]
    run = run_stream(MultiModeCordic(configs, tag_width=6), payloads,
                     sink_ready=lambda c: sink[c % 5])
    assert [o["tag"] for o in run.outputs] == list(range(count))
    for (x, y, z), k, got in zip(codes, modes, run.outputs):
        assert {f: got[f] for f in OUTPUT_FIELDS} == _expected(configs[k], x, y, z), MODES[k]
    # Some results are flagged, so the flags are compared too.
    assert any(o["domain_error"] for o in run.outputs) and any(o["overflow"]
                                                               for o in run.outputs)


def test_each_mode_takes_its_own_configurations_cycles():
    configs = _configs(16, 13)
    dut = MultiModeCordic(configs)
    # Derived here: the load, two cycles a register step (shift, then add), the finish stages;
    # the next operand may start in the cycle of the last add.
    timing = [(1 + 2 * len(register_steps(c)) + len(finish_stages(c)),
               2 * len(register_steps(c))) for c in configs]
    assert [(dut.latency_of(k), dut.interval_of(k)) for k in range(4)] == timing
    payloads = [{"x": 100, "y": 50, "z": 10, "mode": k % 4} for k in range(8)]
    run = run_stream(dut, payloads)
    latencies = np.subtract(run.output_cycles, run.input_cycles).tolist()
    assert latencies == [timing[k % 4][0] for k in range(8)]
    assert np.diff(run.input_cycles).tolist() == [timing[k % 4][1] for k in range(7)]
    assert timing[0] != timing[2]          # circular and linear differ: the table switches


def test_modes_are_checked():
    with pytest.raises(ValueError, match=r"circular and linear modes, not hyperbolic"):
        check_modes([CordicConfig(System.HYPERBOLIC, Direction.ROTATION, width=16)])
    with pytest.raises(ValueError, match=r"the modes' width differ"):
        check_modes([CordicConfig(System.LINEAR, Direction.ROTATION, width=16),
                     CordicConfig(System.LINEAR, Direction.ROTATION, width=18)])
    with pytest.raises(ValueError, match=r"normalizes by steps, not by a multiplier"):
        check_modes([CordicConfig(System.CIRCULAR, Direction.ROTATION, width=16,
                                  normalization="multiply")])
    with pytest.raises(TypeError, match=r"non-empty sequence of CordicConfig"):
        check_modes([])
