"""Pareto fronts and the size they weigh: which points no other beats on every axis at once,
and a synthesized design's LUT-equivalents (what the sweep's fronts and the report's curves
over a fold or an interval compare)."""

__all__ = ["DSP_LUT_EQUIVALENT", "LUT_RAM_LUTS", "lut_equivalents", "dominates", "pareto_mask"]

# LUT-sized cells of one signed 18 x 18 product built in the fabric instead of a MULT18X18D:
# Yosys 0.70 `synth_ecp5 -nodsp` maps one (registered operands and product) to 1,868 LUT4 and
# 18 CCU2C (two LUTs each) = 1,904 (measured 2026-11-28; tests/app/test_sweep.py repeats it in
# `make slow`).
DSP_LUT_EQUIVALENT = 1_904
# A TRELLIS_DPR16X4 (16 x 4 LUT RAM) takes the four LUTs of a slice pair (robohw.flows.synth).
LUT_RAM_LUTS = 4


def lut_equivalents(luts, carry, lut_ram, dsp):
    """A synthesized design's size in LUTs: its LUT4s, two a carry cell, :data:`LUT_RAM_LUTS`
    a 16 x 4 LUT-RAM block, :data:`DSP_LUT_EQUIVALENT` a DSP tile (block RAM is not weighed)."""
    return luts + 2 * carry + LUT_RAM_LUTS * lut_ram + DSP_LUT_EQUIVALENT * dsp


def dominates(a, b, larger_is_better):
    """Whether ``a`` dominates ``b`` (tuples, one number per axis): at least as good on every
    axis and better on one."""
    signs = [-1 if larger else 1 for larger in larger_is_better]
    a, b = [s * x for s, x in zip(signs, a)], [s * x for s, x in zip(signs, b)]
    return a != b and all(x <= y for x, y in zip(a, b))


def pareto_mask(values, larger_is_better):
    """Which of ``values`` no other value :func:`dominates`."""
    return [not any(dominates(other, value, larger_is_better) for other in values)
            for value in values]
