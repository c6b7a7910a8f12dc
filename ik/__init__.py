"""Inverse kinematics by task graphs of CORDIC computational modules (Lee & Chang): the graph
as data (:mod:`.task_graph`), the PUMA decompositions (:mod:`.puma_graph`), the balanced
hardware pipeline (:mod:`.pipeline`) and the bit-exact model (:mod:`.model`)."""
