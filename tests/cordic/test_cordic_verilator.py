"""Exported Verilog of both CORDIC architectures under cocotb + Verilator: the same vectors
and stalls through the Verilog, the Amaranth simulation and the bit-exact model, all equal."""

import pytest

from robohw.cordic.accuracy import mixed_inputs
from robohw.cordic.config import CordicConfig
from robohw.cordic.model import cordic_model
from robohw.cordic.pipelined import PipelinedCordic
from robohw.cordic.word_serial import WordSerialCordic
from robohw.sim.harness import run_stream
from robohw.sim.verilator import run_stream_verilator

# Verilator builds under cocotb: in `make test`, not in the fast loop `make check`.
pytestmark = pytest.mark.heavy

SOURCE = [True, True, False, True, True, True, False]
SINK = [True, False, True, True, True, False, False, True]


# A minute or more each under cocotb: one per architecture in `make test`, the other two in
# `make slow` (tests/shared/test_compiled.py runs both architectures compiled as well).
@pytest.mark.parametrize("architecture, system, direction, normalization", [
    (PipelinedCordic, "circular", "rotation", "interleaved"),
    pytest.param(PipelinedCordic, "hyperbolic", "rotation", "multiply", marks=pytest.mark.slow),
    pytest.param(WordSerialCordic, "hyperbolic", "vectoring", "after", marks=pytest.mark.slow),
    (WordSerialCordic, "linear", "vectoring", "interleaved"),
])
def test_verilog_equals_amaranth_and_model(tmp_path, architecture, system, direction,
                                           normalization):
    config = CordicConfig(system, direction, width=16, normalization=normalization)
    x, y, z = mixed_inputs(config, 250, seed=7)
    payloads = [{"x": int(a), "y": int(b), "z": int(c), "tag": k % 256}
                for k, (a, b, c) in enumerate(zip(x, y, z))]
    verilog, stats = run_stream_verilator(
        architecture(config, tag_width=8), payloads, name="cordic",
        source_pattern=SOURCE, sink_pattern=SINK)
    amaranth = run_stream(architecture(config, tag_width=8), payloads,
                          source_valid=lambda c: SOURCE[c % len(SOURCE)],
                          sink_ready=lambda c: SINK[c % len(SINK)])
    assert verilog == amaranth.outputs
    # Same stalls, same cycles: the Verilog is cycle-accurate to the Amaranth design.
    assert stats["input_cycles"] == amaranth.input_cycles
    assert stats["output_cycles"] == amaranth.output_cycles
    want = cordic_model(config, x, y, z)
    assert [o["tag"] for o in verilog] == [p["tag"] for p in payloads]
    for name in ("x", "y", "z", "domain_error", "overflow"):
        assert [o[name] for o in verilog] == getattr(want, name).astype(int).tolist(), name
