"""Hardware primitives every family builds on: fixed-point formats and rounding in numpy and
Amaranth twins (:mod:`.fixed`), stream payloads as integers (:mod:`.payload`), tapped delay
lines (:mod:`.delay_line`), FPGAs' figures (:mod:`.devices`), registered products
(:mod:`.multiplier`), control nets on clock networks (:mod:`.global_buffer`), the lanes of a
stream's output queue (:mod:`.queue`), register files of planned programs
(:mod:`.register_file`) and the stream-pipeline base (:mod:`.stream`)."""
