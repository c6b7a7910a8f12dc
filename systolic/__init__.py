"""Systolic and recursive-doubling arrays for the manipulator inertia matrix.

Empty until the inertia-matrix issue lands (Amin-Javaheri & Orin, Tables 1 and 2).
"""
