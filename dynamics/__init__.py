"""Inverse dynamics (Lee & Chang, section 3): the float64 Newton-Euler formulations
(:mod:`.reference`), their scans (:mod:`.scans`), range bounds (:mod:`.bounds`), the
designs' accuracy promise (:mod:`.accuracy`) and operation counts (:mod:`.counts`);
:class:`NewtonEulerPipeline`, the base-coordinate equations as one fully pipelined
datapath, and Lee & Chang's processor array (:mod:`.array`); the bit-exact model
(:mod:`.model`), the designs of the flows (:mod:`.designs`), the ``dynamics`` command's files
(:mod:`.files`) and the report section (:mod:`.report`). It uses the inertia family's
references."""

from robohw.dynamics.accuracy import BOUND_FRACTION, AccuracyPromise
from robohw.dynamics.designs import DESIGNS as DYNAMICS_DESIGNS
from robohw.dynamics.files import (read_states, solve_dynamics, split_states, state_columns,
                                   torque_header, torque_rows, write_torques)
from robohw.dynamics.pipeline import NewtonEulerPipeline, NewtonEulerPlan
from robohw.dynamics.report import write_dynamics_report

__all__ = ["NewtonEulerPipeline", "NewtonEulerPlan", "DYNAMICS_DESIGNS", "BOUND_FRACTION",
           "AccuracyPromise", "read_states", "solve_dynamics", "write_torques",
           "state_columns", "split_states", "torque_header", "torque_rows",
           "write_dynamics_report"]
