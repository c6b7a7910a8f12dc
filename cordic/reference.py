"""Float64 references for the CORDIC processors.

Two independent formulations of what a processor computes:

* :func:`cordic_ideal`, the closed forms (``cos``, ``hypot``, ``atanh``, ...), and
* :func:`cordic_float_iteration`, the micro-rotation recurrence run in float64 with exact
  angles and an exact gain correction.

Tests check that the two agree; the bit-exact model is measured against the first.
Angles are radians here; the hardware's binary angles convert with
:func:`robohw.hw.fixed.angle_to_code` and :func:`robohw.hw.fixed.code_to_angle`.
"""

import math

import numpy as np

from robohw.cordic.config import Direction, System, hyperbolic_shifts

__all__ = ["cordic_ideal", "cordic_float_iteration"]


def cordic_ideal(system, direction, x, y, z):
    """What an exact, normalized CORDIC computes: returns ``(x, y, z)`` float arrays.

    Circular rotation turns ``(x, y)`` by ``z`` radians; vectoring returns the length, 0 and
    ``z + atan2(y, x)``. Linear rotation gives ``y + x z``; vectoring ``z + y / x``.
    Hyperbolic rotation applies ``[[cosh z, sinh z], [sinh z, cosh z]]``; vectoring returns
    ``sign(x) sqrt(x^2 - y^2)`` (``|x|`` for ``x < 0``, as the pre-rotation does), 0 and
    ``z + atanh(y / x)``.
    """
    system, direction = System(system), Direction(direction)
    x, y, z = (np.asarray(v, dtype=np.float64) for v in (x, y, z))
    zero = np.zeros(np.broadcast(x, y, z).shape)
    if system is System.CIRCULAR:
        if direction is Direction.ROTATION:
            c, s = np.cos(z), np.sin(z)
            return x * c - y * s, x * s + y * c, zero
        return np.hypot(x, y), zero, z + np.arctan2(y, x)
    if system is System.LINEAR:
        if direction is Direction.ROTATION:
            return x + zero, y + x * z, zero
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.abs(x) + zero, zero, z + y / x
    if direction is Direction.ROTATION:
        c, s = np.cosh(z), np.sinh(z)
        return x * c + y * s, x * s + y * c, zero
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sqrt(x * x - y * y), zero, z + np.arctanh(y / x)


def cordic_float_iteration(system, direction, x, y, z, iterations=60):
    """The CORDIC recurrence in float64, with exact micro-angles, pre-rotation and a final
    division by the exact gain: an independent route to :func:`cordic_ideal`."""
    system, direction = System(system), Direction(direction)
    m = system.value
    x, y, z = (np.array(v, dtype=np.float64) for v in np.broadcast_arrays(x, y, z))
    if system is System.HYPERBOLIC:
        shifts = hyperbolic_shifts(iterations)
        angle = math.atanh
    else:
        shifts = range(iterations)
        angle = math.atan if system is System.CIRCULAR else (lambda t: t)
    if direction is Direction.ROTATION and system is System.CIRCULAR:
        z = np.remainder(z + np.pi, 2 * np.pi) - np.pi
        flip = np.abs(z) >= np.pi / 2
        x, y, z = (np.where(flip, -x, x), np.where(flip, -y, y),
                   np.where(flip, z - np.copysign(np.pi, z), z))
    elif direction is Direction.VECTORING:
        flip = x < 0
        x, y = np.where(flip, -x, x), np.where(flip, -y, y)
        if system is System.CIRCULAR:
            z = np.where(flip, z + np.pi, z)
    gain = 1.0
    for s in shifts:
        t = 2.0 ** -s
        sigma = np.where(z >= 0, 1.0, -1.0) if direction is Direction.ROTATION else \
            np.where(y < 0, 1.0, -1.0)
        x, y = x - m * sigma * y * t, y + sigma * x * t
        z = z - sigma * angle(t)
        gain *= math.sqrt(1 + m * t * t)
    if system is System.CIRCULAR and direction is Direction.VECTORING:
        z = np.remainder(z + np.pi, 2 * np.pi) - np.pi
    return x / gain, y / gain, z
