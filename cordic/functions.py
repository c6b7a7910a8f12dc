"""The elementary functions of Lee & Chang's Figure 1, by name: which mode computes each, how
to feed a processor and how to read its outputs.

Each :class:`CordicFunction` maps real arguments to the port values ``(x, y, z)`` of its mode
and the port results back to the function's values, and names a float64 reference. Angles are
radians at this level; circular ``z`` codes are binary angles underneath. Evaluate a function
bit-exactly with :func:`robohw.cordic.model.evaluate_function`.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from robohw.cordic.config import CordicConfig, Direction, System

__all__ = ["CordicFunction", "FUNCTIONS"]


@dataclass(frozen=True)
class CordicFunction:
    """One named function.

    ``to_ports(*args)`` gives real ``(x, y, z)`` port values (``z`` in radians in the circular
    system); ``from_ports(x, y, z)`` the tuple of results from real port values;
    ``reference(*args)`` the same tuple in float64.
    """
    name: str
    system: System
    direction: Direction
    arguments: tuple
    results: tuple
    to_ports: Callable
    from_ports: Callable
    reference: Callable
    summary: str

    def config(self, **kwargs):
        """The :class:`~robohw.cordic.config.CordicConfig` of this function's mode."""
        return CordicConfig(self.system, self.direction, **kwargs)


def _f(name, system, direction, arguments, results, to_ports, from_ports, reference, summary):
    return name, CordicFunction(name, System[system.upper()], Direction(direction), arguments,
                                results,
                                to_ports, from_ports, reference, summary)


FUNCTIONS = dict([
    _f("rotate", "circular", "rotation", ("x", "y", "angle"), ("x", "y"),
       lambda x, y, a: (x, y, a), lambda x, y, z: (x, y),
       lambda x, y, a: (x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)),
       "turn the vector (x, y) by angle"),
    _f("translate", "circular", "vectoring", ("x", "y"), ("magnitude", "angle"),
       lambda x, y: (x, y, 0.0), lambda x, y, z: (x, z),
       lambda x, y: (np.hypot(x, y), np.arctan2(y, x)),
       "polar form of (x, y): length and angle"),
    _f("sin_cos", "circular", "rotation", ("angle",), ("cos", "sin"),
       lambda a: (1.0, 0.0, a), lambda x, y, z: (x, y),
       lambda a: (np.cos(a), np.sin(a)), "cosine and sine of an angle"),
    _f("atan2", "circular", "vectoring", ("y", "x"), ("angle",),
       lambda y, x: (x, y, 0.0), lambda x, y, z: (z,),
       lambda y, x: (np.arctan2(y, x),), "four-quadrant arc tangent"),
    _f("hypot", "circular", "vectoring", ("x", "y"), ("magnitude",),
       lambda x, y: (x, y, 0.0), lambda x, y, z: (x,),
       lambda x, y: (np.hypot(x, y),), "sqrt(x^2 + y^2)"),
    _f("hypot_diff", "hyperbolic", "vectoring", ("x", "y"), ("magnitude",),
       lambda x, y: (x, y, 0.0), lambda x, y, z: (x,),
       lambda x, y: (np.sqrt(x * x - y * y),), "sqrt(x^2 - y^2), |y| < 0.8 |x|"),
    _f("sqrt", "hyperbolic", "vectoring", ("a",), ("root",),
       lambda a: (a + 0.25, a - 0.25, 0.0), lambda x, y, z: (x,),
       lambda a: (np.sqrt(a),), "sqrt(a) = sqrt((a + 1/4)^2 - (a - 1/4)^2), 0.03 <= a <= 2"),
    _f("multiply_add", "linear", "rotation", ("a", "b", "c"), ("result",),
       lambda a, b, c: (a, c, b), lambda x, y, z: (y,),
       lambda a, b, c: (a * b + c,), "a * b + c, |b| < 2"),
    _f("divide", "linear", "vectoring", ("numerator", "denominator"), ("quotient",),
       lambda n, d: (d, n, 0.0), lambda x, y, z: (z,),
       lambda n, d: (n / d,), "numerator / denominator, |quotient| < 2"),
    _f("sinh_cosh", "hyperbolic", "rotation", ("t",), ("cosh", "sinh"),
       lambda t: (1.0, 0.0, t), lambda x, y, z: (x, y),
       lambda t: (np.cosh(t), np.sinh(t)), "hyperbolic cosine and sine, |t| < 1.118"),
    _f("atanh", "hyperbolic", "vectoring", ("v",), ("t",),
       lambda v: (1.0, v, 0.0), lambda x, y, z: (z,),
       lambda v: (np.arctanh(v),), "inverse hyperbolic tangent, |v| < 0.8"),
])
