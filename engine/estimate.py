"""What an engine takes on an ECP5, estimated from its compiled program (before synthesis: the
report's cycle-level table; ``robohw synth`` measures).

- **DSP tiles**: one a multiplier up to :data:`~robohw.hw.multiplier.SPLIT_PRODUCT_BITS` bits
  (:func:`~robohw.hw.multiplier.split_product_tiles`).
- **LUT RAM**: every register file (one reader's) is a memory of ``ceil(depth / 16) *
  ceil(width / 4)`` TRELLIS_DPR16X4 cells (16 words of 4 bits, one write and one read port); a
  cell takes :data:`LUTS_PER_RAM_CELL` LUT4s' place, and a file deeper than 16 words a
  ``width``-bit multiplexer over its 16-word blocks (a LUT4 per two inputs a bit).
- **Flip-flops**: the units' pipeline registers, every file's read and write address
  registers, the held state, the CORDICs' stages, the counters (each micro-program's own phase
  counters too), the micro-programs' words, and
  the stream's valid and tag lines and queue pointers.
- **LUT4s**: the units' arithmetic (an adder's two alignment shifters and sum; a multiplier's
  constant and complement multiplexers, its correction and its fabric partial products), the
  rounding's shifter and increment, each file's write multiplexer and each port's OR of its
  files, the address adders (a comparison and subtraction more where a depth is not a power of
  two), the micro-programs' ROMs and the LUT RAM's place.
- **Block RAMs**: none; the micro-programs' words are ROMs Yosys maps to LUTs up to 16 words
  deep (counted in the LUT4s: a word bit a LUT4 per 16 words).

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
    "register_bits", "block_rams", "file_words", "files", "connections"}`` of the engine of
    ``program`` (``tag_width``: its user tag)."""
    machine, w = program.machine, plan.width
    cells = luts = flops = rom_bits = 0
    for file in program.files.values():
        blocks, bits = math.ceil(file.depth / 16), _bits(file.depth)
        cells += blocks * math.ceil(w / 4)
        luts += w * (blocks - 1) // 2 + w * (len(file.writers) - 1) // 2
        # the read and write addresses: a sum, and a comparison and subtraction unless the
        # depth is a power of two
        wrapped = file.depth & (file.depth - 1) == 0
        luts += 2 * bits * (1 if wrapped else 3)
        flops += 2 * bits + 1                      # addresses, the write's valid
        rom_bits += 2 * bits + _bits(len(file.writers)) * (len(file.writers) > 1)
    for files in program.reads.values():
        if len(files) > 1:
            luts += w * (len(files) - 1) // 2 + w      # the OR of the kept words
            flops += len(files)                       # each file's keep flag
            rom_bits += len(files)
    # the iteration counters: one a micro-program (the reader's) and depth
    owned = {("outputs" if f.reader[0] == "out" else f.reader[0], f.depth)
             for f in program.files.values() if f.depth > 1}
    flops += sum(_bits(depth) for _, depth in owned)
    # A multiplier: operands, prep, correction stages, exact product, rounding, value.
    multiplier_flops = 2 * w + 2 * w * 2 + 2 * w + w + w + 2 * w
    adder_flops = 2 * w + 2 * (w + 8) + (w + 9) + (w + 9) + w
    flops += machine.multipliers * multiplier_flops + machine.adders * adder_flops
    luts += machine.multipliers * (3 * w + 2 * w + 4 * w) + machine.adders * (4 * w + 2 * w)
    fields = len(plan.value_fields) + len(plan.angle_fields)
    flops += fields * w + machine.cordics * (pipelined_register_bits(plan.cordic) + w)
    flops += program.output_cycle * (2 + tag_width)
    # each micro-program's own phase counters, one and two cycles ahead
    programs = machine.multipliers + machine.adders + machine.loaders + machine.cordics + 1
    flops += programs * 2 * _bits(program.interval)
    # the units' prep, shift, constant and rounding fields
    rom_bits += (machine.multipliers + machine.adders) * (2 * w + 16)
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
        "files": len(program.files),
        "connections": program.connections(),
    }
