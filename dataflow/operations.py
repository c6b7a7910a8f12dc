"""The operations of traced dataflow graphs, one vocabulary: each kind of node (:class:`Op`) and,
in one place per kind (its :class:`Operation`), what every layer needs of it: its range from
its operands', its float64 value, the cap on its fraction bits and the error it carries from
its operands', its bit-exact integer value (numpy) and its Amaranth twin, its micro-operation
on a programmable unit (:mod:`robohw.dataflow.unit`) and the unit that executes it.

Adding a kind is one :class:`Operation` (:func:`register`) and, if no unit computes it yet, the
unit: the tracer (:meth:`robohw.dataflow.graph.Tracer.apply`), the formats and error bounds
(:mod:`robohw.dataflow.graph`), the evaluations (:mod:`robohw.dataflow.evaluate`), the
pipelines (:mod:`robohw.dataflow.pipeline`) and the engine (:mod:`robohw.engine`) read it
from here.

A registered operation's micro-operation word (:meth:`Operation.word`) has the fields of
:func:`robohw.dataflow.micro_op.micro_operation`: ``a``, ``b`` (operand nodes past any
negation; ``b`` ``None`` for a constant), ``neg_a``, ``neg_b``, ``subtract``, ``constant``,
``shift_a``, ``shift_b`` and ``shift``. An adder computes ``round(((+-a) << shift_a) +-
(constant or ((+-b) << shift_b)), shift)``, a multiplier ``round((+-a) (constant or +-b),
shift)``, rounding half to even by ``shift`` bits.
"""

import enum
import math

import numpy as np
from amaranth.hdl import Const, signed

from robohw.dataflow.range_error import RangeError
from robohw.hw.fixed import Rounding, hdl_round_shift, round_shift
from robohw.hw.reciprocal import reciprocal_code
from robohw.hw.reciprocal_sqrt import reciprocal_sqrt_code

__all__ = ["Op", "Unit", "Count", "Operation", "OPERATIONS", "operation", "register", "UNIT_KINDS",
           "RECIPROCAL_KINDS", "MULTIPLIER_KINDS", "ROUNDING", "kinds_on", "unit_of",
           "frac_bits_for", "hdl_rounded", "hdl_constant"]

ROUNDING = Rounding.HALF_EVEN
# Integer bits numpy's int64 holds with a sign and a carry to spare.
INT64_BITS = 62


class Unit(enum.StrEnum):
    """The kinds of unit that execute a traced graph's operations (:attr:`Operation.unit`). A
    ``str`` (``Unit.MUL == "mul"``): names built from one, the Verilog's signals included,
    keep its spelling."""
    MUL = "mul"         # a programmable multiplier (robohw.dataflow.unit.fixed_point_unit)
    ADD = "add"         # a programmable adder (the same)
    RECIP = "recip"     # a reciprocal unit (robohw.hw.reciprocal)
    RSQRT = "rsqrt"     # a reciprocal square root unit (robohw.hw.reciprocal_sqrt)
    # A multiplier whose products take their operands narrowed to a DSP tile's 18 bits
    # (robohw.hw.narrowing): the engine's, beside its multipliers of the full width.
    NMUL = "nmul"
    # The engine's input units (robohw.engine), which execute no operation: loaders of the
    # held fields and CORDICs of the angles.
    LOAD = "load"
    CORDIC = "cordic"


class Count(enum.StrEnum):
    """The keys of operation counts (:attr:`Operation.counted_as`,
    :meth:`robohw.dataflow.graph.Tracer.counts`), as the papers count: products, sums and
    differences, divisions (a reciprocal counts as one), reciprocal square roots and square
    roots. A ``str`` (``Count.DIV == "div"``), so a count's JSON keeps its keys."""
    MUL = "mul"
    ADD = "add"
    DIV = "div"
    RSQRT = "rsqrt"
    SQRT = "sqrt"


# The kinds of programmable unit (robohw.dataflow.unit.fixed_point_unit).
UNIT_KINDS = (Unit.MUL, Unit.ADD)
# The kinds of multiplier: of the full width, and of operands narrowed to a tile's.
MULTIPLIER_KINDS = (Unit.MUL, Unit.NMUL)
# The kinds of reciprocal unit (robohw.hw.reciprocal, robohw.hw.reciprocal_sqrt).
RECIPROCAL_KINDS = (Unit.RECIP, Unit.RSQRT)


class Op(enum.StrEnum):
    """The kinds of node of a traced graph (a ``str``: ``Op.ADD == "add"``)."""
    INPUT = "input"
    CONST = "const"
    RECIP = "recip"
    RSQRT = "rsqrt"
    SQRT = "sqrt"
    ADD = "add"
    SUB = "sub"
    ADDC = "addc"
    MUL = "mul"
    CMUL = "cmul"
    NMUL = "nmul"       # a product of narrowed operands (robohw.dataflow.narrowing)
    NCMUL = "ncmul"     # a constant's product, the constant and the operand narrowed
    NEG = "neg"

    def __str__(self):
        return self.value

    def __hash__(self):             # as its name's: a key found by either
        return hash(self.value)

    def __format__(self, spec):
        return format(self.value, spec)


def frac_bits_for(magnitude, width):
    """Fraction bits that hold ``magnitude`` (plus a rounding margin) in ``signed(width)``."""
    magnitude = magnitude * (1 + 2.0 ** -10) + 2.0 ** -30
    return width - 1 - max(math.frexp(magnitude)[1], -64)


def _align(codes, frac, to, width):
    """``codes * 2**(to - frac)``, exact: in Python integers where ``int64`` could not hold the
    shifted ``signed(width)`` values (formats of very different scales, e.g. a 3e6 kg link
    beside a 1 kg one)."""
    shift = to - frac
    if width + shift > INT64_BITS:
        codes = np.asarray(codes).astype(object)
    return codes << shift


def hdl_rounded(value, shift):
    """``value`` rounded half to even by ``shift`` bits, in Amaranth."""
    # Sign-extend first when the shift reaches past the value's own bits.
    if len(value) <= shift + 1:
        value = value + Const(0, signed(shift + 2))
    return hdl_round_shift(value, shift, ROUNDING)


def hdl_constant(value):
    """The integer ``value`` as an Amaranth constant, signed, a bit above its magnitude's."""
    return Const(value, signed(max(value.bit_length(), 1) + 1))


class Operation:
    """One kind of node. A subclass states its :attr:`kind`, :attr:`arity` (operands that are
    nodes), :attr:`registered` (whether its value is a register: 0 for wiring and inputs),
    :attr:`counted_as` (its key in operation counts, a :class:`Count`; ``None``: not counted),
    :attr:`unit` (the :class:`Unit` that executes it, ``None``: none) and the methods its uses need;
    one it has no use for raises ``ValueError`` naming it."""
    kind = None
    arity = 0
    registered = False
    counted_as = None
    unit = None

    def _none(self, what):
        raise ValueError(f"op {str(self.kind)!r}: no {what}")

    def interval(self, args, constant):
        """``(low, high)`` of its exact value from its operands' ranges (nodes) and its
        ``constant``."""
        self._none("range rule")

    def evaluate(self, args, constant):
        """Its float64 value from its operands' values."""
        self._none("float64 value")

    def cap(self, fracs, constant, width):
        """``(cap, constant_format)``: the most fraction bits its value may have (what its
        operands carry, ``fracs``) and its :class:`~robohw.dataflow.graph.Format`'s fields
        beyond them, ``(const_code, const_frac, drop)``: a constant rounded into a code of its
        own, the bits its operands drop (else ``None``)."""
        self._none("hardware")

    def propagated(self, node, errors, formats, constant_format):
        """The worst-case error of ``node``'s exact result (the node: its operands
        ``node.args``, its ``constant`` and its own proven range) before its own rounding,
        from the error bounds ``errors`` and :class:`~robohw.dataflow.graph.Format` s
        ``formats`` of the nodes before it (by index) and its own format's fields beyond the
        fraction bits (``constant_format``, :meth:`cap`'s, or ``None``)."""
        self._none("hardware")

    def fixed(self, node, fmt, args, arg_formats, width):
        """Its integer result before it is stored (numpy, exact for operands in
        ``signed(width)``)."""
        self._none("bit-exact value")

    def hdl(self, node, fmt, args, arg_formats):
        """The Amaranth twin of :meth:`fixed`."""
        self._none("hardware")

    def word(self, node, fmt, fracs, args, negs):
        """Its micro-operation's fields beyond the defaults (see the module docstring):
        ``fracs`` its operands' fraction bits, ``args`` its operands past negation, ``negs``
        which were negated."""
        self._none("micro-operation")


class _Input(Operation):
    kind = Op.INPUT


class _Const(Operation):          # fold=False only
    kind = Op.CONST

    def evaluate(self, args, constant):
        return constant


def _divisor(divisor, errors):
    """``(error, nearest)`` of a divisor node: its error bound and its smallest magnitude
    (:class:`~robohw.dataflow.range_error.RangeError` where the error reaches it: no quotient
    is bounded; it names the divisor by its ``name``, else ``x``)."""
    error, nearest = errors[divisor.index], min(abs(divisor.low), abs(divisor.high))
    if error >= nearest:
        name = divisor.name or "x"
        raise RangeError(f"1 / {name}: {name}'s error bound {error:.3g} reaches its smallest "
                         f"magnitude {nearest:.3g}", value=divisor.name, least=nearest,
                         bound=error)
    return error, nearest


def _quotient_error(node, a, reciprocal, errors, formats):
    """The error of ``a * r`` with ``r = rho(b)`` a reciprocal node (``1 / b`` or ``1 /
    sqrt(b)``), bounded through the product's own proven range ``M`` (``node``'s: the exact ``a
    rho(b)``), not ``a``'s: ``a~ r~ - a rho(b) = (a~ - a) r~ + a (r~ - rho(b~)) + a rho(b)
    (rho(b~) / rho(b) - 1)``, so at most ``E_a (M_r + E_r) + M_a 2**-(f_r + 1) + M R`` with ``R``
    the reciprocal's relative error (:meth:`_Reciprocal.relative`); the smaller of that and the
    product's own rule."""
    divisor = reciprocal.args[0]
    error_b, nearest = _divisor(divisor, errors)
    e_a, e_r = errors[a.index], errors[reciprocal.index]
    general = a.magnitude * e_r + reciprocal.magnitude * e_a + e_a * e_r
    through = (e_a * (reciprocal.magnitude + e_r) +
               a.magnitude * 2.0 ** -(formats[reciprocal.index].frac + 1) +
               node.magnitude * operation(reciprocal.op).relative(error_b, nearest))
    return min(general, through)


# The float64 roundings of a reciprocal's bound's own arithmetic, a few units in the last place.
_ROUNDED_BOUND = 1 + 2.0 ** -40


class _Reciprocal(Operation):
    """A reciprocal ``rho(a)`` (``1 / a``, ``1 / sqrt(a)``) of an operand whose proven range is
    on one side of 0: its error rule from its relative error, its code its unit's
    (:mod:`robohw.hw.reciprocal`, :mod:`robohw.hw.reciprocal_sqrt`): the exact value rounded
    half to even, saturated at the largest code (which a code of 0, or one on the wrong side
    of 0, outside every proven range, also gives)."""
    arity, registered = 1, True

    def relative(self, error, nearest):
        """The most ``|rho(b~) / rho(b) - 1|`` for ``|b~ - b| <= error`` and ``|b| >=
        nearest``."""
        raise NotImplementedError

    def cap(self, fracs, constant, width):
        # The exact value has as many fraction bits as its range leaves.
        return fracs[0] + 2 * width, None

    def propagated(self, node, errors, formats, constant_format):
        # |rho(a + e) - rho(a)| <= |rho(a)| R, largest where |a| is least.
        error, nearest = _divisor(node.args[0], errors)
        return node.magnitude * self.relative(error, nearest) * _ROUNDED_BOUND

    def exponent(self, frac, operand_frac):
        """The numerator's exponent (``2**exponent / a``, ``sqrt(2**exponent / a)``) of a
        result of ``frac`` fraction bits from an operand of ``operand_frac``."""
        raise NotImplementedError

    def fixed(self, node, fmt, args, arg_formats, width):
        return self.code(args[0], self._shift(node, self.exponent(fmt.frac,
                                                                   arg_formats[0].frac)), width)

    def word(self, node, fmt, fracs, args, negs):
        # Its unit computes the code of (+-a) at the numerator's exponent, as ``shift``.
        return {"shift": self._shift(node, self.exponent(fmt.frac, fracs[0]))}

    def _shift(self, node, shift):
        """``node``'s numerator exponent, which its unit takes non-negative."""
        if shift < 0:
            raise ValueError(f"{node} ({self.kind}): its formats give the numerator "
                             f"2**{shift}; the reciprocal units take 2**0 and above")
        return shift


class _Recip(_Reciprocal):
    """``1 / a``, ``a``'s proven range on one side of 0 (counted, unbounded, where it is not:
    the operation counts of general algorithms); its code ``round(2**(f + f_a) / a)``, half
    to even, with ``f`` its fraction bits and ``f_a`` the operand's."""
    kind, counted_as, unit = Op.RECIP, Count.DIV, Unit.RECIP

    def interval(self, args, constant):
        (a,) = args
        if a.low <= 0 <= a.high:
            raise ValueError(f"1 / x needs x's range on one side of 0, not [{a.low:.3g}, "
                             f"{a.high:.3g}]")
        return 1 / a.high, 1 / a.low

    def evaluate(self, args, constant):
        return 1.0 / args[0]

    def relative(self, error, nearest):
        # |b / b~ - 1| = |b - b~| / |b~| <= E / (m - E).
        return error / (nearest - error)

    def exponent(self, frac, operand_frac):
        return frac + operand_frac

    @staticmethod
    def code(a, exponent, width):
        return reciprocal_code(a, exponent, width)


class _RecipSqrt(_Reciprocal):
    """``1 / sqrt(a)``, ``a``'s proven range above 0; its code ``round(sqrt(2**(2 f + f_a) /
    a))``, half to even, with ``f`` its fraction bits and ``f_a`` the operand's."""
    kind, counted_as, unit = Op.RSQRT, Count.RSQRT, Unit.RSQRT

    def interval(self, args, constant):
        (a,) = args
        if not a.low > 0:
            raise ValueError(f"1 / sqrt(x) needs x's range above 0, not [{a.low:.3g}, "
                             f"{a.high:.3g}]")
        return a.high ** -0.5, a.low ** -0.5

    def evaluate(self, args, constant):
        return args[0] ** -0.5

    def relative(self, error, nearest):
        # sqrt(b / b~) - 1 <= 1 / sqrt(1 - t) - 1 = t / (sqrt(1 - t) (1 + sqrt(1 - t))), t = E /
        # m (the form without cancellation); 1 - sqrt(b / (b + E)) is less.
        t = error / nearest
        return t / (math.sqrt(1 - t) * (1 + math.sqrt(1 - t)))

    def exponent(self, frac, operand_frac):
        return 2 * frac + operand_frac

    @staticmethod
    def code(a, exponent, width):
        return reciprocal_sqrt_code(a, exponent, width)


class _Sqrt(Operation):           # counted only (a platform's leg lengths)
    kind, arity, registered, counted_as = Op.SQRT, 1, True, Count.SQRT


class _Neg(Operation):            # wiring into the consumer
    kind, arity = Op.NEG, 1

    def interval(self, args, constant):
        return -args[0].high, -args[0].low

    def evaluate(self, args, constant):
        return -args[0]


class _Sum(Operation):
    """``a + b`` or ``a - b``."""
    arity, registered, counted_as, unit = 2, True, Count.ADD, Unit.ADD
    subtract = False

    def interval(self, args, constant):
        a, b = args
        if self.subtract:
            return a.low - b.high, a.high - b.low
        return a.low + b.low, a.high + b.high

    def evaluate(self, args, constant):
        return args[0] - args[1] if self.subtract else args[0] + args[1]

    def cap(self, fracs, constant, width):
        return max(fracs), None

    def propagated(self, node, errors, formats, constant_format):
        a, b = node.args
        return errors[a.index] + errors[b.index]

    def fixed(self, node, fmt, args, arg_formats, width):
        top = max(f.frac for f in arg_formats)
        a, b = (_align(v, f.frac, top, width) for v, f in zip(args, arg_formats))
        return round_shift(a - b if self.subtract else a + b, top - fmt.frac, ROUNDING)

    def hdl(self, node, fmt, args, arg_formats):
        top = max(f.frac for f in arg_formats)
        a, b = (v << (top - f.frac) for v, f in zip(args, arg_formats))
        return hdl_rounded(a - b if self.subtract else a + b, top - fmt.frac)

    def word(self, node, fmt, fracs, args, negs):
        top = max(fracs)
        return {"b": args[1].index, "neg_b": negs[1], "subtract": self.subtract,
                "shift_a": top - fracs[0], "shift_b": top - fracs[1], "shift": top - fmt.frac}


class _Add(_Sum):
    kind = Op.ADD


class _Sub(_Sum):
    kind, subtract = Op.SUB, True


class _AddConstant(Operation):
    """``a + constant``."""
    kind, arity, registered, counted_as, unit = Op.ADDC, 1, True, Count.ADD, Unit.ADD

    def interval(self, args, constant):
        return args[0].low + constant, args[0].high + constant

    def evaluate(self, args, constant):
        return args[0] + constant

    def cap(self, fracs, constant, width):
        # The constant is rounded at max(operand, result) fraction bits: >= the operand's.
        return max(fracs[0], frac_bits_for(abs(constant), width)), None

    def propagated(self, node, errors, formats, constant_format):
        (a,) = node.args
        return errors[a.index] + 2.0 ** -(formats[a.index].frac + 1)

    def fixed(self, node, fmt, args, arg_formats, width):
        top = max(arg_formats[0].frac, fmt.frac)
        constant = round(node.constant * 2.0 ** top)
        aligned = _align(args[0], arg_formats[0].frac, top, width)
        if constant.bit_length() > INT64_BITS and aligned.dtype != object:
            aligned = aligned.astype(object)
        return round_shift(aligned + constant, top - fmt.frac, ROUNDING)

    def hdl(self, node, fmt, args, arg_formats):
        top = max(arg_formats[0].frac, fmt.frac)
        constant = round(node.constant * 2.0 ** top)
        aligned = args[0] << (top - arg_formats[0].frac)
        return hdl_rounded(aligned + hdl_constant(constant), top - fmt.frac)

    def word(self, node, fmt, fracs, args, negs):
        top = max(fracs[0], fmt.frac)
        return {"constant": round(node.constant * 2.0 ** top), "shift_a": top - fracs[0],
                "shift": top - fmt.frac}


class _Multiply(Operation):
    """``a * b``."""
    kind, arity, registered, counted_as, unit = Op.MUL, 2, True, Count.MUL, Unit.MUL

    def interval(self, args, constant):
        a, b = args
        if a is b:  # a square is never negative
            top = max(a.low * a.low, a.high * a.high)
            low = 0.0 if a.low <= 0 <= a.high else min(a.low * a.low, a.high * a.high)
            return low, top
        corners = (a.low * b.low, a.low * b.high, a.high * b.low, a.high * b.high)
        return min(corners), max(corners)

    def evaluate(self, args, constant):
        return args[0] * args[1]

    def cap(self, fracs, constant, width):
        return fracs[0] + fracs[1], None

    def propagated(self, node, errors, formats, constant_format):
        a, b = node.args
        reciprocal = (Op.RECIP, Op.RSQRT)
        if b.op in reciprocal and a.op not in reciprocal:
            return _quotient_error(node, a, b, errors, formats)
        if a.op in reciprocal and b.op not in reciprocal:
            return _quotient_error(node, b, a, errors, formats)
        return a.magnitude * errors[b.index] + b.magnitude * errors[a.index] + \
            errors[a.index] * errors[b.index]

    def fixed(self, node, fmt, args, arg_formats, width):
        return round_shift(args[0] * args[1], arg_formats[0].frac + arg_formats[1].frac -
                           fmt.frac, ROUNDING)

    def hdl(self, node, fmt, args, arg_formats):
        return hdl_rounded(args[0] * args[1], arg_formats[0].frac + arg_formats[1].frac -
                          fmt.frac)

    def word(self, node, fmt, fracs, args, negs):
        return {"b": args[1].index, "neg_b": negs[1], "shift": fracs[0] + fracs[1] - fmt.frac}


class _MultiplyConstant(Operation):
    """``a * constant``, the constant a ``signed(width)`` code of its own (its format's
    ``const_code`` and ``const_frac``)."""
    kind, arity, registered, counted_as, unit = Op.CMUL, 1, True, Count.MUL, Unit.MUL

    def interval(self, args, constant):
        corners = (args[0].low * constant, args[0].high * constant)
        return min(corners), max(corners)

    def evaluate(self, args, constant):
        return args[0] * constant

    def cap(self, fracs, constant, width):
        const_frac = frac_bits_for(abs(constant), width)
        return fracs[0] + const_frac, (round(constant * 2.0 ** const_frac), const_frac, 0)

    def propagated(self, node, errors, formats, constant_format):
        (a,) = node.args
        code, const_frac = constant_format[:2]
        return abs(node.constant) * errors[a.index] + \
            (a.magnitude + errors[a.index]) * abs(node.constant - code * 2.0 ** -const_frac)

    def fixed(self, node, fmt, args, arg_formats, width):
        return round_shift(args[0] * fmt.const_code,
                           arg_formats[0].frac + fmt.const_frac - fmt.frac, ROUNDING)

    def hdl(self, node, fmt, args, arg_formats):
        return hdl_rounded(args[0] * hdl_constant(fmt.const_code),
                          arg_formats[0].frac + fmt.const_frac - fmt.frac)

    def word(self, node, fmt, fracs, args, negs):
        return {"constant": fmt.const_code, "shift": fracs[0] + fmt.const_frac - fmt.frac}


OPERATIONS = {op.kind: op for op in (
    _Input(), _Const(), _Recip(), _RecipSqrt(), _Sqrt(), _Neg(), _Add(), _Sub(), _AddConstant(),
    _Multiply(), _MultiplyConstant())}


def operation(kind):
    """The :class:`Operation` of ``kind`` (``ValueError`` naming an unknown one)."""
    try:
        return OPERATIONS[kind]
    except KeyError:
        raise ValueError(f"unknown op {kind!r}") from None


def register(op):
    """Add ``op`` (an :class:`Operation` whose :attr:`~Operation.kind` is a new name) to the
    vocabulary; returns it."""
    if not isinstance(op, Operation):
        raise TypeError(f"op must be an Operation, not {op!r}")
    if not isinstance(op.kind, str) or op.kind in OPERATIONS:
        raise ValueError(f"op kind must be a new name, not {str(op.kind)!r}")
    OPERATIONS[op.kind] = op
    return op


def unit_of(node):
    """The :class:`Unit` that executes ``node``, or ``None``."""
    return operation(node.op).unit


def kinds_on(unit):
    """The kinds a ``unit`` (a :class:`Unit`) executes."""
    return tuple(kind for kind, op in OPERATIONS.items() if op.unit == unit)
