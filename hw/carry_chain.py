"""``a + b`` or ``a - b``, chosen by a bit, on one carry chain: on an ECP5, its CCU2C cells with
the choice inside their input LUTs.

:func:`robohw.hw.fixed.hdl_add_sub` writes the choice as ``a + (b ^ subtract) + subtract``, so
that it can sit in the LUT in front of each carry cell. Yosys's ECP5 mapping of an adder ties
that LUT's third input to zero, so the exclusive or becomes a LUT of its own before the carry
chain, one more logic level and one more net on the path (the pipelined CORDIC's limiting path:
the direction bit, through that LUT, into the carry chain; docs/cordic.md). Elaborated for an
ECP5 (:func:`robohw.hw.devices.is_ecp5`), :func:`add_sub` instantiates the CCU2C cells itself,
the direction bit on each LUT's third input (the cell as Yosys's ECP5 library models it,
``techlibs/ecp5/cells_sim.v``: two bits, each a LUT4 ``P`` and the LUT2 of its low inputs,
``G``; with ``INJECT1`` off the carry out is ``P ? CIN : G`` and the sum ``P ^ CIN``). For any other
platform, or none (simulation, Verilator, a generic netlist), it is
:func:`~robohw.hw.fixed.hdl_add_sub`. Both give the same bits; ``robohw.sim``'s behavioural
model of the cell lets Verilator run the ECP5 netlist against the bit-exact model.
"""

from amaranth.hdl import Cat, Const, Instance, Signal, Value, signed

from robohw.hw.devices import is_ecp5
from robohw.hw.fixed import hdl_add_sub

__all__ = ["add_sub", "chain_inputs", "CCU2C_INIT", "CCU2C_INIT_INVERTED"]

# Each half of a CCU2C: inputs A (a's bit), B (b's bit), C (the subtract bit), D tied high.
# With D high the LUT4 is P = A ^ B ^ C, the propagate of a + (b ^ subtract); with C and D low
# (the LUT2 the carry logic reads) it is A, the generate, which matters only where P is low,
# that is where A equals B ^ C. 0x96AA: bits 15-12 (D, C high) 1001, 11-8 (D high) 0110,
# 7-4 and 3-0 1010. Yosys's own ECP5 adders use the same INIT with C tied low.
CCU2C_INIT = 0x96AA
# The same with the subtract bit given inverted on C (a register's sign bit where the choice is
# its complement, as the CORDIC's ``z >= 0``): P = ~(A ^ B ^ C), bits 15-8 0110 1001, and G
# unchanged; no LUT of its own inverts the bit.
CCU2C_INIT_INVERTED = 0x69AA


def chain_inputs(a_bits, b_bits, subtract, zero, one):
    """The ``(A, B, C)`` inputs of every bit of the chain, in pairs (one pair a CCU2C): a spare
    low bit (``A`` = 1, ``B`` = ``subtract``, ``C`` = 0: ``P`` = ``~subtract`` and ``G`` = 1, so
    with no carry in it carries out exactly when subtracting, the ``+ 1`` of ``-b = ~b + 1``),
    then ``a``'s and ``b``'s bits, low first, with ``subtract`` on ``C``, then zeros to an even
    count. With :data:`CCU2C_INIT_INVERTED` the same inputs, ``subtract`` given inverted, give
    the same sum. Any element type: :func:`add_sub` passes Amaranth bits, the tests Python
    ints."""
    bits = [(one, subtract, zero)] + [(x, y, subtract) for x, y in zip(a_bits, b_bits)]
    if len(bits) % 2:
        bits.append((zero, zero, zero))
    return [(bits[k], bits[k + 1]) for k in range(0, len(bits), 2)]


def add_sub(m, a, b, subtract, platform=None, name="add_sub", inverted=False):
    """``a - b`` where ``subtract`` (a bit) is high (low, if ``inverted``), else ``a + b``;
    signed values of any widths, the result signed and exact (one bit wider than the wider
    operand), equal bit for bit to :func:`~robohw.hw.fixed.hdl_add_sub`.

    For an ECP5 ``platform`` the sum is ``{name}``, a signal driven by a chain of CCU2C cells
    added to module ``m``: a spare low bit that turns ``subtract`` into the carry (the ``+ 1``
    of ``-b = ~b + 1``), then one bit per result bit with ``subtract`` on its LUT's third
    input (:data:`CCU2C_INIT`, or :data:`CCU2C_INIT_INVERTED` for an ``inverted`` bit).
    Otherwise the expression of :func:`~robohw.hw.fixed.hdl_add_sub`."""
    if not is_ecp5(platform):
        return hdl_add_sub(a, b, ~Value.cast(subtract) if inverted else subtract)
    a, b, subtract = Value.cast(a), Value.cast(b), Value.cast(subtract)
    operands = [v if v.shape().signed else Cat(v, Const(0, 1)).as_signed() for v in (a, b)]
    width = max(len(v) for v in operands) + 1

    def extend(v):
        return Cat(v, v[-1].replicate(width - len(v)))
    a_bits, b_bits = (extend(v) for v in operands)
    cells = chain_inputs([a_bits[k] for k in range(width)], [b_bits[k] for k in range(width)],
                         subtract, Const(0, 1), Const(1, 1))
    total = 2 * len(cells)
    init = CCU2C_INIT_INVERTED if inverted else CCU2C_INIT
    sums = Signal(total, name=f"{name}_sums")
    carry = Const(0, 1)
    for cell, (low, high) in enumerate(cells):
        out = Signal(name=f"{name}_carry{cell}")
        m.submodules[f"{name}_cell{cell}"] = Instance(
            "CCU2C",
            p_INIT0=Const(init, 16), p_INIT1=Const(init, 16),
            p_INJECT1_0="NO", p_INJECT1_1="NO",
            i_CIN=carry,
            i_A0=low[0], i_B0=low[1], i_C0=low[2], i_D0=Const(1, 1),
            i_A1=high[0], i_B1=high[1], i_C1=high[2], i_D1=Const(1, 1),
            o_S0=sums[2 * cell], o_S1=sums[2 * cell + 1], o_COUT=out)
        carry = out
    result = Signal(signed(width), name=name)
    m.d.comb += result.eq(sums[1:width + 1])
    return result
