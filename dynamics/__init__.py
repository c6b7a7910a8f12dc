"""Robot dynamics (Lee & Chang, section 3), one subpackage a computation: inverse dynamics
(:mod:`.inverse`: the float64 Newton-Euler formulations, Lee & Chang's pipeline and processor
array, the link-frame engine, the bit-exact model, the ``dynamics`` command's files), forward
dynamics (:mod:`.forward`: the articulated-body algorithm and the inertia matrix solved, the
traced plan and its bit-exact model, the engine with reciprocal units, the
``forward-dynamics`` command's files) and the gradient of inverse dynamics (:mod:`.gradient`:
its float64 reference, the traced plan by forward mode and its model, the engine, the
``dynamics-gradient`` command's files); the family's registered
designs (:mod:`.designs`), its page of the report (:mod:`.report`) and its declaration
(:mod:`.family`). The names below are what the application reads of it."""

from robohw.support.lazy import load_export

__all__ = ["FAMILY", "NewtonEulerPipeline", "NewtonEulerPlan", "DYNAMICS_DESIGNS",
           "BOUND_FRACTION",
           "AccuracyPromise", "read_states", "solve_dynamics", "write_torques",
           "state_columns", "split_states", "torque_header", "torque_rows",
           "write_dynamics_report", "inverse_dynamics", "state_fields", "torque_fields",
           "forward_fields",
           "forward_dynamics", "solve_forward", "forward_columns",
           "split_forward", "acceleration_header", "acceleration_rows",
           "FORWARD_PROMISE", "certified_plan", "board_design", "forward_board_design",
           "inverse_dynamics_gradient",
           "solve_gradient", "gradient_header", "gradient_rows"]

# Where each name comes from: loaded on first use (robohw.support.lazy), so that a command
# imports only the modules it runs.
_SOURCES = {
    "FAMILY": "robohw.dynamics.family",
    "NewtonEulerPipeline": "robohw.dynamics.inverse.pipeline",
    "NewtonEulerPlan": "robohw.dynamics.inverse.pipeline",
    "DYNAMICS_DESIGNS": "robohw.dynamics.designs:DESIGNS",
    "BOUND_FRACTION": "robohw.dynamics.inverse.accuracy",
    "AccuracyPromise": "robohw.dynamics.inverse.accuracy",
    "read_states": "robohw.dynamics.inverse.files",
    "board_design": "robohw.dynamics.inverse.files",
    "forward_board_design": "robohw.dynamics.forward.board",
    "solve_dynamics": "robohw.dynamics.inverse.files",
    "write_torques": "robohw.dynamics.inverse.files",
    "state_columns": "robohw.dynamics.inverse.files",
    "split_states": "robohw.dynamics.inverse.files",
    "torque_header": "robohw.dynamics.inverse.files",
    "torque_rows": "robohw.dynamics.inverse.files",
    "write_dynamics_report": "robohw.dynamics.report",
    "inverse_dynamics": "robohw.dynamics.inverse.reference",
    "state_fields": "robohw.dynamics.inverse.codec",
    "forward_fields": "robohw.dynamics.forward.codec",
    "torque_fields": "robohw.dynamics.inverse.codec",
    "forward_dynamics": "robohw.dynamics.forward.reference",
    "solve_forward": "robohw.dynamics.forward.files",
    "forward_columns": "robohw.dynamics.forward.files",
    "split_forward": "robohw.dynamics.forward.files",
    "acceleration_header": "robohw.dynamics.forward.files",
    "acceleration_rows": "robohw.dynamics.forward.files",
    "FORWARD_PROMISE": "robohw.dynamics.forward.files",
    "certified_plan": "robohw.dynamics.forward.files",
    "inverse_dynamics_gradient": "robohw.dynamics.gradient.reference",
    "solve_gradient": "robohw.dynamics.gradient.files",
    "gradient_header": "robohw.dynamics.gradient.files",
    "gradient_rows": "robohw.dynamics.gradient.files",
}


def __getattr__(name):
    return load_export(__name__, _SOURCES, name)
