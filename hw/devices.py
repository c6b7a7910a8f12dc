"""What the FPGAs we synthesize for hold, for sizing designs before synthesis.

ECP5 figures from Lattice's ECP5 and ECP5-5G family data sheet (FPGA-DS-02012, Table 1.1):
LUT4s, 18 x 18 multipliers (MULT18X18D) and sysMEM blocks (DP16KD, 18 kbit each); a slice
holds as many flip-flops as LUT4s. iCE40 figures from the iCE40 data sheets.
"""

import math
from dataclasses import dataclass

__all__ = ["Device", "DEVICES", "dsp_tiles", "is_ecp5"]


@dataclass(frozen=True)
class Device:
    """One FPGA: its family, LUT4s, flip-flops, DSP tiles and block RAMs."""
    family: str
    luts: int
    flip_flops: int
    dsp: int
    bram: int


DEVICES = {
    "ecp5-25k": Device("ecp5", 24_288, 24_288, 28, 56),
    "ecp5-45k": Device("ecp5", 43_848, 43_848, 72, 108),
    "ecp5-85k": Device("ecp5", 83_640, 83_640, 156, 208),
    "ice40-hx8k": Device("ice40", 7_680, 7_680, 0, 32),
    "ice40-up5k": Device("ice40", 5_280, 5_280, 8, 30),
}


def dsp_tiles(a_bits, b_bits, tile=18):
    """18 x 18 tiles (MULT18X18D) Yosys maps a signed ``a_bits`` x ``b_bits`` product onto: one
    up to 18 x 18, otherwise split in 17-bit unsigned pieces and a signed top piece (measured:
    a 24 x 24 product takes four, 37 of them 148 in an ECP5-85F)."""
    def pieces(bits):
        return 1 if bits <= tile else 1 + math.ceil((bits - tile) / (tile - 1))
    return pieces(a_bits) * pieces(b_bits)


def is_ecp5(platform):
    """Whether ``platform`` (an Amaranth platform, or ``None`` when elaborating for simulation
    or a generic netlist) is an ECP5: the cores that build ECP5 primitives ask this."""
    return getattr(platform, "family", None) == "ecp5"
