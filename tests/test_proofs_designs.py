"""Formal proofs (SymbiYosys, Yices; ``make prove``): the stream contract and the timing of
whole designs, at reduced sizes.

The designs are the project's, unchanged, at a width of 6 bits and two micro-rotations (the
datapath is the same logic at every width and count; the default designs are beyond any
solver): the word-serial CORDIC, whose step counter sets its latency and interval, and the
pipelined CORDIC on the stream-pipeline base. ``formal_streams.py`` numbers the input
transfers through the tag and asserts, for every stall pattern within the bound, that
nothing is lost, duplicated or reordered and that ``o`` holds while it waits; with ``o.ready``
and ``i.valid`` high, that each result leaves exactly the stated latency after its input and
that inputs are taken exactly once per stated interval. A claim one cycle off must fail.
"""

import pytest

from robohw.cordic.config import CordicConfig
from robohw.cordic.pipelined import PipelinedCordic
from robohw.cordic.word_serial import WordSerialCordic
from robohw.flows.formal import prove

from formal_streams import stream_contract

pytestmark = [pytest.mark.slow, pytest.mark.formal]


def _config():
    # Two micro-rotations and one normalization step (the factor after them): R = 3 register
    # steps; finishing: rounding, then saturation (F = 2 stages).
    return CordicConfig("circular", "rotation", width=6, iterations=2)


# The word-serial CORDIC: each register step takes 2 cycles (the registered shift), so an input
# is taken every 2 R = 6 cycles; its result is valid 1 (the input register) + 2 R + F = 9
# cycles after it. It holds one operand in the unit and one result waiting at o.
WORD_SERIAL = dict(tag_width=3, capacity=2, latency=1 + 2 * 3 + 2, interval=2 * 3, depth=40)
# The pipelined CORDIC: 1 + R + F = 6 register stages and the output queue's 2 cycles; an input
# every cycle; the queue's entries bound what is inside.
PIPELINED = dict(tag_width=4, capacity=None, latency=1 + 3 + 2 + 2, interval=1, depth=16)


def _build(design):
    if design is WORD_SERIAL:
        return WordSerialCordic(_config(), tag_width=design["tag_width"])
    return PipelinedCordic(_config(), tag_width=design["tag_width"])


DESIGNS = {"word_serial_cordic": WORD_SERIAL, "pipelined_cordic": PIPELINED}


def _capacity(dut, design):
    return design["capacity"] or dut.queue_depth(design["latency"] - 2)


@pytest.mark.parametrize("name", DESIGNS)
def test_a_design_loses_duplicates_and_reorders_nothing_under_any_stalls(name, tmp_path):
    design = DESIGNS[name]
    dut = _build(design)
    m, ports = stream_contract(dut, design["tag_width"], _capacity(dut, design))
    proof = prove(m, ports, f"contract_{name}", tmp_path, mode="bmc", depth=design["depth"])
    assert proof.passed, proof.folder


def _timing(name, tmp_path, latency_error=0, interval_error=0):
    design = DESIGNS[name]
    dut = _build(design)
    assert (dut.latency, dut.interval) == (design["latency"], design["interval"])
    interval = design["interval"] + interval_error
    m, ports = stream_contract(dut, design["tag_width"], _capacity(dut, design),
                               always_ready=True, latency=design["latency"] + latency_error,
                               accepts=(interval, lambda phase: phase == 0))
    off = f"_latency{latency_error:+}_interval{interval_error:+}".replace("+", "p").replace(
        "-", "m")
    return prove(m, ports, f"timing_{name}{off}", tmp_path, mode="bmc", depth=design["depth"])


@pytest.mark.parametrize("name", DESIGNS)
def test_a_design_has_its_stated_latency_and_interval(name, tmp_path):
    proof = _timing(name, tmp_path)
    assert proof.passed, proof.folder


@pytest.mark.parametrize("name, latency_error, interval_error", [
    ("word_serial_cordic", 1, 0), ("word_serial_cordic", 0, -1), ("pipelined_cordic", -1, 0)])
def test_a_timing_claim_one_cycle_off_fails(name, latency_error, interval_error, tmp_path):
    assert _timing(name, tmp_path, latency_error, interval_error).status == "FAIL"
