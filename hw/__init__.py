"""Shared hardware pieces: fixed-point formats and rounding (numpy and Amaranth twins), stream
payload packing."""
