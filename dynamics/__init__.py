"""Inverse and forward dynamics (Lee & Chang, section 3): the float64 Newton-Euler formulations
(:mod:`.reference`), their scans (:mod:`.scans`), range bounds (:mod:`.bounds`), the
designs' accuracy promise (:mod:`.accuracy`) and operation counts (:mod:`.counts`);
:class:`NewtonEulerPipeline`, the base-coordinate equations as one fully pipelined
datapath, and Lee & Chang's processor array (:mod:`.array`); the bit-exact model
(:mod:`.model`), the payloads (:mod:`.codec`), the designs of the flows (:mod:`.designs`), the ``dynamics`` command's files
(:mod:`.files`) and the report section (:mod:`.report`); forward dynamics: the float64
references (:mod:`.forward`), the traced algorithm and its bit-exact model
(:mod:`.forward_plan`), its engine (:mod:`.forward_engine`, the ``forward-dynamics`` design of
:mod:`.forward_design`) and the ``forward-dynamics`` command's files
(:mod:`.forward_files`)."""

from robohw.support.lazy import load_export

__all__ = ["FAMILY", "NewtonEulerPipeline", "NewtonEulerPlan", "DYNAMICS_DESIGNS",
           "BOUND_FRACTION",
           "AccuracyPromise", "read_states", "solve_dynamics", "write_torques",
           "state_columns", "split_states", "torque_header", "torque_rows",
           "write_dynamics_report", "inverse_dynamics", "state_fields", "torque_fields",
           "forward_fields",
           "forward_dynamics", "solve_forward", "plan_forward", "forward_columns",
           "split_forward", "acceleration_header", "acceleration_rows",
           "FORWARD_BOUND_FRACTION", "board_design"]

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
    "board_design": "robohw.dynamics.files",
    "solve_dynamics": "robohw.dynamics.files",
    "write_torques": "robohw.dynamics.files",
    "state_columns": "robohw.dynamics.files",
    "split_states": "robohw.dynamics.files",
    "torque_header": "robohw.dynamics.files",
    "torque_rows": "robohw.dynamics.files",
    "write_dynamics_report": "robohw.dynamics.report",
    "inverse_dynamics": "robohw.dynamics.reference",
    "state_fields": "robohw.dynamics.codec",
    "forward_fields": "robohw.dynamics.codec",
    "torque_fields": "robohw.dynamics.codec",
    "forward_dynamics": "robohw.dynamics.forward",
    "solve_forward": "robohw.dynamics.forward_files",
    "plan_forward": "robohw.dynamics.forward_files",
    "forward_columns": "robohw.dynamics.forward_files",
    "split_forward": "robohw.dynamics.forward_files",
    "acceleration_header": "robohw.dynamics.forward_files",
    "acceleration_rows": "robohw.dynamics.forward_files",
    "FORWARD_BOUND_FRACTION": "robohw.dynamics.forward_files",
}


def __getattr__(name):
    return load_export(__name__, _SOURCES, name)
