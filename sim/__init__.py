"""Simulation harnesses for any component with an ``i`` and an ``o`` stream: the Amaranth
simulator (:mod:`.harness`), exported Verilog under cocotb + Verilator (:mod:`.verilator`), and
the register count of an elaborated design (:mod:`.resources`)."""
