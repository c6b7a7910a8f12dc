"""Inverse dynamics, the torques of a state ``(q, qd, qdd)``: the float64 Newton-Euler
formulations and their scans, bounds and counts; Lee & Chang's pipeline and processor array;
the equations in link frames on the engine; the bit-exact model, the designs, the ``dynamics``
command's files and the report's sections. The family's names are exported by
:mod:`robohw.dynamics`."""
