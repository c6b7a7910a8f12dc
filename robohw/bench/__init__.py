"""Benchmarks: the CORDIC processors' simulation speeds, the buffer assignment's solve time."""
