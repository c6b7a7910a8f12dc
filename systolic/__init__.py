"""Systolic and recursive-doubling arrays for the manipulator inertia matrix (Amin-Javaheri &
Orin): :class:`LinearInertiaArray` (O(N), Table 1) and :class:`LogDepthInertiaArray`
(O(log2 N), Table 2)."""

from robohw.systolic.linear import LinearInertiaArray, LinearPlan
from robohw.systolic.logdepth import LogDepthInertiaArray, LogDepthPlan

__all__ = ["LinearInertiaArray", "LogDepthInertiaArray", "LinearPlan", "LogDepthPlan", "ARRAYS",
           "PLANS", "DEFAULT_FOLDS"]

ARRAYS = {"linear": LinearInertiaArray, "logdepth": LogDepthInertiaArray}
PLANS = {"linear": LinearPlan, "logdepth": LogDepthPlan}
# The smallest folds that place on an ECP5-85F at 24 bits: its 156 MULT18X18D tiles, four per
# shared 24 x 24 multiplier (ceil(259 / 7) = 37 and ceil(296 / 8) = 37 multipliers for the
# PUMA 560; measured with robohw synth, README "FPGA synthesis").
DEFAULT_FOLDS = {"linear": 7, "logdepth": 8}
