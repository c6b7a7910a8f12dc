"""Float64 references of every algorithm the hardware computes: the CORDIC operations
(:mod:`.cordic`), serial-robot kinematics and the PUMA closed form (:mod:`.kinematics`), the
manipulator inertia matrix (:mod:`.inertia`)."""
