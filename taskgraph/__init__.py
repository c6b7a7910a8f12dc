"""Task graphs of CORDIC computational modules (Lee & Chang, section 2.2), shared by the IK and
the parallel-manipulator families: the graph as data (:mod:`.graph`), its float64 and bit-exact
evaluation (:mod:`.model`), the proven ranges of its values (:mod:`.ranges`) and the balanced
hardware pipeline, pipelined or word-serial CCMs (:mod:`.pipeline`)."""
