"""Parallel manipulators (Gosselin 1996), one processor per leg: the float64 kinematics and
dynamics (:mod:`.platform_kinematics`, :mod:`.platform_dynamics`), the operation counts
(:mod:`.counts`), the legs' CCM graphs (:mod:`.ik_graph`, :mod:`.fk_graph`,
:mod:`.dynamics_graph`), Gosselin's machine (:mod:`.machine`, :mod:`.leg_machine`) and the
forward kinematics' servo loop (:mod:`.servo`); the paper against ours (:mod:`.paper_checks`),
the accuracy (:mod:`.accuracy`), the singularity rule (:mod:`.singularity`), the designs of the
flows (:mod:`.designs`), the ``platform`` command's files (:mod:`.files`) and the report
section (:mod:`.report`). It builds on the IK family's task graphs."""

from robohw.legs.designs import DESIGNS as PLATFORM_DESIGNS
from robohw.legs.family import FAMILY
from robohw.legs.files import (
                               independent_rows,
                               input_columns,
                               platform_header,
                               platform_rows,
                               read_platform_input,
                               solve_platform,
                               write_platform_output,
)
from robohw.legs.platform_kinematics import FK_ITERATIONS, FK_TOLERANCE, check_tolerance
from robohw.legs.report import write_platform_report
from robohw.legs.servo import SERVO_ITERATIONS

__all__ = ["FAMILY", "PLATFORM_DESIGNS", "FK_ITERATIONS", "FK_TOLERANCE", "SERVO_ITERATIONS",
           "check_tolerance", "read_platform_input", "solve_platform", "write_platform_output",
           "write_platform_report", "independent_rows", "input_columns", "platform_header",
           "platform_rows"]
