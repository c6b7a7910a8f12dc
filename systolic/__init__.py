"""Systolic and recursive-doubling arrays for the manipulator inertia matrix (Amin-Javaheri &
Orin): :class:`LinearInertiaArray` (O(N), Table 1) and :class:`LogDepthInertiaArray`
(O(log2 N), Table 2)."""

from systolic.linear import LinearInertiaArray
from systolic.logdepth import LogDepthInertiaArray

__all__ = ["LinearInertiaArray", "LogDepthInertiaArray", "ARRAYS"]

ARRAYS = {"linear": LinearInertiaArray, "logdepth": LogDepthInertiaArray}
