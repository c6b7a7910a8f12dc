"""Delay lines and the buffer-assignment optimizer that balances pipelined task graphs.

Empty until the PUMA inverse-kinematics issue lands (tapped delay lines, the integer linear
program of Lee & Chang section 2.2).
"""
