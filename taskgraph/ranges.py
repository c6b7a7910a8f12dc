"""Proven ranges of a task graph's values: a bound on every real operand and port of its CCMs
from bounds on its real inputs, by each CCM's own arithmetic, and whether the graph's format
holds them all.

A bound is sound for every input within the input bounds: it holds for the bit-exact CCMs
(:func:`robohw.taskgraph.model.evaluate_model`), their scale error and rounding included. For a CCM
whose operands are within their bounds (``|x| <= X``, ...):

- circular, either direction: ``|x'|, |y'| <= (1 + e) hypot(X, Y) + r`` (a rotation keeps the
  vector's length; ``e`` the configuration's :attr:`~robohw.cordic.config.CordicConfig.
  scale_error`, ``r`` one LSB of rounding per step and stage); rotation's ``z'`` is the
  residual angle, vectoring's an angle (neither is a real);
- linear rotation: ``x' = x``, ``|y'| <= Y + X min(Z + z_n, L) + r`` (``L`` the convergence
  limit, the sum of the micro-steps, which bounds what the steps add whatever ``z``; ``z_n``
  the residual the domain check allows), ``|z'| <= z_n``;
- linear vectoring: ``x' = x``, ``|y'| <= 4 X 2^-s + y_n`` (the residual the domain check
  allows: ``s`` the last step's shift), ``|z'| <= Z + min(L, (Y + y_n) / m) + r`` where ``x``
  is a value known to be at least ``m`` in magnitude (a guard of the graph, which flags a
  smaller one, or a stated lower bound), else ``Z + L + r``.

An operand is ``sign * source + constant + addend``: its bound the sum of the parts'. A real
operand that reads an angle reads a binary angle's code: the whole format. An input is rounded
to its port: its bound and one port LSB. A state the domain checks flag is invalid anyway, so
its residuals need no bound beyond the checks'. :attr:`GraphRanges.proven` holds when every bound is
below the format's largest real: no state within the input bounds then overflows an operand or a
port.
"""

import math
from dataclasses import dataclass

from robohw.cordic.config import CordicConfig, Direction, System

__all__ = ["GraphRanges", "graph_ranges"]


@dataclass(frozen=True)
class GraphRanges:
    """``ports``: ``{(ccm, port): bound}`` of every real port the graph reads; ``operands``:
    ``{(ccm, slot): bound}`` of every real operand; ``limit``: the format's largest real."""
    ports: dict
    operands: dict
    limit: float

    @property
    def largest(self):
        """``(key, bound)`` of the largest bound, operands and ports together."""
        return max((*self.ports.items(), *self.operands.items()), key=lambda item: item[1])

    @property
    def proven(self):
        """Whether every bound is below :attr:`limit`."""
        return self.largest[1] < self.limit


def graph_ranges(graph, input_bounds, *, width, frac_bits, guard_bits=0, lower_bounds=None):
    """The :class:`GraphRanges` of ``graph`` at ``width``-bit ports with ``frac_bits`` fraction
    bits and ``guard_bits`` inside (as :func:`robohw.taskgraph.model.evaluate_model` takes them),
    for real inputs within ``input_bounds`` (``{input: bound}``, every real input; angles need
    none). ``lower_bounds`` (``{(ccm, port): m}``): values assumed at least ``m`` in
    magnitude, beside the graph's guards; a division by one is bounded by it."""
    missing = [n for n in graph.inputs if n not in graph.angle_inputs and n not in input_bounds]
    if missing:
        raise ValueError(f"{graph.name}: no bound for the real inputs {', '.join(missing)}")
    inside, inside_frac = width + guard_bits, frac_bits + guard_bits
    lsb = 2.0 ** -inside_frac
    limit = 2.0 ** (inside - 1) * lsb
    port_lsb = 2.0 ** -frac_bits
    bounds = {(n, None): float(b) + port_lsb for n, b in input_bounds.items()}
    ports, operands = {}, {}
    least = {(g.source, g.port): g.minimum for g in graph.guards}
    for key, minimum in (lower_bounds or {}).items():
        least[key] = max(least.get(key, 0.0), minimum)

    def divisor(op):                     # the least |x| of a plain read, or None
        if op.source is None or op.constant or op.addend is not None:
            return None
        return least.get((op.source, op.port))

    def read(source, port):
        if graph.is_angle(source, port):
            return limit                 # a binary angle's code, read as a real
        return bounds[(source, None if source in graph.inputs else port)]

    def operand(op):
        value = abs(op.constant)
        if op.source is not None:
            value += read(op.source, op.port)
        if op.addend is not None:
            value += read(op.addend.source, op.addend.port)
        return value

    for ccm in graph.ccms:
        config = CordicConfig(ccm.system, ccm.direction, width=inside, frac_bits=inside_frac,
                              expansion=ccm.expansion)
        rounding = (len(config.shifts) + len(config.gammas) + 2) * lsb
        unit = 2.0 ** -config.internal_frac_bits        # the CCM's own internal LSB
        reals = {}
        for slot, op in ccm.operands():
            if not (ccm.system is System.CIRCULAR and slot == "z"):
                reals[slot] = operands[(ccm.name, slot)] = min(operand(op), limit)
        x, y = reals["x"], reals["y"]
        if ccm.system is System.CIRCULAR:
            out = {"x": (1 + abs(config.scale_error)) * math.hypot(x, y) + rounding}
            out["y"] = out["x"]
        else:
            reach = config.convergence_limit
            if ccm.direction is Direction.ROTATION:
                residual = config.residual_z_limit * unit
                out = {"x": x, "y": y + x * min(reals["z"] + residual, reach) + rounding,
                       "z": residual}
            else:
                residual = config.residual_y_slack * unit
                smallest = divisor(ccm.x)
                if smallest:
                    reach = min(reach, (y + residual) / smallest)
                out = {"x": x, "y": 4 * x * 2.0 ** -config.shifts[-1] + residual,
                       "z": reals["z"] + reach + rounding}
        for port, bound in out.items():
            bounds[(ccm.name, port)] = bound
            if port in graph.used_ports(ccm.name):
                ports[(ccm.name, port)] = bound
    return GraphRanges(ports, operands, limit)
