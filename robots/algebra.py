"""Scalar algebra shared by the references that are written once over *scalars* of any type
supporting ``+``, ``-`` and ``*`` (:mod:`robohw.systolic.reference`,
:mod:`robohw.dynamics.inverse.reference`): numpy arrays (one entry per state: the float64
references) or the counting and tracing nodes of :class:`robohw.dataflow.graph.Tracer`.

An ``arith`` object supplies what differs between scalar worlds: ``const(value)`` (a link
constant), ``reciprocal(value)``, ``reciprocal_sqrt(value)`` (forward dynamics' divisors),
``sqrt(value)`` (the platforms' leg lengths),
``cell(*name)`` (a context: which processing element, phase or
step the operations traced inside belong to), ``bound(values, limit)`` (a proven range
``[-limit, limit]``), ``within(values, low, high)`` (a proven range ``[low, high]``) and
``assume(values, limit)`` (a range ``[-limit, limit]`` that holds only under an assumption the
machine checks for each result).
:class:`FloatArith` is the float64 one.

Vectors are tuples of 3 scalars, matrices tuples of 3 rows. Literal ``0`` entries are structure
(the zeros of a rotation about z, of the axis z0, of a robot constant that happens to be zero):
they never cost an operation, in any scalar world.
"""

from contextlib import nullcontext

__all__ = ["FloatArith", "snap", "is_zero", "product", "negate", "difference", "total", "vadd",
           "vsub", "vscale", "cross", "dot", "matvec", "matTvec", "matmul"]


class FloatArith:
    """The float64 scalar world: constants are floats, marks do nothing."""
    def const(self, value):
        return float(value)

    def reciprocal(self, value):
        return 1.0 / value

    def reciprocal_sqrt(self, value):
        return value ** -0.5

    def sqrt(self, value):
        return value ** 0.5

    def cell(self, *name):
        return nullcontext()

    def bound(self, values, limit):
        return values

    def within(self, values, low, high):
        return values

    def assume(self, values, limit):
        return values


def is_zero(x):
    return isinstance(x, (int, float)) and x == 0


def product(a, b):
    return 0 if is_zero(a) or is_zero(b) else a * b


def negate(x):
    return 0 if is_zero(x) else -x


def difference(x, y):
    if is_zero(y):
        return x
    return negate(y) if is_zero(x) else x - y


def total(terms):
    terms = [t for t in terms if not is_zero(t)]
    if not terms:
        return 0
    while len(terms) > 1:  # a balanced tree: depth ceil(log2(terms))
        terms = [terms[k] + terms[k + 1] if k + 1 < len(terms) else terms[k]
                 for k in range(0, len(terms), 2)]
    return terms[0]


def vadd(a, b):
    return tuple(total([x, y]) for x, y in zip(a, b))


def vsub(a, b):
    return tuple(difference(x, y) for x, y in zip(a, b))


def vscale(k, a):
    return tuple(product(k, x) for x in a)


def cross(a, b):
    return (difference(product(a[1], b[2]), product(a[2], b[1])),
            difference(product(a[2], b[0]), product(a[0], b[2])),
            difference(product(a[0], b[1]), product(a[1], b[0])))


def matvec(u, v):
    return tuple(total([product(u[r][c], v[c]) for c in range(3)]) for r in range(3))


def matmul(a, b):
    return tuple(tuple(total([product(a[r][k], b[k][c]) for k in range(3)]) for c in range(3))
                 for r in range(3))


def matTvec(u, v):
    """``u^T v``."""
    return tuple(total([product(u[c][r], v[c]) for c in range(3)]) for r in range(3))


def dot(a, b):
    return total([product(x, y) for x, y in zip(a, b)])


def snap(value):
    """cos and sin of twists of 0 and +-90 degrees: exact 0 and +-1, so they fold to wiring."""
    return float(round(value)) if abs(value - round(value)) < 1e-12 else value
