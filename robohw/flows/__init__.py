"""The hardware flows of the command line: simulate, export Verilog, synthesize."""
