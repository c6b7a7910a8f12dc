"""A ``signed(width)`` code narrowed to a DSP tile's operand: its top
:data:`~robohw.hw.multiplier.ECP5_TILE_BITS` bits, rounded half up by the bits below them and
saturated, as exact integers (:func:`narrowed_code`) and in Amaranth (:func:`hdl_narrowed`).

A product of two narrowed operands takes one ECP5 MULT18X18D and no partial products in the
fabric, where a 21-bit product takes its tile and about 430 LUTs
(docs/notes/2026-12-link-frame-engine.md). With ``d = width - 18`` bits dropped, the narrowed
code ``n`` stands for ``n 2**d``:

- ``n = floor(c / 2**d) + bit d-1 of c`` (half up: one carry chain after the operand register);
- the one code that would pass the tile's largest, ``c >= 2**(width-1) - 2**(d-1)``, is held at
  ``2**17 - 1`` (no code reaches the least: ``floor`` keeps it).

So ``|c - n 2**d| <= 2**(d-1)`` for every code below ``2**(width-1) - 2**(d-1)`` and ``< 2**d``
for the few above it (:func:`narrowing_error`).
"""

import numpy as np
from amaranth.hdl import Mux

from robohw.hw.checks import check_integer
from robohw.hw.multiplier import ECP5_TILE_BITS

__all__ = ["narrowing_drop", "narrowed_code", "hdl_narrowed", "narrowing_error"]

_TILE_TOP = (1 << (ECP5_TILE_BITS - 1)) - 1


def narrowing_drop(width):
    """Bits a ``signed(width)`` code drops to fit a tile's operand (0 up to 18 bits)."""
    check_integer("width", width, minimum=1)
    return max(width - ECP5_TILE_BITS, 0)


def narrowed_code(codes, drop):
    """Integer ``codes`` (numpy, ``int64`` or object) narrowed by ``drop`` bits (see the module
    docstring); ``drop`` 0: the codes themselves."""
    if not drop:
        return codes
    codes = np.asarray(codes)
    narrowed = (codes >> drop) + ((codes >> (drop - 1)) & 1)
    return np.minimum(narrowed, _TILE_TOP)


def hdl_narrowed(value, drop):
    """The Amaranth twin of :func:`narrowed_code`: ``signed(18)`` of a signed ``value`` whose
    number is a ``signed(18 + drop)`` code (a wider ``value`` is taken at those bits),
    ``drop`` at least 1."""
    check_integer("drop", drop, minimum=1)
    top = value[drop:ECP5_TILE_BITS + drop].as_signed()
    held = top == _TILE_TOP
    return Mux(held, top, top + value[drop - 1])[:ECP5_TILE_BITS].as_signed()


def narrowing_error(frac, drop, largest):
    """The most a value of ``frac`` fraction bits loses to :func:`narrowed_code` by ``drop``
    bits, its codes at most ``largest`` in magnitude: half the narrowed code's step, or a
    whole step where ``largest`` reaches the saturated codes (the register's top half step)."""
    if not drop:
        return 0.0
    width = ECP5_TILE_BITS + drop
    saturates = largest >= (1 << (width - 1)) - (1 << (drop - 1))
    return 2.0 ** (drop - frac - (0 if saturates else 1))
