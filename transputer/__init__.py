"""Zomaya & Morris's Lagrange-Euler dynamics on a network of T800 transputers: the allocation
of the 64 subtasks (:mod:`robohw.reference.lagrange_euler_tasks`) to the slave processors."""
