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

A product a little wider than a tile need not take four: :func:`split_product` multiplies the
operands' top 18 bits on one tile and adds, in the fabric, one gated and shifted addend per
low bit (up to :data:`SPLIT_LOW_BITS` of each operand), in a third register stage. Yosys maps
a 20 x 20 product onto four tiles and sums their partial products over 36-bit adders.

A wider product, :func:`tiled_product`, puts each partial product of 17-bit limbs on a tile of
its own, registered as :func:`registered_product`'s, and sums them pairwise over registered
levels: no cycle holds more than one wide adder, where Yosys's own split of a 40 x 40 product
sums its nine partial products in the cycle after the tiles (both measured alone on an
ECP5-85F: docs/notes/2026-12-forward-dynamics-hardware.md).
"""

import math

from amaranth.hdl import Cat, ClockSignal, Const, Instance, Mux, Signal, signed

from robohw.hw.devices import dsp_tiles, is_ecp5

__all__ = ["registered_product", "uses_dsp_tile", "OPERAND_REGISTERS", "PRODUCT_REGISTERS",
           "PRODUCT_LATENCY", "ECP5_TILE_BITS", "split_product", "uses_split_tile",
           "split_product_tiles", "SPLIT_LOW_BITS", "SPLIT_PRODUCT_BITS",
           "SPLIT_PRODUCT_LATENCY", "tiled_product", "tiled_product_latency", "LIMB_BITS"]

# The registers a product passes: one on each operand, then one on the product (the tile's
# REG_INPUTA/B and REG_OUTPUT), so the product arrives PRODUCT_LATENCY cycles after its operands.
OPERAND_REGISTERS = 1
PRODUCT_REGISTERS = 1
PRODUCT_LATENCY = OPERAND_REGISTERS + PRODUCT_REGISTERS
# A MULT18X18D multiplies two 18-bit operands, signed when SIGNEDA / SIGNEDB are high (TN1267).
ECP5_TILE_BITS = 18
_ECP5_PRODUCT_BITS = 2 * ECP5_TILE_BITS
# The low bits of an operand the fabric takes beside one tile: one addend each, so a 22 x 22
# product (the shipped real arms' default widths are 19 to 22 bits, docs/robots.md) has eight,
# summed over the first two register stages in at most two adder levels per cycle.
SPLIT_LOW_BITS = 4
SPLIT_PRODUCT_BITS = ECP5_TILE_BITS + SPLIT_LOW_BITS
# The operand registers, the tile's product register (and the fabric's partial sums beside
# it), and the register of their sum.
SPLIT_PRODUCT_LATENCY = PRODUCT_LATENCY + 1
# The low limbs of a tiled product: unsigned, so a tile's 18-bit signed operand holds one with
# its sign bit 0.
LIMB_BITS = ECP5_TILE_BITS - 1


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


def uses_split_tile(platform, a_bits, b_bits):
    """Whether :func:`split_product` builds an ``a_bits`` x ``b_bits`` product for
    ``platform`` as one ECP5 tile and partial products in the fabric (an operand wider than
    :data:`ECP5_TILE_BITS`, neither wider than :data:`SPLIT_PRODUCT_BITS`)."""
    return is_ecp5(platform) and ECP5_TILE_BITS < max(a_bits, b_bits) <= SPLIT_PRODUCT_BITS


def split_product_tiles(a_bits, b_bits):
    """ECP5 DSP tiles of one :func:`split_product` of ``a_bits`` x ``b_bits``: one up to
    :data:`SPLIT_PRODUCT_BITS`, otherwise Yosys's split (:func:`robohw.hw.devices.dsp_tiles`)."""
    if max(a_bits, b_bits) <= SPLIT_PRODUCT_BITS:
        return 1
    return dsp_tiles(a_bits, b_bits)


def _register(m, value, name, enable):
    held = Signal(value.shape(), name=name, reset_less=True)
    with m.If(enable):
        m.d.sync += held.eq(value)
    return held


def _pairwise(terms, levels):
    """``terms`` summed pairwise ``levels`` times (an adder level each)."""
    for _ in range(levels):
        if len(terms) == 1:
            break
        terms = [sum(terms[i:i + 2]) for i in range(0, len(terms), 2)]
    return terms


def split_product(m, a, b, enable, name, platform=None, *, first_levels=2):
    """``a * b`` of two signed values, :data:`SPLIT_PRODUCT_LATENCY` cycles later.

    Every register moves when ``enable`` is high (a stalled pipeline holds them all). Returns
    the last register's value, ``signed(len(a) + len(b))`` (the exact product). The operands
    should come straight from registers: the first stage's sums are ``first_levels`` adder
    levels from them (1 or 2), the rest (up to eight addends: three levels in all) in the
    second stage; with more than four addends (21 and 22 bits) the first stage takes one.

    Built as :func:`registered_product` and a register after it, unless
    :func:`uses_split_tile`: then, with ``a = ah 2**ka + al`` (``ah`` the top 18 bits, signed;
    ``al`` the ``ka`` low bits, unsigned) and ``b`` likewise,
    ``a b = ah bh 2**(ka + kb) + ah bl 2**ka + al b``. The tile multiplies ``ah bh`` with its
    input and output registers; ``ah bl`` and ``al b`` are a gated, shifted addend per low bit,
    summed beside the tile's two stages; the third register adds the two products. No ``$mul``
    is left for Yosys to map onto more tiles.
    """
    a, b = a.as_signed(), b.as_signed()
    bits = len(a) + len(b)
    if not uses_split_tile(platform, len(a), len(b)):
        return _register(m, registered_product(m, a, b, enable, name, platform),
                         f"{name}_sum", enable)
    low_a, low_b = max(len(a) - ECP5_TILE_BITS, 0), max(len(b) - ECP5_TILE_BITS, 0)
    high_a, high_b = a[low_a:].as_signed(), b[low_b:].as_signed()
    top = registered_product(m, high_a, high_b, enable, name, platform)
    terms = [Mux(b[i], high_a, 0) << (low_a + i) for i in range(low_b)] + \
            [Mux(a[i], b, 0) << i for i in range(low_a)]
    # The first stage's adders read the operand registers, which also feed the tile: two
    # levels after them were the limit of the engines by locality at 20 and 21 bits, where
    # one level a stage met 100 MHz (docs/notes/2026-12-engine-locality.md), and of the
    # Newton-Euler array at 20 bits (docs/notes/2026-12-every-design-at-100-mhz.md); the
    # flat engine, placed with two, keeps them up to four addends (20 bits).
    if first_levels not in (1, 2):
        raise ValueError(f"first_levels must be 1 or 2, not {first_levels!r}")
    first = first_levels if len(terms) <= 4 else 1
    for stage, levels in enumerate((first, 3 - first)):
        terms = [_register(m, term, f"{name}_partial{stage}_{i}", enable)
                 for i, term in enumerate(_pairwise(terms, levels))]
    if len(terms) != 1:
        raise AssertionError(f"{len(terms)} partial sums left; at most {SPLIT_LOW_BITS} low "
                             "bits an operand")
    total = (top << (low_a + low_b)) + terms[0]
    return _register(m, total[:bits].as_signed(), f"{name}_sum", enable)


def tiled_product_latency(a_bits, b_bits):
    """Cycles of :func:`tiled_product`: a tile's :data:`PRODUCT_LATENCY`, then one per level
    of pairwise sums of its ``dsp_tiles(a_bits, b_bits)`` partial products."""
    return PRODUCT_LATENCY + math.ceil(math.log2(dsp_tiles(a_bits, b_bits)))


def tiled_product(m, a, b, enable, name, platform=None):
    """``a * b`` of two signed values, :func:`tiled_product_latency` cycles later.

    Each operand is cut into unsigned :data:`LIMB_BITS`-bit limbs from the bottom and a signed
    top limb of at most :data:`ECP5_TILE_BITS` bits (``robohw.hw.devices.dsp_tiles`` limbs);
    each pair's product is a :func:`registered_product` (a tile with its registers on an ECP5
    ``platform``, flip-flops otherwise), shifted into place, and the partial products are
    summed pairwise, a register after each level. Every register moves when ``enable`` is
    high. Returns the last register's value, ``signed(len(a) + len(b))`` (the exact
    product)."""
    a, b = a.as_signed(), b.as_signed()
    bits = len(a) + len(b)
    terms = []
    for x, x_shift in _operand_limbs(a):
        for y, y_shift in _operand_limbs(b):
            product = registered_product(m, x, y, enable,
                                         f"{name}_p{x_shift}_{y_shift}", platform)
            terms.append(product << (x_shift + y_shift) if x_shift + y_shift else product)
    level = 0
    while len(terms) > 1:                   # one level: at most one adder a register
        terms = [_register(m, sum(terms[i:i + 2])[:bits].as_signed(),
                           f"{name}_sum{level}_{i // 2}", enable)
                 for i in range(0, len(terms), 2)]
        level += 1
    return terms[0]


def _operand_limbs(value):
    """``[(operand, shift)]`` of a signed ``value``: its unsigned :data:`LIMB_BITS`-bit limbs
    from the bottom, each a tile's signed operand (a 0 above it), then the rest, signed, at
    most :data:`ECP5_TILE_BITS` bits."""
    limbs, low = [], 0
    while len(value) - low > ECP5_TILE_BITS:
        limbs.append((Cat(value[low:low + LIMB_BITS], Const(0, 1)).as_signed(), low))
        low += LIMB_BITS
    return limbs + [(value[low:].as_signed(), low)]
