"""What an engine takes on an ECP5, estimated from its compiled program (before synthesis: the
report's cycle-level table; ``robohw synth`` measures).

- **DSP tiles**: one a multiplier up to :data:`~robohw.hw.multiplier.SPLIT_PRODUCT_BITS` bits
  (:func:`~robohw.hw.multiplier.split_product_tiles`), one a multiplier of narrowed operands.
- **LUT RAM**: every register file (one reader's) is a memory of ``ceil(depth / 16) *
  ceil(width / 4)`` TRELLIS_DPR16X4 cells (16 words of 4 bits, one write and one read port); a
  cell takes :data:`LUTS_PER_RAM_CELL` LUT4s, and a file deeper than 16 words a ``width``-bit
  multiplexer over its 16-word blocks (a LUT4 per two inputs a bit).
- **Flip-flops**: the units' pipeline registers, every file's read and write address
  registers, the held state, the CORDICs' stages, the loaders' and CORDICs' copies, the
  counters (each micro-program's own phase counters too), the micro-programs' words, and the
  stream's valid and tag lines and queue pointers.
- **LUTs** (TRELLIS_COMB as nextpnr packs them: a LUT4, or half a carry cell): each unit as
  measured alone, its own micro-program fields included (a reciprocal unit's scaled with the
  square of the width); each file's write multiplexer and
  each port's OR of its files, the address adders (a comparison and subtraction more where a
  depth is not a power of two), the CORDICs, the fields' offsets, range checks and loaders,
  the files' micro-program ROMs up to :data:`ROM_LUT_WORDS` words deep (a word bit a LUT4 per
  16 words) and the LUT RAM.
- **Block RAMs**: the micro-programs' ROMs deeper than :data:`ROM_LUT_WORDS` words, 36 bits
  a DP16KD.

Estimates, not measurements: their purpose is the curve's shape over the interval and a user's
robot's default interval (:func:`robohw.dynamics.inverse.engine_defaults.engine_lut_budget`); how
they compare with nextpnr's packing: docs/dynamics.md.
"""

import math

from robohw.cordic.pipelined import pipelined_register_bits
from robohw.dataflow.operations import Unit
from robohw.hw.multiplier import split_product_tiles

__all__ = ["engine_resources", "LUTS_PER_RAM_CELL", "ROM_LUT_WORDS", "RECIPROCAL_UNIT_COST"]

# A TRELLIS_DPR16X4 (16 words of 4 bits) is four LUT4s in RAM mode, packed by nextpnr as four
# TRELLIS_COMB beside a TRELLIS_RAMW for its write port (Lattice FPGA-TN-02032, ECP5 memory
# usage guide: distributed RAM in a PFU's slices 0 and 1, slice 2 for the write).
LUTS_PER_RAM_CELL = 4
# The deepest micro-program ROM Yosys maps to LUTs (measured: 32 words in LUTs, 128 in DP16KD).
ROM_LUT_WORDS = 64
# A reciprocal unit's (TRELLIS_COMB, flip-flops) at 40 bits by its fold (a pipeline: fold 1,
# 40 stages; fold 8, 5 stages), measured alone on the ECP5-85F
# (docs/notes/2026-12-forward-dynamics-hardware.md).
RECIPROCAL_UNIT_COST = {Unit.RECIP: {1: (3977, 4642), 8: (1440, 931)},
                        Unit.RSQRT: {1: (13151, 9589), 8: (3363, 1642)}}


def _bits(count):
    return max(1, (max(count, 2) - 1).bit_length())


def engine_resources(plan, program, tag_width=0):
    """``{"multipliers", "adders", "cordics", "narrow_multipliers", "dsp_tiles",
    "lut_ram_cells", "luts", "register_bits", "block_rams", "file_words", "files",
    "connections"}`` of the engine of
    ``program`` (``tag_width``: its user tag)."""
    machine, w = program.machine, plan.width
    cells = luts = flops = rom_bits = 0
    for file in program.files.values():
        blocks, bits = math.ceil(file.depth / 16), _bits(file.depth)
        cells += blocks * math.ceil(w / 4)
        # the blocks' multiplexer; the write multiplexer's 2 x 1 trees (two LUT4s and a PFUMX
        # a 4 x 1 bit)
        luts += w * (blocks - 1) // 2 + 2 * w * (len(file.writers) - 1) // 3
        # the read and write addresses: a sum, and a comparison and subtraction unless the
        # depth is a power of two
        wrapped = file.depth & (file.depth - 1) == 0
        luts += 2 * (bits + 2) * (1 if wrapped else 3)     # carry cells, two LUT4s each
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
    # A multiplier of narrowed operands: the operands as read, then narrowed to a tile's 18
    # bits (robohw.hw.narrowing), then as a multiplier of 18 bits (its product in the tile).
    narrowed_flops = 2 * w + 2 * 18 + 2 * 18 * 2 + 2 * 36 + w + w + 2 * w
    flops += machine.narrow_multipliers * narrowed_flops
    # Measured (one unit alone, its PUMA II 32 instructions, 20 bits, Yosys): a multiplier 284
    # LUT4 and 63 carry cells, an adder 190 and 41, their own micro-program fields included.
    luts += (machine.multipliers * (284 + 2 * 63) * w // 20 +
             machine.adders * (190 + 2 * 41) * w // 20)
    # A multiplier of narrowed operands as one of 18 bits, and its two narrowing carry chains
    # (half a carry cell, one TRELLIS_COMB, a bit).
    luts += machine.narrow_multipliers * ((284 + 2 * 63) * 18 // 20 + 2 * 18)
    # The reciprocal units (hw.reciprocal, hw.reciprocal_sqrt): a stage of a few words,
    # ceil(width / fold) stages. Measured (each alone at 40 bits, Yosys and nextpnr):
    # RECIPROCAL_UNIT_COST, a folded stage's (its multiplexers and tokens) at fold 8's.
    for kind, count in ((Unit.RECIP, machine.reciprocals), (Unit.RSQRT, machine.roots)):
        fold = machine.fold(kind)
        measured = 1 if fold == 1 else 8
        unit_luts, unit_flops = RECIPROCAL_UNIT_COST[kind][measured]
        stages, measured_stages = math.ceil(w / fold), math.ceil(40 / measured)
        luts += count * unit_luts * stages * w // (measured_stages * 40)
        flops += count * unit_flops * stages * w // (measured_stages * 40)
    fields = len(plan.held_fields) + len(plan.angle_fields)
    flops += fields * w + machine.cordics * (pipelined_register_bits(plan.cordic) + w)
    # A CORDIC: a carry-chain bit (half a carry cell, one TRELLIS_COMB) a register bit; a
    # field: its offset's sum, its range check's two comparisons, its loader's multiplexer.
    luts += machine.cordics * pipelined_register_bits(plan.cordic) + fields * 3 * w
    # the copies a loader's field and a CORDIC's cos and sin reach their files through
    flops += w * sum(len(program.fanout(writer)) for writer in program.fanned_writers())
    # the hops: a copy of a unit's result register for each other cluster that reads it
    flops += w * len(program.hops)
    flops += program.output_cycle * (2 + tag_width)
    # each micro-program's own phase counters, one and two cycles ahead
    computing = machine.multipliers + machine.narrow_multipliers + machine.adders
    programs = computing + machine.loaders + machine.cordics + 1
    flops += programs * 2 * _bits(program.interval)
    # the units' prep, shift, constant and rounding fields (their LUTs counted with the units')
    flops += rom_bits + computing * (2 * w + 16)
    # ROMs of up to ROM_LUT_WORDS words in LUTs, deeper ones in block RAM (Yosys: the PUMA's
    # at II 32 in LUTs, at II 128 in 24 DP16KD)
    in_luts = program.interval <= ROM_LUT_WORDS
    luts += (math.ceil(program.interval / 16) * rom_bits if in_luts else 0) + \
        cells * LUTS_PER_RAM_CELL
    programs_bits = rom_bits + computing * (2 * w + 16)
    block_rams = 0 if in_luts else programs * math.ceil(programs_bits / programs / 36)
    return {
        "multipliers": machine.multipliers,
        "adders": machine.adders,
        "cordics": machine.cordics,
        "narrow_multipliers": machine.narrow_multipliers,
        "dsp_tiles": machine.multipliers * split_product_tiles(w, w) + machine.narrow_multipliers,
        "lut_ram_cells": cells,
        "luts": luts,
        "register_bits": flops,
        "block_rams": block_rams,
        "file_words": sum(program.depth.values()),
        "files": len(program.files),
        "connections": program.connections(),
    }
