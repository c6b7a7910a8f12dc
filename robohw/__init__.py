"""robohw: cycle-accurate hardware for robot computations in Amaranth HDL.

One import root, in layers; every import runs downward (``tests/test_layers.py``):

=================  ==========================================================================
``robohw.hw``      fixed point, stream payloads, delay lines, the stream-pipeline base
``robohw.buffers`` the optimal buffer assignment of pipelined task graphs
``robohw.robots``  robot descriptions (TOML), family checks, joint sampling
``robohw.sim``     simulation harnesses: Amaranth, cocotb + Verilator, register count
``robohw.cordic``  CORDIC processors and their bit-exact model
``robohw.reference`` float64 references: CORDIC, kinematics, inertia matrix
``robohw.ik``      task graphs of CORDIC modules, the PUMA IK graphs, their pipeline and model
``robohw.systolic`` inertia-matrix arrays, the traced dataflow and its bit-exact model
``robohw``         the application: design registry, measurement, CLI, report, export, synth
=================  ==========================================================================
"""

__version__ = "0.1.0"
