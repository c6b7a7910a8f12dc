"""Exported Verilog of both CORDIC architectures under cocotb + Verilator, against the model."""

import numpy as np
import pytest

from cordic.config import CordicConfig
from cordic.pipelined import PipelinedCordic
from cordic.word_serial import WordSerialCordic
from sim.cordic_accuracy import corner_inputs, sample_inputs
from sim.cordic_model import cordic_model
from sim.verilator import run_stream_verilator


@pytest.mark.parametrize("architecture, system, direction, normalization", [
    (PipelinedCordic, "circular", "rotation", "interleaved"),
    (PipelinedCordic, "hyperbolic", "rotation", "multiply"),
    (WordSerialCordic, "hyperbolic", "vectoring", "after"),
    (WordSerialCordic, "linear", "vectoring", "interleaved"),
])
def test_verilog_equals_model(tmp_path, architecture, system, direction, normalization):
    config = CordicConfig(system, direction, width=16, normalization=normalization)
    rng = np.random.default_rng(7)
    fmt = config.io_format
    raw = [rng.integers(fmt.min_int, fmt.max_int + 1, 200) for _ in range(3)]
    x, y, z = (np.concatenate(p) for p in zip(sample_inputs(config, 300, rng), raw,
                                              corner_inputs(config)))
    payloads = [{"x": int(a), "y": int(b), "z": int(c), "tag": k % 256}
                for k, (a, b, c) in enumerate(zip(x, y, z))]
    dut = architecture(config, tag_width=8)
    outputs, stats = run_stream_verilator(
        dut, payloads, name="cordic", build_dir=tmp_path,
        source_pattern=[True, True, False, True, True, True, False],
        sink_pattern=[True, False, True, True, True, False, False, True])
    want = cordic_model(config, x, y, z)
    assert [o["tag"] for o in outputs] == [p["tag"] for p in payloads]
    for name in ("x", "y", "z", "domain_error", "overflow"):
        assert [o[name] for o in outputs] == getattr(want, name).astype(int).tolist(), name
    # Without stalls in the way the first result takes exactly the stated latency.
    assert stats["output_cycles"][0] - stats["input_cycles"][0] == dut.latency
