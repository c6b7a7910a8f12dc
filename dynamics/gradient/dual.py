"""Forward-mode differentiation over a scalar world: :class:`Dual` numbers carry a value and its
derivatives along any number of directions, and :class:`DualArith` is the ``arith`` of
:mod:`robohw.robots.algebra` over them, so an algorithm written once over scalars (the
link-frame Newton-Euler recursion, :func:`~robohw.dynamics.inverse.link_frames.link_frame_steps`)
traces its own derivatives.

A value or derivative is whatever the underlying world's scalars are (tracer nodes, numbers);
a literal ``0`` is structure and costs nothing, so a derivative that is zero by the
algorithm's structure (link ``k``'s values along a joint beyond ``k``) never becomes an
operation. Products follow the product rule, ``d(ab) = da b + a db``; a product by a
constant scales every derivative by it.
"""

from robohw.robots.algebra import difference, is_zero, negate, product, total

__all__ = ["Dual", "DualArith", "dual"]


def dual(value, slopes=None):
    """``value`` with derivatives ``slopes`` (``{direction: derivative}``, zeros dropped): a
    :class:`Dual`, or the plain number ``value`` where it has no derivative."""
    slopes = {key: d for key, d in (slopes or {}).items() if not is_zero(d)}
    if not slopes and isinstance(value, (int, float)):
        return value
    return Dual(value, slopes)


def _parts(x):
    return (x.value, x.slopes) if isinstance(x, Dual) else (x, {})


def _directions(a, b):
    """The directions of two slope dicts, in order of appearance: a set's order would follow
    the strings' hashes, which change from run to run, and with it the order the graph's
    nodes are made in (so the hardware generated)."""
    return list(dict.fromkeys([*a, *b]))


class Dual:
    """A value and its derivatives (``slopes``: ``{direction: derivative}``, absent: 0)."""
    __slots__ = ("value", "slopes")

    def __init__(self, value, slopes):
        self.value, self.slopes = value, dict(slopes)

    def __add__(self, other):
        value, slopes = _parts(other)
        keys = _directions(self.slopes, slopes)
        return dual(total([self.value, value]),
                    {key: total([self.slopes.get(key, 0), slopes.get(key, 0)]) for key in keys})

    __radd__ = __add__

    def __sub__(self, other):
        value, slopes = _parts(other)
        keys = _directions(self.slopes, slopes)
        return dual(difference(self.value, value),
                    {key: difference(self.slopes.get(key, 0), slopes.get(key, 0))
                     for key in keys})

    def __rsub__(self, other):
        return (-self) + other

    def __neg__(self):
        return dual(negate(self.value), {key: negate(d) for key, d in self.slopes.items()})

    def __mul__(self, other):
        value, slopes = _parts(other)
        keys = _directions(self.slopes, slopes)
        return dual(product(self.value, value),
                    {key: total([product(self.slopes.get(key, 0), value),
                                 product(self.value, slopes.get(key, 0))]) for key in keys})

    __rmul__ = __mul__

    def __repr__(self):
        return f"Dual({self.value!r}, {self.slopes!r})"


class DualArith:
    """The ``arith`` of :mod:`robohw.robots.algebra` over :class:`Dual` numbers on top of
    ``arith`` (a :class:`~robohw.dataflow.graph.Tracer`, or any arith with ``bound``): constants
    and cells are ``arith``'s; ``bound(values, limit)`` bounds each value by ``float(limit)``
    and its derivative along a direction by ``limit.slope(direction)`` (a
    :class:`~robohw.dynamics.gradient.bounds.Slopes`)."""

    def __init__(self, arith):
        self._arith = arith

    def const(self, value):
        return self._arith.const(value)

    def cell(self, *name):
        return self._arith.cell(*name)

    def bound(self, values, limit):
        for x in values:
            value, slopes = _parts(x)
            self._arith.bound([value], float(limit))
            for key, d in slopes.items():
                slope = limit.slope(key) if hasattr(limit, "slope") else 0.0
                if not slope and not is_zero(d):
                    raise AssertionError(f"{x!r}: a derivative along {key} under a bound "
                                         f"without one ({limit!r})")
                self._arith.bound([d], slope)
        return values
