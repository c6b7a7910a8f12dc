"""Joint trajectories of quintic segments: each joint's position a polynomial of degree five
between knots, matching the position, velocity and acceleration given at both ends of each
segment (so velocity and acceleration are continuous across the knots).

On a segment of duration ``T`` from ``(q0, v0, a0)`` to ``(q1, v1, a1)``, with ``h = q1 - q0``
and local time ``s`` from 0, ``q(s) = sum_k c_k s^k`` with ``c0 = q0``, ``c1 = v0``,
``c2 = a0 / 2`` and

- ``c3 = (20 h - (8 v1 + 12 v0) T - (3 a0 - a1) T^2) / (2 T^3)``,
- ``c4 = (-30 h + (14 v1 + 16 v0) T + (3 a0 - 2 a1) T^2) / (2 T^4)``,
- ``c5 = (12 h - 6 (v1 + v0) T + (a1 - a0) T^2) / (2 T^5)``

(the end conditions solved for the three highest coefficients).
"""

from dataclasses import dataclass

import numpy as np

__all__ = ["QuinticPath", "quintic_coefficients"]


def quintic_coefficients(q0, v0, a0, q1, v1, a1, duration):
    """``(6, ...)`` coefficients ``c0..c5`` of the segments (arrays broadcast)."""
    q0, v0, a0, q1, v1, a1 = (np.asarray(x, dtype=np.float64) for x in (q0, v0, a0, q1, v1,
                                                                        a1))
    T = float(duration)
    h = q1 - q0
    return np.stack(np.broadcast_arrays(
        q0, v0, a0 / 2,
        (20 * h - (8 * v1 + 12 * v0) * T - (3 * a0 - a1) * T ** 2) / (2 * T ** 3),
        (-30 * h + (14 * v1 + 16 * v0) * T + (3 * a0 - 2 * a1) * T ** 2) / (2 * T ** 4),
        (12 * h - 6 * (v1 + v0) * T + (a1 - a0) * T ** 2) / (2 * T ** 5)))


@dataclass(frozen=True)
class QuinticPath:
    """Knots at ``times`` (``M + 1`` increasing seconds from 0) with joint ``positions``,
    ``velocities`` and ``accelerations`` (each ``(M + 1, N)``); one quintic per joint between
    consecutive knots."""
    times: tuple
    positions: np.ndarray
    velocities: np.ndarray
    accelerations: np.ndarray

    def __post_init__(self):
        times = np.asarray(self.times, dtype=np.float64)
        if times.ndim != 1 or len(times) < 2 or times[0] != 0 or np.any(np.diff(times) <= 0):
            raise ValueError(f"times must increase from 0 with at least two knots, not "
                             f"{self.times}")
        shapes = {np.shape(getattr(self, k)) for k in ("positions", "velocities",
                                                       "accelerations")}
        if len(shapes) != 1 or len(next(iter(shapes))) != 2 or \
                next(iter(shapes))[0] != len(times):
            raise ValueError(f"positions, velocities and accelerations must each be "
                             f"({len(times)}, N), not {sorted(shapes)}")

    @property
    def duration(self):
        return float(self.times[-1])

    def coefficients(self):
        """``(M, 6, N)``: each segment's coefficients."""
        p, v, a = (np.asarray(x, dtype=np.float64) for x in (self.positions, self.velocities,
                                                            self.accelerations))
        return np.stack([quintic_coefficients(p[k], v[k], a[k], p[k + 1], v[k + 1], a[k + 1],
                                              self.times[k + 1] - self.times[k])
                         for k in range(len(self.times) - 1)])

    def sample(self, t):
        """``q``, ``qd``, ``qdd`` (each ``(len(t), N)``) at the times ``t`` (seconds within the
        path; a knot's time belongs to the segment it starts, the last to the last)."""
        t = np.atleast_1d(np.asarray(t, dtype=np.float64))
        if np.any(t < 0) or np.any(t > self.duration * (1 + 1e-12)):
            raise ValueError(f"times must lie within [0, {self.duration}] s")
        knots = np.asarray(self.times, dtype=np.float64)
        segment = np.clip(np.searchsorted(knots, t, side="right") - 1, 0, len(knots) - 2)
        s = (t - knots[segment])[:, None]
        c = self.coefficients()[segment]                 # (K, 6, N)
        powers = s[:, None, :] ** np.arange(6)[None, :, None]
        q = np.sum(c * powers, axis=1)
        qd = sum(k * c[:, k] * s ** (k - 1) for k in range(1, 6))
        qdd = sum(k * (k - 1) * c[:, k] * s ** (k - 2) for k in range(2, 6))
        return q, qd, qdd
