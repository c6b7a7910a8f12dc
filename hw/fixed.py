"""Two's-complement fixed-point arithmetic, in numpy and in Amaranth, bit for bit alike.

Amaranth 0.5 has no fixed-point library, so the few operations the datapaths need live here,
each written twice: once over numpy ``int64`` arrays (for the bit-exact models) and once over
Amaranth values (for the RTL). Tests check the two against each other and against Python's
unbounded integers. The Amaranth twins import Amaranth themselves, so the numpy half loads
without it (a float command starts without the hardware stack).
"""

import enum

import numpy as np

from robohw.hw.checks import check_integer

__all__ = [
    "Rounding", "FixedFormat",
    "wrap", "round_shift", "saturate",
    "hdl_round_shift", "rounding_mask", "rounding_shift", "rounding_increment", "hdl_add_sub",
    "hdl_add_sub_add", "hdl_saturate",
    "angle_to_code", "angle_fits", "code_to_angle", "ANGLE_CODE_LIMIT", "ANGLE_ERROR_LSB",
]


class Rounding(enum.Enum):
    """How a value loses its low bits.

    ``TRUNCATE`` rounds towards minus infinity (an arithmetic shift right); ``HALF_EVEN``
    rounds to nearest, ties to even (no bias, as in IEEE 754).
    """
    TRUNCATE = "truncate"
    HALF_EVEN = "half_even"


class FixedFormat:
    """A signed fixed-point format: ``width`` bits of which ``frac_bits`` are fraction bits.

    The integer ``n`` stands for the real ``n * 2**-frac_bits``; the range is
    ``[-2**(width-1), 2**(width-1) - 1]`` in integers.
    """
    def __init__(self, width, frac_bits):
        self.width = check_integer("width", width, minimum=1)
        self.frac_bits = check_integer("frac_bits", frac_bits, minimum=0, maximum=width)

    @property
    def shape(self):
        from amaranth.hdl import signed
        return signed(self.width)

    @property
    def min_int(self):
        return -(1 << (self.width - 1))

    @property
    def max_int(self):
        return (1 << (self.width - 1)) - 1

    @property
    def lsb(self):
        """The real value of one least significant bit."""
        return 2.0 ** -self.frac_bits

    def fits(self, value):
        """Where reals round to a code of the format (a boolean array like ``value``)."""
        codes = np.rint(np.asarray(value, dtype=np.float64) * (1 << self.frac_bits))
        return (codes >= self.min_int) & (codes <= self.max_int)

    def from_float(self, value):
        """Round reals to the nearest integer code; raise ``OverflowError`` when out of range."""
        if not np.all(self.fits(value)):
            raise OverflowError(f"Value out of range of {self!r}")
        return np.rint(np.asarray(value, dtype=np.float64) * (1 << self.frac_bits)).astype(
            np.int64)

    def to_float(self, codes):
        return np.asarray(codes, dtype=np.float64) * self.lsb

    def __eq__(self, other):
        return (isinstance(other, FixedFormat) and
                (self.width, self.frac_bits) == (other.width, other.frac_bits))

    def __hash__(self):
        return hash((self.width, self.frac_bits))

    def __repr__(self):
        return f"FixedFormat(width={self.width}, frac_bits={self.frac_bits})"


def wrap(values, width):
    """Reduce integers modulo ``2**width`` into the signed range, as an assignment to a
    ``signed(width)`` signal does."""
    half = np.int64(1) << (width - 1)
    return ((np.asarray(values, dtype=np.int64) + half) & ((half << 1) - 1)) - half


def round_shift(values, shift, rounding):
    """Divide integers by ``2**shift`` with the given :class:`Rounding`. Object arrays of
    Python integers stay exact (no ``int64`` wrap) and come back as object arrays."""
    values = np.asarray(values)
    if values.dtype != object:
        values = values.astype(np.int64)
    if shift == 0:
        return values
    if rounding is Rounding.TRUNCATE:
        return values >> shift
    # Round half to even: add just under one half, plus one when the kept LSB is odd.
    return (values + ((1 << (shift - 1)) - 1) + ((values >> shift) & 1)) >> shift


def saturate(values, width):
    """Clamp integers to ``signed(width)``; return ``(clamped, overflowed)``."""
    low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
    values = np.asarray(values, dtype=np.int64)
    return np.clip(values, low, high), (values < low) | (values > high)


def hdl_round_shift(value, shift, rounding):
    """Amaranth twin of :func:`round_shift`: the result is one bit wider than needed so the
    rounding increment cannot overflow."""
    from amaranth.hdl import Value
    value = Value.cast(value)
    if shift == 0:
        return value
    if rounding is Rounding.TRUNCATE:
        return value >> shift
    return (value + ((1 << (shift - 1)) - 1) + value[shift]) >> shift


def rounding_mask(shift, least=0):
    """The bits of a value below the half that a shift by ``shift`` bits rounds away:
    ``2**(shift - 1) - 1``, 0 for no shift (:func:`rounding_shift`'s ``mask``, a number, or a
    micro-program's field). With ``least`` (a shift every use takes, at most ``shift``): only
    the bits from the lowest that ``least`` leaves, moved down to bit 0."""
    return ((1 << max(shift - 1, 0)) - 1) >> max(least - 1, 0)


def rounding_shift(value, shift, mask, least=0):
    """The first step of :func:`hdl_round_shift` with ``HALF_EVEN`` in two steps (a register
    between them in the processor arrays' units, one cycle in a folded pipeline's node):
    ``(halved, sticky)``, ``value`` shifted by one bit less than ``shift`` (its lowest bit the
    half) and the OR of the bits below the half. ``shift`` and ``mask`` (:func:`rounding_mask`
    of the shift) are numbers or signals (a micro-program's fields). Unlike
    :func:`hdl_round_shift` the carry chain spans the kept bits only, not the dropped ones.

    ``least`` (a number): a part of the shift every use takes, wired, not multiplexed; then
    ``shift`` is the rest and ``mask`` is :func:`rounding_mask` of the whole shift with
    ``least``. A unit whose shifts lie in a narrow range (a multiplier's 16 to 19 bits) then
    builds a shifter of that range only."""
    if not least:
        return (value << 1) >> shift, (value & mask).any()
    kept = (value << 1) >> least
    sticky = (value & rounding_mask(least)).any() | ((value >> (least - 1)) & mask).any()
    return kept >> shift, sticky


def rounding_increment(halved, sticky):
    """The second step: up if the half is set and the sticky bit or the result's last bit is
    (equal to :func:`round_shift` with ``HALF_EVEN``, tested)."""
    return (halved >> 1) + (halved[0] & (sticky | halved[1]))


def hdl_add_sub(a, b, subtract):
    """``a - b`` where ``subtract`` is high, else ``a + b``, on one carry chain: ``a + ~b + 1``
    with the inversion in the adder's input logic and the ``+ 1`` as the carry into a spare low
    bit, instead of two adders and a multiplexer after them. Operands are signed or unsigned
    values; the result is signed and wide enough for either."""
    from amaranth.hdl import Cat, Const, Mux, Value
    a, b, subtract = Value.cast(a), Value.cast(b), Value.cast(subtract)
    if not b.shape().signed:        # ~b must be -b - 1: give b a sign bit first
        b = Cat(b, Const(0, 1)).as_signed()
    b = Mux(subtract, ~b, b)
    return (((a << 1) | 1) + ((b << 1) | subtract)) >> 1


def hdl_add_sub_add(a, b, subtract, c, c_negative=False):
    """``a -+ b -+ c`` on one carry chain: ``b`` subtracted where ``subtract`` is high, ``c``
    where ``c_negative`` is (a Python bool, fixed at elaboration, or a bit). A carry-save
    layer (one LUT a
    bit) turns the three terms into a sum word and a carry word, and one adder adds them
    (two adders in a row would be two carry chains in one cycle). The two ``+ 1``
    of the inversions go into the carry word's empty low bit and, as in :func:`hdl_add_sub`,
    into a spare low bit. Operands are signed or unsigned; the result is signed and exact."""
    from amaranth.hdl import Cat, Const, Value
    terms = []
    for v in (a, b, c):
        v = Value.cast(v)
        terms.append(v if v.shape().signed else Cat(v, Const(0, 1)).as_signed())
    width = max(len(v) for v in terms) + 2     # |a| + |b| + |c| fits with a bit to spare

    def extend(v):
        return Cat(v, v[-1].replicate(width - len(v)))
    a, b, c = (extend(v) for v in terms)
    b = b ^ Value.cast(subtract).replicate(width)      # -b - 1 where subtracting
    c_negative = Value.cast(c_negative)                 # a Python bool: a constant bit
    c = c ^ c_negative.replicate(width)                 # -c - 1 where negative
    total = a ^ b ^ c
    carry = Cat(c_negative, ((a & b) | (a & c) | (b & c))[:width - 1])
    subtract = Value.cast(subtract)
    return (Cat(subtract, total) + Cat(subtract, carry))[1:width + 1].as_signed()


def hdl_saturate(value, width):
    """Amaranth twin of :func:`saturate`: returns ``(clamped, overflowed)`` expressions.

    The range test reads the bits from the result's sign bit up (a value fits when they all
    equal its sign), so it is logic, not the carry chains of two comparisons."""
    from amaranth.hdl import Const, Mux, Value
    low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
    value = Value.cast(value)
    top = value[width - 1:]
    if len(top) == 0:
        too_low = too_high = Const(0, 1)
    elif value.shape().signed:
        negative = value[-1]
        too_low, too_high = negative & ~top.all(), ~negative & top.any()
    else:
        too_low, too_high = Const(0, 1), top.any()
    clamped = Mux(too_low, low, Mux(too_high, high, value))
    return clamped[:width].as_signed(), too_low | too_high


# Angles whose code before wrapping reaches this many units are refused. Below it, float64's own
# rounding of ``radians / (2 pi) * 2**width`` (at most 1.5 units in the last place: the division
# and 2 pi's representation) stays under 1.5 * 2**-52 * 2**47 < 1/16 of a code, so a code is the
# nearest to the angle within ANGLE_ERROR_LSB; beyond 2**53 float64 holds no whole numbers
# exactly at all (and beyond 2**63 the cast to int64 fails).
ANGLE_CODE_LIMIT = 2.0 ** 47
# A binary angle's worst-case error against the float64 angle it encodes, in codes: half a code
# of rounding and float64's own rounding below ANGLE_CODE_LIMIT.
ANGLE_ERROR_LSB = 0.5 + 1 / 16


def angle_fits(radians, width):
    """Where radians give a binary-angle code of ``width`` bits within
    :data:`ANGLE_ERROR_LSB` of a code (a boolean array): finite, and less than
    ``2**(47 - width)`` turns (at 24 bits, 2**23 turns, 5.3e7 rad)."""
    with np.errstate(over="ignore", invalid="ignore"):   # beyond float64: not a fit
        units = np.abs(np.asarray(radians, dtype=np.float64) / (2 * np.pi) * 2.0 ** width)
    return units < ANGLE_CODE_LIMIT


def angle_to_code(radians, width):
    """Radians to binary-angle codes (one turn = ``2**width``), wrapped into
    ``signed(width)``; ``OverflowError`` for angles :func:`angle_fits` refuses."""
    if not np.all(angle_fits(radians, width)):
        raise OverflowError(f"angle out of range of a {width}-bit binary angle's exact codes")
    turns = np.asarray(radians, dtype=np.float64) / (2 * np.pi)
    codes = np.rint(turns * 2.0 ** width).astype(np.int64)
    half = np.int64(1) << (width - 1)
    return ((codes + half) & ((half << 1) - 1)) - half


def code_to_angle(codes, width):
    """Binary-angle codes to radians in [-pi, pi)."""
    return np.asarray(codes, dtype=np.float64) * (2 * np.pi / 2.0 ** width)
