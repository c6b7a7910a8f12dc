"""Float references, bit-exact models, simulation harnesses (Amaranth, cocotb + Verilator),
benchmarks, reports and the ``robohw`` command line."""
