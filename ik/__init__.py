"""Inverse kinematics by task graphs of CORDIC computational modules (Lee & Chang): the graph
as data (:mod:`.task_graph`), the PUMA decompositions (:mod:`.puma_graph`), the balanced
hardware pipeline (:mod:`.pipeline`) and the bit-exact model (:mod:`.model`); the PUMA closed
form (:mod:`.reference`), the accuracy (:mod:`.accuracy`), the graph and its buffers as the
``ik-graph`` command shows them (:mod:`.graph_solution`), the designs of the flows
(:mod:`.designs`), the ``ik`` command's files (:mod:`.files`) and the report section
(:mod:`.report`)."""

from robohw.ik.designs import DESIGNS as IK_DESIGNS
from robohw.ik.files import (POSE_COLUMNS, PoseFileError, branch_index, joint_header, joint_rows,
                             poses_from_inputs, read_poses, solve_ik, write_joints)
from robohw.ik.graph_solution import graph_solution
from robohw.ik.report import ik_error_panel, plot_ik_schedules, write_ik_report

__all__ = ["IK_DESIGNS", "PoseFileError", "branch_index", "read_poses", "solve_ik",
           "POSE_COLUMNS", "poses_from_inputs", "joint_header", "joint_rows",
           "write_joints", "graph_solution", "ik_error_panel", "plot_ik_schedules",
           "write_ik_report"]
