"""Inverse kinematics by task graphs of CORDIC computational modules (Lee & Chang; the graphs'
machinery is :mod:`robohw.taskgraph`): the PUMA decompositions (:mod:`.puma_graph`); the PUMA
closed form (:mod:`.reference`), the accuracy (:mod:`.accuracy`), the graph and its buffers as the
``ik-graph`` command shows them (:mod:`.solved_graph`), the designs of the flows
(:mod:`.designs`), the ``ik`` command's files (:mod:`.files`) and the report section
(:mod:`.report`)."""

from robohw.support.lazy import load_export

__all__ = ["FAMILY", "IK_DESIGNS", "PoseFileError", "branch_index", "read_poses", "solve_ik",
           "POSE_COLUMNS", "poses_from_inputs", "joint_header", "joint_rows",
           "write_joints", "graph_solution", "ik_error_panel", "plot_ik_schedules",
           "write_ik_report"]

# Where each name comes from: loaded on first use (robohw.support.lazy), so that a command
# imports only the modules it runs.
_SOURCES = {
    "FAMILY": "robohw.ik.family",
    "IK_DESIGNS": "robohw.ik.designs:DESIGNS",
    "PoseFileError": "robohw.ik.files",
    "branch_index": "robohw.ik.files",
    "read_poses": "robohw.ik.files",
    "solve_ik": "robohw.ik.files",
    "POSE_COLUMNS": "robohw.ik.files",
    "poses_from_inputs": "robohw.ik.files",
    "joint_header": "robohw.ik.files",
    "joint_rows": "robohw.ik.files",
    "write_joints": "robohw.ik.files",
    "graph_solution": "robohw.ik.solved_graph",
    "ik_error_panel": "robohw.ik.report",
    "plot_ik_schedules": "robohw.ik.report",
    "write_ik_report": "robohw.ik.report",
}


def __getattr__(name):
    return load_export(__name__, _SOURCES, name)
