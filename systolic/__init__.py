"""Systolic and recursive-doubling arrays for the manipulator inertia matrix (Amin-Javaheri &
Orin): :class:`LinearInertiaArray` (O(N), Table 1) and :class:`LogDepthInertiaArray`
(O(log2 N), Table 2)."""

from robohw.systolic.linear import LinearInertiaArray, LinearPlan
from robohw.systolic.logdepth import LogDepthInertiaArray, LogDepthPlan

__all__ = ["LinearInertiaArray", "LogDepthInertiaArray", "LinearPlan", "LogDepthPlan", "ARRAYS",
           "PLANS"]

ARRAYS = {"linear": LinearInertiaArray, "logdepth": LogDepthInertiaArray}
PLANS = {"linear": LinearPlan, "logdepth": LogDepthPlan}
