"""Zomaya & Morris's Lagrange-Euler dynamics on a network of T800 transputers: the float64
Lagrange-Euler (:mod:`.lagrange_euler`) and its 64 subtasks (:mod:`.lagrange_euler_tasks`), their
allocation to the slave processors, the network's simulation (:mod:`.study`) and the report
section (:mod:`.report`)."""

from robohw.transputer.family import FAMILY
from robohw.transputer.network import Links
from robohw.transputer.report import format_rows, plot_gantt, write_transputer_report
from robohw.transputer.study import MAX_PROCESSORS, study

__all__ = ["FAMILY", "Links", "MAX_PROCESSORS", "study", "format_rows", "plot_gantt",
           "write_transputer_report"]
