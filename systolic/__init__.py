"""The inertia family: systolic and recursive-doubling arrays for the manipulator inertia
matrix (Amin-Javaheri & Orin): :class:`LinearInertiaArray` (O(N), Table 1) and
:class:`LogDepthInertiaArray` (O(log2 N), Table 2); the float64 algorithms (:mod:`.reference`),
their operation counts (:mod:`.counts`), the payloads (:mod:`.codec`), the bit-exact model
(:mod:`.model`), the designs of the
flows (:mod:`.designs`), the ``inertia`` command's files (:mod:`.files`) and the report section
(:mod:`.report`)."""

from robohw.systolic.arrays import ARRAYS, DEFAULT_FOLDS, PLANS
from robohw.systolic.designs import DESIGNS as INERTIA_DESIGNS
from robohw.systolic.files import (configuration_columns, matrix_header, matrix_rows,
                                   read_configurations, solve_inertia, write_matrices)
from robohw.systolic.linear import LinearInertiaArray, LinearPlan
from robohw.systolic.logdepth import LogDepthInertiaArray, LogDepthPlan
from robohw.systolic.report import inertia_error_panel, write_inertia_report

__all__ = ["LinearInertiaArray", "LogDepthInertiaArray", "LinearPlan", "LogDepthPlan", "ARRAYS",
           "PLANS", "DEFAULT_FOLDS", "INERTIA_DESIGNS", "read_configurations", "solve_inertia",
           "write_matrices", "inertia_error_panel", "write_inertia_report",
           "configuration_columns", "matrix_header", "matrix_rows"]
