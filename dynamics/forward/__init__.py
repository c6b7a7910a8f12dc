"""Forward dynamics, the accelerations of a state ``(q, qd, tau)``: the float64 references (the
articulated-body algorithm and the inertia matrix solved), the articulated-body algorithm over
scalars for hardware with its proven ranges and divisors, traced as a plan with its bit-exact
model, on the engine with reciprocal units, the ``forward-dynamics`` design, command files and
report section. Built on inverse dynamics (:mod:`robohw.dynamics.inverse`); the family's names
are exported by :mod:`robohw.dynamics`."""
