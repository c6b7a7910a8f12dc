"""The inertia family: systolic and recursive-doubling arrays for the manipulator inertia
matrix (Amin-Javaheri & Orin): :class:`LinearInertiaArray` (O(N), Table 1) and
:class:`LogDepthInertiaArray` (O(log2 N), Table 2); the float64 algorithms (:mod:`.reference`),
their operation counts (:mod:`.counts`), the payloads (:mod:`.codec`), the bit-exact model
(:mod:`.model`), the designs of the
flows (:mod:`.designs`), the ``inertia`` command's files (:mod:`.files`) and the report section
(:mod:`.report`)."""

from robohw.support.lazy import load_export

__all__ = ["FAMILY", "LinearInertiaArray", "LogDepthInertiaArray", "LinearPlan", "LogDepthPlan",
           "ARRAYS",
           "PLANS", "DEFAULT_FOLDS", "INERTIA_DESIGNS", "read_configurations", "solve_inertia",
           "write_matrices", "inertia_error_panel", "write_inertia_report",
           "configuration_columns", "matrix_header", "matrix_rows", "inertia_matrix"]

# Where each name comes from: loaded on first use (robohw.support.lazy), so that a command
# imports only the modules it runs.
_SOURCES = {
    "FAMILY": "robohw.systolic.family",
    "LinearInertiaArray": "robohw.systolic.linear",
    "LogDepthInertiaArray": "robohw.systolic.logdepth",
    "LinearPlan": "robohw.systolic.linear",
    "LogDepthPlan": "robohw.systolic.logdepth",
    "ARRAYS": "robohw.systolic.arrays",
    "PLANS": "robohw.systolic.arrays",
    "DEFAULT_FOLDS": "robohw.systolic.arrays",
    "INERTIA_DESIGNS": "robohw.systolic.designs:DESIGNS",
    "read_configurations": "robohw.systolic.files",
    "solve_inertia": "robohw.systolic.files",
    "write_matrices": "robohw.systolic.files",
    "inertia_error_panel": "robohw.systolic.report",
    "write_inertia_report": "robohw.systolic.report",
    "configuration_columns": "robohw.systolic.files",
    "matrix_header": "robohw.systolic.files",
    "matrix_rows": "robohw.systolic.files",
    "inertia_matrix": "robohw.systolic.reference",
}


def __getattr__(name):
    return load_export(__name__, _SOURCES, name)
