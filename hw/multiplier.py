"""A signed product with registered operands and a registered product: two cycles, as flip-flops
around a multiplier, or as the registers inside an ECP5 DSP tile.

Yosys maps a product onto an ECP5 MULT18X18D tile but keeps the registers around it in the
fabric. Registers in the fabric beside the DSP rows crowd the few rows where every shared
multiplier's operands and products meet: the folded Newton-Euler pipeline (18 bits, fold 6)
had 6,905 of its 47,151 flip-flops there. Elaborated for an ECP5
(:func:`robohw.hw.devices.is_ecp5`), :func:`registered_product` instantiates the tile with its
input and output registers on (Lattice TN1267, *ECP5 and ECP5-5G sysDSP Usage Guide*:
REG_INPUTA, REG_INPUTB, REG_OUTPUT); for any other platform, or none (simulation, Verilator),
it builds the same registers as flip-flops. Both give the same product in the same cycle;
``robohw.sim``'s behavioural model of the tile (``ecp5_mult18x18d.v``) lets Verilator run the
ECP5 netlist against the model.
"""

from amaranth.hdl import ClockSignal, Const, Instance, Signal, signed

from robohw.hw.devices import is_ecp5

__all__ = ["registered_product", "uses_dsp_tile", "OPERAND_REGISTERS", "PRODUCT_REGISTERS",
           "PRODUCT_LATENCY", "ECP5_TILE_BITS"]

# The registers a product passes: one on each operand, then one on the product (the tile's
# REG_INPUTA/B and REG_OUTPUT), so the product arrives PRODUCT_LATENCY cycles after its operands.
OPERAND_REGISTERS = 1
PRODUCT_REGISTERS = 1
PRODUCT_LATENCY = OPERAND_REGISTERS + PRODUCT_REGISTERS
# A MULT18X18D multiplies two 18-bit operands, signed when SIGNEDA / SIGNEDB are high (TN1267).
ECP5_TILE_BITS = 18
_ECP5_PRODUCT_BITS = 2 * ECP5_TILE_BITS


def uses_dsp_tile(platform, a_bits, b_bits):
    """Whether :func:`registered_product` builds an ``a_bits`` x ``b_bits`` product for
    ``platform`` as one ECP5 tile with its registers (both operands at most
    :data:`ECP5_TILE_BITS`)."""
    return is_ecp5(platform) and max(a_bits, b_bits) <= ECP5_TILE_BITS


def registered_product(m, a, b, enable, name, platform=None):
    """``a * b`` of two signed values, :data:`PRODUCT_LATENCY` cycles later.

    The operands are registered when ``enable`` is high, and their product a cycle after (a
    stalled pipeline holds both). Returns the product register's value,
    ``signed(len(a) + len(b))`` (the exact product). Built as an ECP5 MULT18X18D with its
    registers on when :func:`uses_dsp_tile` says so, otherwise as reset-less flip-flops
    ``{name}_in_a``, ``{name}_in_b`` and ``{name}_product``.
    """
    a, b = a.as_signed(), b.as_signed()
    bits = len(a) + len(b)
    if not uses_dsp_tile(platform, len(a), len(b)):
        product = Signal(signed(bits), name=f"{name}_product", reset_less=True)
        held = []
        for side, value in (("a", a), ("b", b)):
            register = Signal(value.shape(), name=f"{name}_in_{side}", reset_less=True)
            with m.If(enable):
                m.d.sync += register.eq(value)
            held.append(register)
        with m.If(enable):
            m.d.sync += product.eq(held[0] * held[1])
        return product
    ports = {}
    for i in range(ECP5_TILE_BITS):
        # Sign-extended to the tile's width.
        ports[f"i_A{i}"] = a[min(i, len(a) - 1)]
        ports[f"i_B{i}"] = b[min(i, len(b) - 1)]
        ports[f"i_C{i}"] = Const(0)
    tile_product = Signal(_ECP5_PRODUCT_BITS, name=f"{name}_tile_p")
    for i in range(_ECP5_PRODUCT_BITS):
        ports[f"o_P{i}"] = tile_product[i]
    registers = {}
    for register in ("INPUTA", "INPUTB", "OUTPUT"):
        registers.update({f"p_REG_{register}_CLK": "CLK0", f"p_REG_{register}_CE": "CE0",
                          f"p_REG_{register}_RST": "RST0"})
    m.submodules[f"{name}_dsp"] = Instance(
        "MULT18X18D", **registers,
        # Datapath registers reset-less: no global set/reset, RST0 held low.
        p_GSR="DISABLED", p_RESETMODE="SYNC",
        i_SIGNEDA=Const(1), i_SIGNEDB=Const(1), i_SOURCEA=Const(0), i_SOURCEB=Const(0),
        i_CLK0=ClockSignal(), i_CE0=enable, i_RST0=Const(0), **ports)
    return tile_product[:bits].as_signed()
