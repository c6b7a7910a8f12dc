"""What an engine takes on an ECP5, estimated from its compiled program (before synthesis: the
report's cycle-level table; ``robohw synth`` measures).

- **DSP tiles**: one a multiplier up to :data:`~robohw.hw.multiplier.SPLIT_PRODUCT_BITS` bits
  (:func:`~robohw.hw.multiplier.split_product_tiles`).
- **LUT RAM**: every bank read by a port is one copy of the bank (a TRELLIS_DPR16X4 holds 16
  words of 4 bits with one write and one read port), ``ceil(depth / 16) * ceil(width / 4)``
  cells a copy; a cell takes :data:`LUTS_PER_RAM_CELL` LUT4s' place, and a copy deeper than 16
  words a ``width``-bit multiplexer over its 16-word blocks (a LUT4 per two inputs a bit).
- **Flip-flops**: the units' pipeline registers, every address register, the held state, the
  CORDICs' stages, the counters, and the stream's valid and tag lines and queue pointers.
- **LUT4s**: the units' arithmetic (an adder's two alignment shifters and sum; a multiplier's
  constant and complement multiplexers, its correction and its fabric partial products), the
  rounding's shifter and increment, each port's OR of its banks, the address adders, and the
  LUT RAM's place.
- **Block RAMs**: none; the micro-programs' words are ROMs Yosys maps to LUTs at these depths
  (counted in the LUT4s: a word bit a LUT4 per 16 words).

Estimates, not measurements: their purpose is the curve's shape over the interval.
"""

import math

from robohw.cordic.pipelined import pipelined_register_bits
from robohw.hw.multiplier import split_product_tiles

__all__ = ["engine_resources", "LUTS_PER_RAM_CELL"]

# A TRELLIS_DPR16X4 uses a slice's two LUT4s as the memory and a third LUT's place for its
# write decoding (Lattice FPGA-DS-02012, ECP5 family data sheet: distributed RAM in SLICE0/1,
# SLICE2 for its write address and control).
LUTS_PER_RAM_CELL = 3


def _bits(count):
    return max(1, (max(count, 2) - 1).bit_length())


def engine_resources(plan, program, tag_width=0):
    """``{"multipliers", "adders", "cordics", "dsp_tiles", "lut_ram_cells", "luts",
    "register_bits", "block_rams", "file_words", "connections"}`` of the engine of
    ``program`` (``tag_width``: its user tag)."""
    machine, w = program.machine, plan.width
    cells = luts = flops = 0
    for (unit, port), banks in program.reads.items():
        for bank in banks:
            depth = program.depth[bank]
            copy = math.ceil(depth / 16) * math.ceil(w / 4)
            cells += copy
            luts += w * (math.ceil(depth / 16) - 1) // 2 + _bits(depth)   # blocks' mux, adder
            flops += _bits(depth) + 1                                      # address, select
        luts += w * max(len(banks) - 1, 0) // 2 + w                        # the banks' OR
    outputs = len(program.outputs)
    for bank in (program.bank[node] for node, _ in program.outputs.values()):
        cells += math.ceil(program.depth[bank] / 16) * math.ceil(w / 4)
        flops += _bits(program.depth[bank])
    # each bank's iteration counter and write address
    flops += sum(2 * _bits(depth) for depth in program.depth.values())
    # A multiplier: operands, prep, correction stages, exact product, rounding, value.
    multiplier_flops = 2 * w + 2 * w * 2 + 2 * w + w + w + 2 * w
    adder_flops = 2 * w + 2 * (w + 8) + (w + 9) + (w + 9) + w
    flops += machine.multipliers * multiplier_flops + machine.adders * adder_flops
    luts += machine.multipliers * (3 * w + 2 * w + 4 * w) + machine.adders * (4 * w + 2 * w)
    fields = len(plan.value_fields) + len(plan.angle_fields)
    flops += fields * w + machine.cordics * (pipelined_register_bits(plan.cordic) + w)
    flops += program.output_cycle * (2 + tag_width)
    rom_bits = _rom_bits(program, w)
    luts += math.ceil(program.interval / 16) * rom_bits + cells * LUTS_PER_RAM_CELL
    flops += rom_bits
    return {
        "multipliers": machine.multipliers,
        "adders": machine.adders,
        "cordics": machine.cordics,
        "dsp_tiles": machine.multipliers * split_product_tiles(w, w),
        "lut_ram_cells": cells,
        "luts": luts,
        "register_bits": flops,
        "block_rams": 0,
        "file_words": sum(program.depth.values()),
        "connections": program.connections() + outputs,
    }


def _rom_bits(program, width):
    """Bits of every unit's micro-program word (the fields it reads from its ROM)."""
    total = 0
    for (unit, port), banks in program.reads.items():
        total += sum(1 + _bits(program.depth[bank]) for bank in banks)
    units = program.machine.multipliers + program.machine.adders
    # prep, shifts, constant and rounding fields, the write address
    total += units * (2 * width + 16) + sum(_bits(d) for d in program.depth.values())
    return total
