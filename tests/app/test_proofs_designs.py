"""Formal proofs (SymbiYosys, Yices; ``make prove``): the stream contract and the timing of whole
designs, at reduced sizes.

The designs are the project's, unchanged, at reduced sizes (the logic is the same at every
width, count and graph; the default designs are beyond any solver): the word-serial CORDIC,
whose step counter sets its latency and interval, and the pipelined CORDIC, at 6 bits and two
micro-rotations; the multi-mode CORDIC with two modes of different lengths; the traced pipeline
(the base of the inertia arrays and the Newton-Euler pipeline) on a graph of two products and
two sums at 8 bits, unfolded and folded by 2; the engine (the dynamics engine's machine) on
the same graph at 8 bits and II 2, its register files rotating. ``formal_streams.py`` numbers the
input transfers through the tag and asserts, for every stall pattern within the bound, that nothing
is lost, duplicated or reordered and that ``o`` holds while it waits; with ``o.ready`` and
``i.valid`` high, that each result leaves exactly the stated latency after its input and that inputs
are taken exactly once per stated interval. A claim one cycle off must fail.
"""

from dataclasses import dataclass

import pytest
from amaranth.hdl import signed
from formal_streams import stream_contract

from robohw.cordic.config import CordicConfig
from robohw.cordic.multimode import MultiModeCordic
from robohw.cordic.pipelined import PipelinedCordic
from robohw.cordic.word_serial import WordSerialCordic
from robohw.dataflow.component import TracedPipeline
from robohw.dataflow.plan import TracedPlan
from robohw.engine.component import Engine
from robohw.engine.machine import Machine
from robohw.engine.program import compile_program
from robohw.flows.formal import prove
from robohw.hw.queue import QUEUE_LATENCY

pytestmark = [pytest.mark.heavy, pytest.mark.formal]


def _config():
    # Two micro-rotations and one normalization step (the factor after them): R = 3 register
    # steps; finishing: rounding, then saturation (F = 2 stages).
    return CordicConfig("circular", "rotation", width=6, iterations=2)


class _TinyPlan(TracedPlan):
    """A small task graph for the traced pipeline: ``p = a b + c`` and ``q = a c - b`` of
    three fixed-point inputs in [-1, 1], at 8 bits."""
    def _trace(self):
        a, b, c = (self.value_input(name, name, -1.0, 1.0) for name in "abc")
        return {"p": a * b + c, "q": a * c - b}


def _traced(fold):
    plan = _TinyPlan(width=8, fold=fold)
    return TracedPipeline(plan, {name: signed(8) for name in "abc"}, {"p": "p", "q": "q"},
                          tag_width=4)


def _engine():
    plan = _TinyPlan(width=8, fold=1)
    program = compile_program(plan, Machine.for_plan(plan, 2))
    return Engine(plan, program, {name: signed(8) for name in "abc"}, {"p": "p", "q": "q"},
                  tag_width=4)


@dataclass(frozen=True)
class _Design:
    """A reduced design, its timing as stated, what the harness needs, and the bound."""
    build: object
    tag_width: int
    latency: int
    interval: int
    depth: int              # cycles from reset the bounded proofs cover
    capacity: int = None    # results inside at most (default: the output queue's entries)
    idle_first: bool = False    # no input in the first interval after reset


DESIGNS = {
    # Each register step takes 2 cycles (the registered shift), so an input is taken every
    # 2 R = 6 cycles; its result is valid 1 (the input register) + 2 R + F = 9 cycles after it.
    # It holds one operand in the unit and one result waiting at o.
    "word_serial_cordic": _Design(lambda: WordSerialCordic(_config(), tag_width=3),
                                  tag_width=3, latency=1 + 2 * 3 + 2, interval=2 * 3, depth=40,
                                  capacity=2),
    # 1 + R + F = 6 register stages and the output queue's 2 cycles; an input every cycle.
    "pipelined_cordic": _Design(lambda: PipelinedCordic(_config(), tag_width=4),
                                tag_width=4, latency=1 + 3 + 2 + 2, interval=1, depth=16),
    # A product, then a sum (one stage each), and the queue's 2 cycles; an input every cycle.
    "traced_pipeline": _Design(lambda: _traced(1), tag_width=4, latency=1 + 1 + 2, interval=1,
                               depth=16),
    # Folded by 2: the modulo schedule's length (the plan's, checked against the model by the
    # traced designs' simulations) and the queue's 2 cycles; an input every 2 cycles.
    "traced_pipeline_folded": _Design(lambda: _traced(2), tag_width=4,
                                      latency=_TinyPlan(width=8, fold=2).latency + 2,
                                      interval=2, depth=20),
    # II 2: a state every 2 cycles but none in the first interval (the micro-programs are read
    # two cycles ahead); the latency: the compiler's output cycle (fields loaded in cycles 1
    # and 2, a product of 7 cycles and a sum of 6 after them; replayed against the issues in
    # tests/engine) and the queue's 2 cycles.
    "engine": _Design(_engine, tag_width=4, latency=_engine().program.output_cycle + 2,
                      interval=2, depth=34, idle_first=True),
}


def _capacity(dut, design):
    if design.capacity is not None:
        return design.capacity
    return dut.queue_depth(design.latency - QUEUE_LATENCY, design.interval)


@pytest.mark.parametrize("name", DESIGNS)
def test_a_design_loses_duplicates_and_reorders_nothing_under_any_stalls(name, tmp_path):
    design = DESIGNS[name]
    dut = design.build()
    m, ports = stream_contract(dut, design.tag_width, _capacity(dut, design))
    proof = prove(m, ports, f"contract_{name}", tmp_path, mode="bmc", depth=design.depth)
    assert proof.passed, proof.folder


def _timing(name, tmp_path, latency_error=0, interval_error=0):
    design = DESIGNS[name]
    dut = design.build()
    assert (dut.latency, dut.interval) == (design.latency, design.interval)
    m, ports = stream_contract(dut, design.tag_width, _capacity(dut, design),
                               always_ready=True, latency=design.latency + latency_error,
                               accepts=(design.interval + interval_error,
                                        lambda phase: phase == 0),
                               idle_first=design.idle_first)
    off = f"_latency{latency_error:+}_interval{interval_error:+}".replace("+", "p").replace(
        "-", "m")
    return prove(m, ports, f"timing_{name}{off}", tmp_path, mode="bmc", depth=design.depth)


@pytest.mark.parametrize("name", DESIGNS)
def test_a_design_has_its_stated_latency_and_interval(name, tmp_path):
    proof = _timing(name, tmp_path)
    assert proof.passed, proof.folder


@pytest.mark.parametrize("name, latency_error, interval_error", [
    ("word_serial_cordic", 1, 0), ("word_serial_cordic", 0, -1), ("pipelined_cordic", -1, 0),
    ("traced_pipeline_folded", 0, 1), ("engine", -1, 0), ("engine", 0, 1)])
def test_a_timing_claim_one_cycle_off_fails(name, latency_error, interval_error, tmp_path):
    assert _timing(name, tmp_path, latency_error, interval_error).status == "FAIL"


def test_the_multi_mode_cordic_keeps_the_contract_with_modes_of_different_lengths(tmp_path):
    # Circular rotation (3 register steps: 6 cycles) and linear vectoring (4 steps, no
    # normalization: 8 cycles), the mode of every input picked by the solver.
    configs = [CordicConfig("circular", "rotation", width=6, iterations=2),
               CordicConfig("linear", "vectoring", width=6, iterations=4, guard_bits=2)]
    dut = MultiModeCordic(configs, tag_width=3)
    assert [dut.interval_of(mode) for mode in (0, 1)] == [2 * 3, 2 * 4]
    m, ports = stream_contract(dut, 3, 2)
    proof = prove(m, ports, "contract_multi_mode_cordic", tmp_path, mode="bmc", depth=40)
    assert proof.passed, proof.folder
