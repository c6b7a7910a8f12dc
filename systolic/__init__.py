"""Systolic and recursive-doubling arrays for the manipulator inertia matrix (Amin-Javaheri &
Orin): :class:`LinearInertiaArray` (O(N), Table 1) and :class:`LogDepthInertiaArray`
(O(log2 N), Table 2)."""

from robohw.systolic.linear import LinearInertiaArray, LinearPlan
from robohw.systolic.logdepth import LogDepthInertiaArray, LogDepthPlan

__all__ = ["LinearInertiaArray", "LogDepthInertiaArray", "LinearPlan", "LogDepthPlan", "ARRAYS",
           "PLANS", "DEFAULT_FOLDS"]

ARRAYS = {"linear": LinearInertiaArray, "logdepth": LogDepthInertiaArray}
PLANS = {"linear": LinearPlan, "logdepth": LogDepthPlan}
# Folds measured to place and route on an ECP5-85F at the registry's 18 bits, one MULT18X18D
# tile per shared multiplier (README "FPGA synthesis"): the linear array at fold 6 (44 tiles for
# the PUMA 560's 259 products; 109.6 MHz), the recursive-doubling array (296 products) at fold 8
# (37 tiles; 107.7 MHz): the smallest folds placed so far. The tiles would allow fold 2 for both.
DEFAULT_FOLDS = {"linear": 6, "logdepth": 8}
