"""Proven bounds on the derivatives of the Newton-Euler quantities of a serial robot, beside the
norms of :class:`~robohw.dynamics.inverse.bounds.DynamicsBounds`: what the gradient's traced
plan (:mod:`robohw.dynamics.gradient.plan`) sizes its derivatives' formats from.

Each bound is a :class:`Slopes`: a bound on a vector's norm and, for each direction (``("q",
j)`` or ``("qd", j)``, joint ``j`` 0-based), a bound on the norm of its derivative along it. The
recursion of :class:`~robohw.dynamics.inverse.bounds.DynamicsBounds` is run over them, its
sums and products differentiated by the product rule on norms (``|d(a x b)| <= |da| |b| + |a|
|db|``, the same for scalar and constant-matrix products), with three seeds:

- a joint's velocity limit has slope 1 along its own ``qd`` (``d qd_j / d qd_j = 1``);
- a prismatic joint's ``|p*|`` has slope 1 along its own ``q`` (``p* = (a, d sin alpha, d cos
  alpha)``, ``|dp*/dd| = 1``);
- a vector ``u`` turned by revolute joint ``j``'s rotation gains ``|u|`` along ``q_j``:
  ``d(R^T u)/dq_j = (dR^T/dq_j) u + R^T du``, and ``dRz(theta)^T/dtheta`` turns then drops
  ``u``'s z component, so its norm is at most ``|u|``.

The bounds hold for every state within the joints' limits, as the norms do.
"""

__all__ = ["Slopes", "GradientBounds"]

from robohw.dynamics.inverse.bounds import DynamicsBounds


class Slopes:
    """A non-negative norm bound ``value`` and its derivatives' bounds ``slopes`` (``{direction:
    bound}``, absent: 0), with the sums and products of norm bounds."""
    __slots__ = ("value", "slopes")

    def __init__(self, value, slopes=None):
        self.value, self.slopes = float(value), dict(slopes or {})

    @staticmethod
    def _of(other):
        return other if isinstance(other, Slopes) else Slopes(other)

    def slope(self, direction):
        """The bound on the derivative along ``direction`` (0 where none is recorded)."""
        return self.slopes.get(direction, 0.0)

    def __add__(self, other):
        other = self._of(other)
        slopes = dict(self.slopes)
        for key, value in other.slopes.items():
            slopes[key] = slopes.get(key, 0.0) + value
        return Slopes(self.value + other.value, slopes)

    __radd__ = __add__

    def __mul__(self, other):
        other = self._of(other)
        slopes = {key: self.slope(key) * other.value + self.value * other.slope(key)
                  for key in dict.fromkeys([*self.slopes, *other.slopes])}
        return Slopes(self.value * other.value, slopes)

    __rmul__ = __mul__

    def __pow__(self, exponent):
        if exponent != 2:
            raise ValueError(f"only squares of bounds are taken, not power {exponent}")
        return self * self

    def __truediv__(self, divisor):
        return self * (1.0 / divisor)

    def __float__(self):
        return self.value

    def __repr__(self):
        return f"Slopes({self.value!r}, {self.slopes!r})"


class GradientBounds(DynamicsBounds):
    """:class:`~robohw.dynamics.inverse.bounds.DynamicsBounds` for ``robot`` over
    :class:`Slopes`: every field a norm bound with its derivatives' bounds along the joints'
    ``q`` and ``qd`` (the seeds of the module docstring)."""

    def _rate(self, i, limit):
        return Slopes(limit, {("qd", i): 1.0})

    def _position(self, i, limit):
        return Slopes(limit, {("q", i): 1.0})

    def _turned(self, i, bound):
        if not self.revolute[i]:
            return bound
        return Slopes._of(bound) + Slopes(0.0, {("q", i): float(bound)})
