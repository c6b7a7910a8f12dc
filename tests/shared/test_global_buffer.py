"""The phase enables on an ECP5's clock networks (robohw.hw.global_buffer): a DCCA per phase and
one ring in a folded design's ECP5 netlist while the networks suffice, the rings' copies
otherwise and in every other netlist. That the ECP5 netlist computes what the model does, in
the same cycles, is test_multiplier's Verilator run (its DCCAs as robohw.sim.primitives models
them)."""

import re

import pytest
from amaranth.back import verilog
from amaranth.hdl import Module, Signal, signed
from netlist import phase_rings

from robohw.dataflow.component import TracedPipeline
from robohw.dataflow.plan import TracedPlan
from robohw.hw.devices import DEVICES, is_ecp5
from robohw.hw.global_buffer import ECP5_FABRIC_GLOBALS, global_buffer, global_buffers
from robohw.sim.primitives import primitive_models

ECP5, ICE40 = DEVICES["ecp5-85k"], DEVICES["ice40-up5k"]


class _Sums(TracedPlan):
    """Two products and a sum of three inputs in [-1, 1]."""
    def _trace(self):
        a, b, c = (self.value_input(name, name, -1.0, 1.0) for name in "abc")
        return {"p": a * b + c, "q": (a * c) * b}


def _netlist(fold, platform):
    plan = _Sums(width=12, fold=fold)
    dut = TracedPipeline(plan, {name: signed(12) for name in "abc"},
                         {key: key for key in "pq"}, tag_width=2)
    return verilog.convert(dut, name="top", platform=platform)


def test_an_ecp5_is_a_platform_of_that_family():
    class Lattice:  # Amaranth's LatticePlatform names its family the same way
        family = "ecp5"
    assert is_ecp5(ECP5) and is_ecp5(Lattice())
    assert not is_ecp5(ICE40) and not is_ecp5(None)


def test_an_ecp5_has_seven_networks_for_enables():
    assert ECP5_FABRIC_GLOBALS == 7
    assert global_buffers(ECP5, 2) and global_buffers(ECP5, 7)
    assert not global_buffers(ECP5, 8)
    assert not global_buffers(ICE40, 2) and not global_buffers(None, 2)


def test_a_buffer_is_a_dcca_on_an_ecp5_and_the_signal_itself_elsewhere():
    m = Module()
    signal = Signal()
    assert global_buffer(m, signal, "x", None) is signal
    assert global_buffer(m, signal, "x", ICE40) is signal
    buffered = global_buffer(m, signal, "x", ECP5)
    assert buffered is not signal and buffered.name == "x"
    text = verilog.convert(m, ports=[signal, buffered], platform=ECP5)
    assert re.search(r"DCCA x_dcca \(", text)
    assert "assign CLKO = CLKI & CE;" in primitive_models(text)


@pytest.mark.parametrize("fold", [2, ECP5_FABRIC_GLOBALS])
def test_a_folded_ecp5_netlist_enables_its_registers_from_one_ring_on_the_clock_networks(fold):
    ecp5, generic = _netlist(fold, ECP5), _netlist(fold, None)
    assert len(re.findall(r"\bDCCA global_phase\d+_dcca \(", ecp5)) == fold
    # The fold control's own ring (the input's phase) and the one on the networks.
    assert phase_rings(ecp5) == {"phase", "global_ring"}
    assert "DCCA" not in generic and "global_ring" not in generic
    assert len(phase_rings(generic)) > 2


def test_more_phases_than_networks_keep_the_rings_copies():
    fold = ECP5_FABRIC_GLOBALS + 1
    ecp5, generic = _netlist(fold, ECP5), _netlist(fold, None)
    assert "DCCA" not in ecp5
    assert phase_rings(ecp5) == phase_rings(generic)


def test_the_synthesis_flow_places_each_buffer_on_a_bel_of_its_own():
    # Out of context nextpnr places no DCCA where the fabric reaches it: the flow does
    # (robohw.flows.synth), for as many as global_buffers allows, on every ECP5.
    from robohw.flows.synth import _CLOCK_BUFFER_BELS, SynthError, _clock_buffers
    assert {device for device in DEVICES if is_ecp5(DEVICES[device])} == \
        set(_CLOCK_BUFFER_BELS)
    for bels in _CLOCK_BUFFER_BELS.values():
        assert len(set(bels)) == len(bels) == ECP5_FABRIC_GLOBALS
    fold = ECP5_FABRIC_GLOBALS
    placed = _clock_buffers(_netlist(fold, ECP5), "ecp5-45k")
    assert [buffer for buffer, _ in placed] == [f"global_phase{p}_dcca" for p in range(fold)]
    assert [bel for _, bel in placed] == list(_CLOCK_BUFFER_BELS["ecp5-45k"])
    assert _clock_buffers(_netlist(fold, None), "ecp5-85k") == []
    with pytest.raises(SynthError, match="7 clock buffers \\(DCCA\\), 0 placeable on ice40"):
        _clock_buffers(_netlist(fold, ECP5), "ice40-hx8k")
