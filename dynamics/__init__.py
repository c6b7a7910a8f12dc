"""Inverse dynamics (Lee & Chang, section 3): the float64 Newton-Euler formulations
(:mod:`.reference`), their scans (:mod:`.scans`), range bounds (:mod:`.bounds`), the
designs' accuracy promise (:mod:`.accuracy`) and operation counts (:mod:`.counts`);
:class:`NewtonEulerPipeline`, the base-coordinate equations as one fully pipelined
datapath, and Lee & Chang's processor array (:mod:`.array`); the bit-exact model
(:mod:`.model`), the payloads (:mod:`.codec`), the designs of the flows (:mod:`.designs`), the ``dynamics`` command's files
(:mod:`.files`) and the report section (:mod:`.report`). It uses the inertia family's
references."""

from robohw.support.lazy import load_export

__all__ = ["FAMILY", "NewtonEulerPipeline", "NewtonEulerPlan", "DYNAMICS_DESIGNS",
           "BOUND_FRACTION",
           "AccuracyPromise", "read_states", "solve_dynamics", "write_torques",
           "state_columns", "split_states", "torque_header", "torque_rows",
           "write_dynamics_report", "inverse_dynamics", "state_fields", "torque_fields"]

# Where each name comes from: loaded on first use (robohw.support.lazy), so that a command
# imports only the modules it runs.
_SOURCES = {
    "FAMILY": "robohw.dynamics.family",
    "NewtonEulerPipeline": "robohw.dynamics.pipeline",
    "NewtonEulerPlan": "robohw.dynamics.pipeline",
    "DYNAMICS_DESIGNS": "robohw.dynamics.designs:DESIGNS",
    "BOUND_FRACTION": "robohw.dynamics.accuracy",
    "AccuracyPromise": "robohw.dynamics.accuracy",
    "read_states": "robohw.dynamics.files",
    "solve_dynamics": "robohw.dynamics.files",
    "write_torques": "robohw.dynamics.files",
    "state_columns": "robohw.dynamics.files",
    "split_states": "robohw.dynamics.files",
    "torque_header": "robohw.dynamics.files",
    "torque_rows": "robohw.dynamics.files",
    "write_dynamics_report": "robohw.dynamics.report",
    "inverse_dynamics": "robohw.dynamics.reference",
    "state_fields": "robohw.dynamics.codec",
    "torque_fields": "robohw.dynamics.codec",
}


def __getattr__(name):
    return load_export(__name__, _SOURCES, name)
