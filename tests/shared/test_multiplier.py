"""The registered multiplier (robohw.hw.multiplier): flip-flops in a generic netlist, the DSP
tile's own registers in a netlist for an ECP5, the same results in the same cycles (the ECP5
netlist under Verilator with robohw.sim.primitives' model of the tile)."""

import re

import numpy as np
import pytest
from amaranth.back import rtlil, verilog
from amaranth.hdl import Module, Signal, signed
from amaranth.sim import Simulator

from robohw.dataflow.component import TracedPipeline
from robohw.dataflow.plan import TracedPlan, model_codes
from robohw.hw.devices import DEVICES
from robohw.hw.multiplier import (
    ECP5_TILE_BITS,
    PRODUCT_LATENCY,
    SPLIT_PRODUCT_BITS,
    SPLIT_PRODUCT_LATENCY,
    registered_product,
    split_product,
    split_product_tiles,
    tiled_product,
    tiled_product_latency,
    uses_dsp_tile,
    uses_split_tile,
)
from robohw.sim.compiled import run_stream_compiled
from robohw.sim.primitives import primitive_models

ECP5, ICE40 = DEVICES["ecp5-85k"], DEVICES["ice40-up5k"]
SOURCE, SINK = [1, 1, 0, 1, 0, 1, 1], [1, 0, 1, 1, 1, 0]


class _Products(TracedPlan):
    """Five products of three inputs in [-1, 1] (two of them constant), folded by 2 onto three
    shared multipliers."""
    def _trace(self):
        a, b, c = (self.value_input(name, name, -1.0, 1.0) for name in "abc")
        return {"p": a * b + c * 0.75, "q": a * c - b, "r": (b * c) * a - a * 0.5}


def _pipeline(width, fold=2):
    plan = _Products(width=width, fold=fold)
    return TracedPipeline(plan, {name: signed(width) for name in "abc"},
                          {key: key for key in "pqr"}, tag_width=4)


def _tiles(text):
    """``{instance: {parameter: value}}`` of the MULT18X18D instances in exported Verilog."""
    found = {}
    for params, name in re.findall(r"MULT18X18D #\((.*?)\) (\w+) \(", text, flags=re.DOTALL):
        found[name] = dict(re.findall(r"\.(\w+)\(\"?([^\")]*)\"?\)", params))
    return found


def test_the_tile_serves_ecp5_products_of_up_to_18_bits():
    assert ECP5_TILE_BITS == 18
    assert uses_dsp_tile(ECP5, 18, 18) and uses_dsp_tile(ECP5, 12, 18)
    assert not uses_dsp_tile(ECP5, 19, 18) and not uses_dsp_tile(ECP5, 18, 24)
    assert not uses_dsp_tile(ICE40, 16, 16) and not uses_dsp_tile(None, 16, 16)


def _check_delay(build, a_bits, b_bits, latency, seed):
    """``build(m, a, b, enable)``'s product, simulated under random stalls with the extreme
    operands first: after each tick, that of the operands ``latency`` enabled cycles ago."""
    m = Module()
    a, b, enable = Signal(signed(a_bits)), Signal(signed(b_bits)), Signal()
    product = build(m, a, b, enable)
    assert product.shape() == signed(a_bits + b_bits)
    low_a, low_b = -2 ** (a_bits - 1), -2 ** (b_bits - 1)
    rng = np.random.default_rng(seed)
    pairs = [(low_a, low_b), (-low_a - 1, low_b)] + \
        [(int(x), int(y)) for x, y in zip(rng.integers(low_a, -low_a, 40),
                                          rng.integers(low_b, -low_b, 40))]
    stalls = rng.random(len(pairs)) < 0.3
    seen = []

    async def bench(ctx):
        history = []                        # the operands of every enabled cycle
        for (x, y), stall in zip(pairs, stalls):
            ctx.set(a, x)
            ctx.set(b, y)
            ctx.set(enable, int(not stall))
            await ctx.tick()
            if not stall:
                history.append(x * y)
            seen.append((ctx.get(product), list(history)))

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    checked = 0
    for value, history in seen:
        if len(history) >= latency:
            assert value == history[-latency]
            checked += 1
    assert checked > 20


def test_the_generic_product_arrives_two_enabled_cycles_later_and_holds_in_a_stall():
    assert PRODUCT_LATENCY == 2
    _check_delay(lambda m, a, b, enable: registered_product(m, a, b, enable, "mul"), 5, 7,
                 PRODUCT_LATENCY, seed=3)


def test_the_split_tile_serves_ecp5_products_of_19_to_22_bits():
    assert SPLIT_PRODUCT_BITS == 22 and SPLIT_PRODUCT_LATENCY == PRODUCT_LATENCY + 1
    assert uses_split_tile(ECP5, 19, 12) and uses_split_tile(ECP5, 22, 22)
    assert not uses_split_tile(ECP5, 18, 18) and not uses_split_tile(ECP5, 23, 18)
    assert not uses_split_tile(ICE40, 20, 20) and not uses_split_tile(None, 20, 20)


def test_the_generic_split_product_arrives_three_enabled_cycles_later():
    _check_delay(lambda m, a, b, enable: split_product(m, a, b, enable, "mul"), 21, 20,
                 SPLIT_PRODUCT_LATENCY, seed=5)


@pytest.mark.parametrize("a_bits, b_bits", [(40, 40), (19, 56), (35, 18), (18, 18)])
def test_the_tiled_product_arrives_a_level_a_cycle_later(a_bits, b_bits):
    # dsp_tiles' limbs: 40 bits are three (17, 17 and a signed 6), 56 four, 19 two.
    levels = {(40, 40): 4, (19, 56): 3, (35, 18): 1, (18, 18): 0}[a_bits, b_bits]
    assert tiled_product_latency(a_bits, b_bits) == PRODUCT_LATENCY + levels
    _check_delay(lambda m, a, b, enable: tiled_product(m, a, b, enable, "mul"), a_bits,
                 b_bits, PRODUCT_LATENCY + levels, seed=a_bits + b_bits)


def test_the_tiled_product_has_a_tile_per_limb_pair_with_its_registers_on():
    m = Module()
    a, b = Signal(signed(40)), Signal(signed(40))
    tiled_product(m, a, b, 1, "mul", platform=ECP5)
    tiles = _tiles(verilog.convert(m, ports=[a, b], platform=None))
    assert len(tiles) == 9
    assert all(t["REG_INPUTA_CLK"] == t["REG_OUTPUT_CLK"] == "CLK0" for t in tiles.values())


@pytest.mark.heavy
def test_an_ecp5_netlist_has_a_tile_per_shared_multiplier_with_its_registers_on():
    dut = _pipeline(12)
    units = dut.plan.schedule.multipliers
    assert units == 3
    generic = verilog.convert(dut, name="top")
    ecp5 = verilog.convert(_pipeline(12), name="top", platform=ECP5)
    assert not _tiles(generic) and primitive_models(generic) == ""
    tiles = _tiles(ecp5)
    assert len(tiles) == units
    for params in tiles.values():
        for register in ("INPUTA", "INPUTB", "OUTPUT"):
            assert params[f"REG_{register}_CLK"] == "CLK0"
            assert params[f"REG_{register}_CE"] == "CE0"
        assert "REG_PIPELINE_CLK" not in params and params["GSR"] == "DISABLED"
    # The registers the tiles hold are gone from the fabric: an operand register of each
    # side and the product register of every multiplier.
    for register in ("in_a", "in_b", "product"):
        assert len(re.findall(rf"reg .*\bmul\d+_{register} =", generic)) == units
        assert not re.findall(rf"\bmul\d+_{register}\b", ecp5)
    assert "module MULT18X18D(" in primitive_models(ecp5)
    # Wider than a tile, up to SPLIT_PRODUCT_BITS: still one tile per multiplier with its
    # registers, the low bits' partial products in the fabric and no product left for Yosys to
    # map; wider (24 bits): Yosys splits each product over four tiles, no registers go in.
    for width in (19, 20, SPLIT_PRODUCT_BITS):
        wide = verilog.convert(_pipeline(width), name="top", platform=ECP5)
        assert len(_tiles(wide)) == units, width
        assert "cell $mul " not in rtlil.convert(_pipeline(width), name="top", platform=ECP5)
        assert re.findall(r"\bmul\d+_partial0_0\b", wide) and \
            split_product_tiles(width, width) == 1
    assert not _tiles(verilog.convert(_pipeline(24), name="top", platform=ECP5))
    assert "cell $mul " in rtlil.convert(_pipeline(24), name="top", platform=ECP5)
    assert split_product_tiles(24, 24) == 4


@pytest.mark.parametrize("width", [12, 20, SPLIT_PRODUCT_BITS])
def test_the_ecp5_netlist_equals_the_model_in_the_same_cycles(width, compiled_models):
    # Verilator runs the tiles as robohw.sim.primitives models them (Lattice TN1267); the
    # results and their cycles must be the generic netlist's and the bit-exact model's (above
    # 18 bits with the partial products of the low bits in the fabric).
    dut = _pipeline(width)
    rng = np.random.default_rng(11)
    (low, high), = {dut.plan.field_limits[name] for name in "abc"}   # [-1, 1] each
    codes = {name: rng.integers(low, high + 1, 400) for name in "abc"}
    codes["a"][:4] = [low, high, low, high]     # the corners: the largest products
    codes["b"][:4] = [low, low, high, high]
    payloads = [{name: int(codes[name][k]) for name in "abc"} | {"tag": k % 16}
                for k in range(400)]
    runs = [run_stream_compiled(dut, payloads, source_pattern=SOURCE, sink_pattern=SINK,
                                directory=compiled_models, platform=platform)
            for platform in (None, ECP5)]
    generic, ecp5 = runs
    expected = model_codes(dut.plan, codes)
    for key in "pqr":
        assert [o[key] for o in ecp5.outputs] == expected[key].tolist()
    assert [o["tag"] for o in ecp5.outputs] == [p["tag"] for p in payloads]
    assert ecp5.outputs == generic.outputs
    assert ecp5.input_cycles == generic.input_cycles
    assert ecp5.output_cycles == generic.output_cycles
    assert min(np.subtract(ecp5.output_cycles, ecp5.input_cycles)) == dut.latency


def test_a_platform_needs_verilator():
    with pytest.raises(ValueError, match="a platform's primitives need the verilator "
                                         "simulator, not 'cxxrtl'"):
        run_stream_compiled(_pipeline(12), [], simulator="cxxrtl", platform=ECP5)


def test_the_split_products_first_stage_sums_one_or_two_levels():
    # Four addends at 20 bits: two levels into the first stage by default, one a stage when
    # asked (the engine by locality); eight at 22 bits: one, then two. The partial registers
    # of each stage count the levels: four addends summed twice leave one, once two.
    def partials(width, **options):
        m = Module()
        a, b = Signal(signed(width)), Signal(signed(width))
        split_product(m, a, b, 1, "mul", platform=ECP5, **options)
        text = verilog.convert(m, ports=[a, b], platform=None)
        return [len(set(re.findall(rf"\bmul_partial{stage}_(\d+)\b", text)))
                for stage in range(2)]
    assert partials(20) == [1, 1]
    assert partials(20, first_levels=1) == [2, 1]
    assert partials(22) == partials(22, first_levels=1) == [4, 1]
    with pytest.raises(ValueError, match="first_levels must be 1 or 2, not 3"):
        partials(20, first_levels=3)
