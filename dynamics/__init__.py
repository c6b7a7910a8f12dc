"""Inverse dynamics hardware (Lee & Chang, section 3): :class:`NewtonEulerPipeline`, the
base-coordinate Newton-Euler equations as one fully pipelined datapath, one torque vector per
clock, its scans as recursive-doubling trees."""

from robohw.dynamics.pipeline import NewtonEulerPipeline, NewtonEulerPlan

__all__ = ["NewtonEulerPipeline", "NewtonEulerPlan"]
