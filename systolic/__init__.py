"""Systolic and recursive-doubling arrays for the manipulator inertia matrix (Amin-Javaheri &
Orin): :class:`LinearInertiaArray` (O(N), Table 1) and :class:`LogDepthInertiaArray`
(O(log2 N), Table 2)."""

from robohw.systolic.linear import LinearInertiaArray, LinearPlan
from robohw.systolic.logdepth import LogDepthInertiaArray, LogDepthPlan

__all__ = ["LinearInertiaArray", "LogDepthInertiaArray", "LinearPlan", "LogDepthPlan", "ARRAYS",
           "PLANS", "DEFAULT_FOLDS"]

ARRAYS = {"linear": LinearInertiaArray, "logdepth": LogDepthInertiaArray}
PLANS = {"linear": LinearPlan, "logdepth": LogDepthPlan}
# Folds measured to place and route on an ECP5-85F at the registry's 18 bits (37 shared
# multipliers, one MULT18X18D tile each, for the PUMA 560's 259 and 296 products; README "FPGA
# synthesis"). At 24 bits (four tiles a product) these are the smallest folds whose tiles fit
# the 85F's 156, but routing them did not finish. Smaller folds at 18 bits (down to 2 by the
# tiles) are not placed yet.
DEFAULT_FOLDS = {"linear": 7, "logdepth": 8}
