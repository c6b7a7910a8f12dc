"""The two inertia arrays and their plans by name, and the folds they are built at by default."""

from robohw.systolic.linear import LinearInertiaArray, LinearPlan
from robohw.systolic.logdepth import LogDepthInertiaArray, LogDepthPlan

__all__ = ["ARRAYS", "PLANS", "DEFAULT_FOLDS"]

ARRAYS = {"linear": LinearInertiaArray, "logdepth": LogDepthInertiaArray}
PLANS = {"linear": LinearPlan, "logdepth": LogDepthPlan}
# Folds measured to place and route on an ECP5-85F at the designs' 18 bits, one MULT18X18D
# tile per shared multiplier (docs/inertia.md): the linear array at fold 6 (44 tiles for
# the PUMA 560's 259 products), the recursive-doubling array (296 products) at fold 8 (37
# tiles): the smallest folds placed so far. The tiles would allow fold 2 for both.
DEFAULT_FOLDS = {"linear": 6, "logdepth": 8}
