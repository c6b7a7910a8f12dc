"""The add-or-subtract on an ECP5's carry chain: CCU2C cells with the choice in their LUTs,
exhaustively right as the cell computes, and the pipelined CORDIC built on them equal to the
model and to its generic netlist under Verilator, in the same cycles."""

import itertools

import numpy as np
import pytest
from amaranth.back import verilog

from robohw.cordic import CordicConfig, PipelinedCordic
from robohw.cordic.model import cordic_model
from robohw.hw.carry_chain import CCU2C_INIT, CCU2C_INIT_INVERTED, add_sub, chain_inputs
from robohw.hw.devices import DEVICES
from robohw.hw.fixed import hdl_add_sub
from robohw.sim.compiled import run_stream_compiled
from robohw.sim.primitives import primitive_models

ECP5 = DEVICES["ecp5-85k"]


def _cell_half(init, a, b, c, d, carry):
    # The cell as robohw.sim.primitives models it (and Yosys's ECP5 library): P the LUT4,
    # G the LUT2 of its low inputs, carry out P ? carry in : G, sum P ^ carry in.
    p = (init >> (8 * d + 4 * c + 2 * b + a)) & 1
    g = (init >> (2 * b + a)) & 1
    return p ^ carry, (carry if p else g)


def _chain_sum(a, b, subtract, width, inverted=False):
    """What the chain of :func:`chain_inputs` computes for ints ``a``, ``b`` (``width``-bit
    two's complement after sign extension), as a signed int of ``width`` bits; ``inverted``:
    the subtract bit given inverted, into the inverted cells."""
    a_bits = [(a >> k) & 1 for k in range(width)]
    b_bits = [(b >> k) & 1 for k in range(width)]
    init, bit = (CCU2C_INIT_INVERTED, 1 - subtract) if inverted else (CCU2C_INIT, subtract)
    carry, sums = 0, []
    for low, high in chain_inputs(a_bits, b_bits, bit, 0, 1):
        for x, y, z in (low, high):
            s, carry = _cell_half(init, x, y, z, 1, carry)
            sums.append(s)
    value = sum(bit << k for k, bit in enumerate(sums[1:width + 1]))
    return value - (1 << width) if value >> (width - 1) else value


@pytest.mark.parametrize("inverted", [False, True])
@pytest.mark.parametrize("bits", [1, 2, 3, 4, 5])
def test_the_chain_adds_and_subtracts_every_pair_exactly(bits, inverted):
    # Signed operands of ``bits`` bits, the result one bit wider: no overflow, so exact.
    values = range(-(1 << (bits - 1)), 1 << (bits - 1))
    for a, b, subtract in itertools.product(values, values, (0, 1)):
        assert _chain_sum(a, b, subtract, bits + 1, inverted) == \
            (a - b if subtract else a + b)


def test_the_init_is_the_propagate_and_the_generate():
    # With D high, P = A ^ B ^ C; with C and D low (the LUT2), G = A.
    for a, b, c in itertools.product((0, 1), repeat=3):
        assert (CCU2C_INIT >> (8 + 4 * c + 2 * b + a)) & 1 == a ^ b ^ c
        assert (CCU2C_INIT_INVERTED >> (8 + 4 * c + 2 * b + a)) & 1 == 1 - (a ^ b ^ c)
        for init in (CCU2C_INIT, CCU2C_INIT_INVERTED):
            assert (init >> (2 * b + a)) & 1 == a


def test_generic_platforms_get_the_expression_and_ecp5_the_cells():
    from amaranth.hdl import Module, Signal, signed
    a, b, s = Signal(signed(6)), Signal(signed(4)), Signal()
    assert repr(add_sub(Module(), a, b, s)) == repr(hdl_add_sub(a, b, s))
    assert repr(add_sub(Module(), a, b, s, inverted=True)) == repr(hdl_add_sub(a, b, ~s))
    m = Module()
    total = add_sub(m, a, b, s, ECP5, "x")
    assert total.shape() == signed(7) and total.name == "x"
    # 7 result bits and the spare low bit: four cells.
    assert sorted(m._named_submodules) == [f"x_cell{k}" for k in range(4)]


CONFIGS = [CordicConfig("circular", "rotation", width=8),
           CordicConfig("hyperbolic", "vectoring", width=8),
           CordicConfig("linear", "rotation", width=8)]


@pytest.mark.heavy
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.system.name}-{c.direction.name}")
def test_the_ecp5_cordic_equals_the_model_in_the_same_cycles(config, compiled_models):
    dut = PipelinedCordic(config, tag_width=4)
    text = verilog.convert(PipelinedCordic(config, tag_width=4), name="top", platform=ECP5)
    assert "CCU2C" in text and "module CCU2C(" in primitive_models(text)
    rng = np.random.default_rng(5)
    low, high = -(1 << (config.width - 1)), (1 << (config.width - 1)) - 1
    codes = {k: rng.integers(low, high + 1, 300) for k in "xyz"}
    for k in "xyz":       # the corners first: every sign and the extremes
        codes[k][:9] = [low, high, 0, low, high, -1, 1, low, high]
    payloads = [{k: int(codes[k][n]) for k in "xyz"} | {"tag": n % 16} for n in range(300)]
    runs = [run_stream_compiled(dut, payloads, source_pattern=(1, 1, 0), sink_pattern=(1, 0),
                                directory=compiled_models, platform=platform)
            for platform in (None, ECP5)]
    generic, ecp5 = runs
    model = cordic_model(config, codes["x"], codes["y"], codes["z"])
    for k in ("x", "y", "z", "domain_error", "overflow"):
        assert [o[k] for o in ecp5.outputs] == getattr(model, k).astype(int).tolist(), k
    assert ecp5.outputs == generic.outputs
    assert ecp5.input_cycles == generic.input_cycles
    assert ecp5.output_cycles == generic.output_cycles
