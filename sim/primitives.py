"""Behavioural Verilog of the vendor primitives robohw instantiates, for Verilator: what lets a
design elaborated for an FPGA (its netlist with the vendor's tiles) run against the bit-exact
model.

The models are written here from the vendors' documentation and cover what robohw uses of each
primitive; a netlist that asks for more is refused when the model is elaborated.

- ``MULT18X18D`` (Lattice ECP5; :mod:`robohw.hw.multiplier`): from TN1267, *ECP5 and ECP5-5G
  sysDSP Usage Guide*. Operands ``A`` and ``B`` of 18 bits, signed when ``SIGNEDA`` /
  ``SIGNEDB`` are high, product ``P`` of 36 bits; the input, pipeline and output registers
  each off (``"NONE"``) or on ``CLK0`` with enable ``CE0`` and synchronous reset ``RST0``. Not
  modelled: the ``C`` input and the shift chains (``SOURCEA`` / ``SOURCEB`` must be low), the
  other clocks, enables and resets, the cascade outputs.
- ``DCCA`` (Lattice ECP5; :mod:`robohw.hw.global_buffer`): from TN1263, *ECP5 and ECP5-5G
  sysCLOCK PLL/DLL Design and Usage Guide*, a primary clock network's buffer: ``CLKO`` follows
  ``CLKI`` while ``CE`` is high and is low while it is low. Not modelled: the timing of a
  change of ``CE``, which robohw holds high.
- ``CCU2C`` (Lattice ECP5; :mod:`robohw.hw.carry_chain`): two bits of a carry chain, each a
  LUT4 of ``A``-``D`` (``INIT0``, ``INIT1``) whose low LUT2 is the generate, as Yosys's ECP5
  cell library (``techlibs/ecp5/cells_sim.v``) models it. Not modelled: ``INJECT1`` on.
"""

import re

__all__ = ["PRIMITIVES", "primitive_models"]

_TILE_BITS, _PRODUCT_BITS = 18, 36
_REGISTERS = ("INPUTA", "INPUTB", "PIPELINE", "OUTPUT")


def _mult18x18d():
    inputs = [f"{port}{k}" for port in "ABC" for k in range(_TILE_BITS)]
    inputs += ["SIGNEDA", "SIGNEDB", "SOURCEA", "SOURCEB", "CLK0", "CE0", "RST0"]
    outputs = [f"P{k}" for k in range(_PRODUCT_BITS)]
    # The file is named after the design whose primitives it models, not after them.
    lines = ["// MULT18X18D, modelled by robohw.sim.primitives for Verilator (see there).",
             "/* verilator lint_off UNUSEDSIGNAL */",
             "/* verilator lint_off UNUSEDPARAM */",
             "/* verilator lint_off DECLFILENAME */",
             "module MULT18X18D(" + ", ".join(inputs + outputs) + ");"]
    lines += [f"  input {name};" for name in inputs]
    lines += [f"  output {name};" for name in outputs]
    for register in _REGISTERS:
        lines += [f'  parameter REG_{register}_CLK = "NONE";',
                  f'  parameter REG_{register}_CE = "CE0";',
                  f'  parameter REG_{register}_RST = "RST0";']
    lines += ['  parameter GSR = "ENABLED";', '  parameter RESETMODE = "SYNC";']
    checks = " || ".join(
        f'(REG_{r}_CLK != "NONE" && (REG_{r}_CLK != "CLK0" || REG_{r}_CE != "CE0" || '
        f'REG_{r}_RST != "RST0"))' for r in _REGISTERS)
    lines += ["  initial begin",
              f"    if ({checks} || RESETMODE != \"SYNC\")",
              '      $fatal(1, "MULT18X18D: robohw models registers on CLK0, CE0, RST0 only");',
              "  end"]
    for port in "AB":
        bits = ", ".join(f"{port}{k}" for k in reversed(range(_TILE_BITS)))
        lines += [f"  wire [{_TILE_BITS - 1}:0] {port.lower()}_in = {{{bits}}};",
                  f"  reg [{_TILE_BITS - 1}:0] {port.lower()}_q;"]
    lines += [f"  reg [{_PRODUCT_BITS - 1}:0] pipeline_q, output_q;"]
    for side in "ab":
        lines += [f"  always @(posedge CLK0) if (RST0) {side}_q <= 0; "
                  f"else if (CE0) {side}_q <= {side}_in;"]
    lines += [f'  wire [{_TILE_BITS - 1}:0] a = REG_INPUTA_CLK == "NONE" ? a_in : a_q;',
              f'  wire [{_TILE_BITS - 1}:0] b = REG_INPUTB_CLK == "NONE" ? b_in : b_q;',
              "  // One more bit each: the sign bit when signed, zero when not.",
              f"  wire signed [{_TILE_BITS}:0] a_x = {{SIGNEDA & a[{_TILE_BITS - 1}], a}};",
              f"  wire signed [{_TILE_BITS}:0] b_x = {{SIGNEDB & b[{_TILE_BITS - 1}], b}};",
              f"  wire signed [{2 * _TILE_BITS + 1}:0] full = a_x * b_x;",
              f"  wire [{_PRODUCT_BITS - 1}:0] product = full[{_PRODUCT_BITS - 1}:0];",
              "  always @(posedge CLK0) if (RST0) pipeline_q <= 0; "
              "else if (CE0) pipeline_q <= product;",
              f'  wire [{_PRODUCT_BITS - 1}:0] piped = REG_PIPELINE_CLK == "NONE" ? product '
              ": pipeline_q;",
              "  always @(posedge CLK0) if (RST0) output_q <= 0; "
              "else if (CE0) output_q <= piped;",
              f'  wire [{_PRODUCT_BITS - 1}:0] p = REG_OUTPUT_CLK == "NONE" ? piped : output_q;']
    lines += [f"  assign P{k} = p[{k}];" for k in range(_PRODUCT_BITS)]
    lines += ["endmodule", "/* verilator lint_on DECLFILENAME */",
              "/* verilator lint_on UNUSEDPARAM */",
              "/* verilator lint_on UNUSEDSIGNAL */"]
    return "\n".join(lines) + "\n"


def _dcca():
    return "\n".join([
        "// DCCA, modelled by robohw.sim.primitives for Verilator (see there).",
        "/* verilator lint_off DECLFILENAME */",
        "module DCCA(CLKI, CE, CLKO);",
        "  input CLKI;", "  input CE;", "  output CLKO;",
        "  assign CLKO = CLKI & CE;",
        "endmodule", "/* verilator lint_on DECLFILENAME */"]) + "\n"


def _ccu2c():
    # Two bits of the carry chain: each half a LUT4 (the propagate) and the LUT2 of its low
    # inputs (the generate); with INJECT1 off, carry out = P ? carry in : G, sum = P ^ carry in
    # (robohw.hw.carry_chain).
    return "\n".join([
        "// CCU2C, modelled by robohw.sim.primitives for Verilator (see there).",
        "/* verilator lint_off DECLFILENAME */",
        "module CCU2C(CIN, A0, B0, C0, D0, A1, B1, C1, D1, S0, S1, COUT);",
        "  input CIN, A0, B0, C0, D0, A1, B1, C1, D1;", "  output S0, S1, COUT;",
        "  parameter [15:0] INIT0 = 16'h0000;", "  parameter [15:0] INIT1 = 16'h0000;",
        '  parameter INJECT1_0 = "YES";', '  parameter INJECT1_1 = "YES";',
        "  initial begin",
        '    if (INJECT1_0 != "NO" || INJECT1_1 != "NO")',
        '      $fatal(1, "CCU2C: robohw models INJECT1 off only");',
        "  end",
        "  wire p0 = INIT0[{D0, C0, B0, A0}];", "  wire g0 = INIT0[{2'b00, B0, A0}];",
        "  wire carry = p0 ? CIN : g0;",
        "  wire p1 = INIT1[{D1, C1, B1, A1}];", "  wire g1 = INIT1[{2'b00, B1, A1}];",
        "  assign S0 = p0 ^ CIN;", "  assign S1 = p1 ^ carry;",
        "  assign COUT = p1 ? carry : g1;",
        "endmodule", "/* verilator lint_on DECLFILENAME */"]) + "\n"


# {primitive: its model's Verilog}
PRIMITIVES = {"MULT18X18D": _mult18x18d(), "DCCA": _dcca(), "CCU2C": _ccu2c()}


def primitive_models(verilog):
    """The Verilog of the models of every primitive that the exported ``verilog`` instantiates
    (empty if none)."""
    used = [name for name in PRIMITIVES
            if re.search(rf"^\s*{name}\s*(#|\w)", verilog, flags=re.MULTILINE)]
    return "".join(PRIMITIVES[name] for name in used)
