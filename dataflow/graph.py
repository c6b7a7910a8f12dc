"""Dataflow graphs traced from arithmetic code, with proven value ranges.

Run an algorithm written over plain scalars (``+``, ``-``, ``*``) with :class:`Tracer` nodes in
place of numbers and every operation becomes a :class:`Node` of a :class:`Tracer`'s graph. The
tracer is also the algorithm's ``arith`` object (see :mod:`robohw.systolic.reference`):

- ``const(value)``: with ``fold=True`` (building hardware) constants stay Python floats, so
  products and sums of constants happen at elaboration, ``0 * x`` disappears, ``1 * x`` and
  ``-1 * x`` are wiring and other constant factors become constant multipliers. With
  ``fold=False`` (counting operations of the general algorithm) constants become nodes, so
  every multiplication by a link constant counts.
- ``cell(*name)``: operations traced inside belong to that processing element.
- ``bound(values, limit)``: a proven bound on the magnitude of each value (a norm bound from
  the physics), intersected with the interval the operations imply. Interval arithmetic alone
  would double the range at every link of a chain.

Node ranges are intervals of the *exact* values; :func:`assign_formats` sizes fixed-point
formats from them with a margin for the rounding errors.
"""

import math
from contextlib import contextmanager
from dataclasses import dataclass

from robohw.dataflow.operations import Count, Op, frac_bits_for, operation
from robohw.dataflow.range_error import RangeError

__all__ = ["Node", "Tracer", "assign_formats", "error_bounds", "Format", "frac_bits_for",
           "RangeError", "past_negation", "propagated_error"]


def past_negation(node):
    """The node a chain of negations of ``node`` reads (``node`` itself if it is none): the
    value a register holds, a negation being wiring."""
    while node.op == Op.NEG:
        node = node.args[0]
    return node


def _number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


class Node:
    """One value of a traced graph: ``op`` over ``args`` (nodes), ``constant`` (for ``addc``,
    ``cmul``, ``const``), ``low``/``high`` (its exact range), ``cell`` (processing element)."""
    __slots__ = ("tracer", "index", "op", "args", "constant", "low", "high", "cell", "name")

    def __init__(self, tracer, op, args, constant, low, high, name=None):
        self.tracer, self.op, self.args, self.constant = tracer, op, args, constant
        self.low, self.high = float(low), float(high)
        self.cell, self.name = tracer.current_cell, name
        self.index = len(tracer.nodes)
        tracer.nodes.append(self)

    @property
    def magnitude(self):
        return max(abs(self.low), abs(self.high))

    def __repr__(self):
        return f"Node({self.index}, {self.op}, cell={self.cell})"

    def __add__(self, other):
        return self.tracer.add(self, other)

    __radd__ = __add__

    def __sub__(self, other):
        if _number(other):
            return self.tracer.add(self, -other)
        return self.tracer.add(self, other, subtract=True)

    def __rsub__(self, other):
        return self.tracer.add(self.tracer.neg(self), other)

    def __mul__(self, other):
        return self.tracer.mul(self, other)

    __rmul__ = __mul__

    def __neg__(self):
        return self.tracer.neg(self)


class Tracer:
    """A graph under construction, and the ``arith`` of the algorithms that build it."""
    def __init__(self, *, fold=True):
        self.fold = fold
        self.nodes = []
        self.current_cell = None
        self.assumed = set()

    # --- the arith interface -------------------------------------------------------------
    def const(self, value):
        if self.fold:
            return float(value)
        return Node(self, Op.CONST, (), float(value), value, value)

    def reciprocal(self, value):
        if isinstance(value, Node):
            if value.low <= 0 <= value.high:
                if self.fold:
                    raise RangeError(f"1 / {value.name or value.op} (node {value.index}): its "
                                     f"range [{value.low:.3g}, {value.high:.3g}] reaches 0; "
                                     f"no reciprocal is proven")
                return Node(self, Op.RECIP, (value,), None, -math.inf, math.inf)  # counted
            return self.apply(Op.RECIP, (value,))
        if self.fold:
            return 1.0 / value
        constant = self.const(value)
        return Node(self, Op.RECIP, (constant,), None, 1 / value, 1 / value)

    def reciprocal_sqrt(self, value):
        if isinstance(value, Node):
            if not value.low > 0:
                raise RangeError(f"1 / sqrt({value.name or value.op}) (node {value.index}): "
                                 f"its range [{value.low:.3g}, {value.high:.3g}] is not above "
                                 f"0; no reciprocal square root is proven")
            return self.apply(Op.RSQRT, (value,))
        if self.fold:
            return value ** -0.5
        return Node(self, Op.RSQRT, (self.const(value),), None, value ** -0.5, value ** -0.5)

    def sqrt(self, value):
        return Node(self, Op.SQRT, (value,), None, max(value.low, 0.0) ** 0.5,
                    max(value.high, 0.0) ** 0.5)

    def apply(self, kind, args, constant=None, name=None):
        """A node of ``kind`` over the nodes ``args`` (and its ``constant``), its range by the
        kind's rule (:meth:`robohw.dataflow.operations.Operation.interval`): how any kind,
        one added to the vocabulary too, enters a graph."""
        low, high = operation(kind).interval(args, constant)
        return Node(self, kind, tuple(args), None if constant is None else float(constant),
                    low, high, name=name)

    @contextmanager
    def cell(self, *name):
        outer, self.current_cell = self.current_cell, name
        try:
            yield
        finally:
            self.current_cell = outer

    def within(self, values, low, high):
        """A proven range ``[low, high]`` of each value (a divisor's positive lower bound,
        say), intersected with the interval the operations imply."""
        for value in values:
            if isinstance(value, Node):
                value.low, value.high = max(value.low, low), min(value.high, high)
                if value.low > value.high:
                    raise AssertionError(f"{value}: empty range in [{low}, {high}]")
        return values

    def assume(self, values, limit):
        """A range ``[-limit, limit]`` of each value that holds only where the computation's
        results meet an assumption (forward dynamics: the accelerations within their
        limits): intersected as :meth:`bound` does, and each such node recorded in
        :attr:`assumed`, whose values a machine checks (a result beyond its range flags the
        row, :attr:`robohw.dataflow.plan.TracedPlan.checks`). :class:`RangeError` where a
        value's range lies wholly beyond ``limit``: no row meets the assumption."""
        for value in values:
            if isinstance(value, Node) and (value.low > limit or value.high < -limit):
                raise RangeError(f"{value!r}: its range "
                                 f"[{value.low:.4g}, {value.high:.4g}] lies beyond the "
                                 f"assumed {limit:.4g} for every row")
        for value in self.bound(values, limit):
            if isinstance(value, Node):
                self.assumed.add(value.index)
        return values

    def bound(self, values, limit):
        # The margin covers float rounding in the bound itself; formats add their own.
        limit = limit * (1 + 1e-9) + 1e-12
        for value in values:
            if isinstance(value, Node):
                value.low, value.high = max(value.low, -limit), min(value.high, limit)
                if value.low > value.high:
                    raise AssertionError(f"{value}: empty range under bound {limit}")
        return values

    # --- building --------------------------------------------------------------------------
    def input(self, name, low, high):
        return Node(self, Op.INPUT, (), None, low, high, name=name)

    def neg(self, node):
        if node.op == Op.NEG:
            return node.args[0]
        return self.apply(Op.NEG, (node,))

    def add(self, a, b, subtract=False):
        if _number(a):
            a, b = b, a
        if _number(b):
            if b == 0:
                return a
            return self.apply(Op.ADDC, (a,), b)
        if b.op == Op.NEG:  # a - (-b) and a + (-b): no negation left
            return self.add(a, b.args[0], subtract=not subtract)
        if subtract:
            return self.apply(Op.SUB, (a, b))
        if a.op == Op.NEG:
            return self.add(b, a.args[0], subtract=True)
        return self.apply(Op.ADD, (a, b))

    def mul(self, a, b):
        if _number(b):
            if b in (0, 1, -1):  # structure (and folded constants): wiring
                return 0 if b == 0 else (a if b == 1 else self.neg(a))
            if a.op == Op.CMUL:  # (x a) b = x (a b): one constant multiplier
                return self.mul(a.args[0], a.constant * b)
            if a.op == Op.NEG:
                return self.mul(a.args[0], -b)
            return self.apply(Op.CMUL, (a,), b)
        return self.apply(Op.MUL, (a, b))

    # --- reading -----------------------------------------------------------------------------
    def live(self, outputs):
        """Indices of the nodes the ``outputs`` (nodes or numbers) depend on, in order."""
        seen = set()
        stack = [o for o in outputs if isinstance(o, Node)]
        while stack:
            node = stack.pop()
            if node.index not in seen:
                seen.add(node.index)
                stack.extend(node.args)
        return sorted(seen)

    def counts(self, indices=None):
        """Operations by :class:`~robohw.dataflow.operations.Count` (``MUL``, ``ADD``, ``DIV``;
        ``RSQRT`` and ``SQRT`` if any) among ``indices`` (default: all)."""
        nodes = self.nodes if indices is None else [self.nodes[k] for k in indices]
        out = {Count.MUL: 0, Count.ADD: 0, Count.DIV: 0}
        for node in nodes:
            kind = operation(node.op).counted_as
            if kind:
                out[kind] = out.get(kind, 0) + 1
        return out


@dataclass(frozen=True)
class Format:
    """A node's fixed-point format: ``width`` bits, ``frac`` fraction bits; for a ``cmul`` (or
    ``ncmul``) also the constant's integer code and its fraction bits; for a product of
    narrowed operands (``nmul``, ``ncmul``) the bits each operand drops
    (:mod:`robohw.hw.narrowing`)."""
    frac: int
    const_code: int = 0
    const_frac: int = 0
    drop: int = 0


# float64's largest finite value is below 2**1024 (IEEE 754 binary64, emax = 1023).
FLOAT64_EXPONENT = 1024


def _check_range(node, magnitude, width, frac=None):
    """Raise :class:`RangeError` if ``node``'s ``magnitude`` (its range and error) or, given
    ``frac``, its format (``frac`` fraction bits of ``signed(width)``) passes float64."""
    if math.isfinite(magnitude) and (frac is None or width - 1 - frac < FLOAT64_EXPONENT):
        return
    what = f"{node.name or node.op} (node {node.index})"
    raise RangeError(f"the traced value {what} has a range of {magnitude:.3g} with its error "
                     f"bound: beyond what float64 holds, no fixed-point format is sized for "
                     f"it")


def assign_formats(tracer, indices, width, input_fracs, input_errors=None, errors=None, *,
                   ranges_only=False):
    """Per-node :class:`Format` (by index) for the live nodes, every value ``signed(width)``.

    Fraction bits come from the node's range widened by the worst-case error its fixed-point
    value can carry (the inputs' errors, ``input_errors`` by name, propagated through every
    operation, plus half an LSB of rounding at each register), so that no register can
    overflow however the errors fall; and they are capped by what the operands carry (a sum
    has no more fraction bits than its finer operand, a product no more than both together), so
    no bit is made up. Constants of ``cmul`` are ``signed(width)`` codes with as many fraction
    bits as their magnitude allows. ``input_fracs`` gives the inputs' fraction bits by name.
    ``errors``, a dict if given, receives each node's worst-case error bound by index.

    With ``ranges_only``, each range is widened by half an LSB of the node's own rounding
    alone: the formats of a plan whose results a certificate checks row by row (a register
    may then overflow on a row, and wraps), and ``errors`` receives that half LSB.
    """
    input_errors = input_errors or {}
    formats = {}
    error = {} if errors is None else errors

    def fits(node, propagated):
        # Half an LSB of this node's own rounding on top: fixed once the LSB is known.
        _check_range(node, node.magnitude + propagated, width)
        frac = frac_bits_for(node.magnitude + propagated, width)
        _check_range(node, node.magnitude + propagated, width, frac)
        return frac_bits_for(node.magnitude + propagated + 2.0 ** -(frac + 1), width)

    for k in indices:
        node = tracer.nodes[k]
        frac = [formats[a.index].frac for a in node.args]
        if node.op == Op.INPUT:
            formats[k] = Format(input_fracs[node.name])
            error[k] = input_errors.get(node.name, 0.0)
            if frac_bits_for(node.magnitude + error[k], width) < formats[k].frac:
                raise ValueError(f"input {node.name}: range {node.magnitude} does not fit "
                                 f"its format")
            continue
        if node.op == Op.NEG:
            formats[k], error[k] = Format(frac[0]), error[node.args[0].index]
            continue
        cap, constant = operation(node.op).cap(frac, node.constant, width)
        try:
            propagated = 0.0 if ranges_only else \
                propagated_error(node, error, formats, constant)
        except ValueError as failure:       # a rule that holds for no error this large
            message = f"{node.name or node.op} (node {k}) at {width} bits: {failure}"
            if isinstance(failure, RangeError):
                raise failure.renamed(message) from None
            raise RangeError(message) from None
        formats[k] = Format(min(fits(node, propagated), cap), *(constant or ()))
        _check_range(node, node.magnitude + propagated, width, formats[k].frac)
        error[k] = propagated + 2.0 ** -(formats[k].frac + 1)
    return formats


def propagated_error(node, error, formats, constant=None):
    """The worst-case error of ``node``'s exact result from its operands' errors (``error`` by
    index) and formats, before its own rounding (its kind's rule,
    :meth:`robohw.dataflow.operations.Operation.propagated`); ``constant``: its format's fields
    beyond the fraction bits, ``(const_code, const_frac, drop)`` (default: its format's)."""
    if constant is None and node.index in formats:
        fmt = formats[node.index]
        constant = (fmt.const_code, fmt.const_frac, fmt.drop)
    return operation(node.op).propagated(node, error, formats, constant)


def error_bounds(tracer, indices, formats, input_errors):
    """``{index: bound}``: the worst-case error of every live node's fixed-point value in the
    given ``formats`` (:func:`assign_formats`'), from the inputs' errors (``input_errors`` by
    name) through the operations and half an LSB of each register's rounding. With the
    errors the formats were sized from, these are :func:`assign_formats`' own; with the
    inputs' errors against their true values (a joint angle rounded to its binary angle, say),
    a proven bound against the exact result."""
    error = {}
    for k in indices:
        node = tracer.nodes[k]
        if node.op == Op.INPUT:
            error[k] = input_errors.get(node.name, 0.0)
        elif node.op == Op.NEG:
            error[k] = error[node.args[0].index]
        else:
            error[k] = propagated_error(node, error, formats) + 2.0 ** -(formats[k].frac + 1)
    return error
