"""The protocol's CRC-16 (:func:`robohw.board.frames.crc16`) in gateware: a byte's update of the
running value. The update is linear over GF(2) in the running value's and the byte's bits, so
each bit of the result is the XOR of the input bits whose unit vectors
:func:`~robohw.board.frames.crc16` maps onto it: 16 flat XORs, found here once."""

import functools
import operator

from amaranth.hdl import Cat, Value

from robohw.board.frames import crc16

__all__ = ["crc16_next"]


def _columns():
    """For each input bit (the running value's 16, then the byte's 8), the result's bits it
    flips."""
    return ([crc16(b"\0", 1 << i) for i in range(16)] +
            [crc16(bytes([1 << k]), 0) for k in range(8)])


def crc16_next(crc, byte):
    """The CRC-16 after ``byte`` (an 8-bit value) from ``crc`` (a 16-bit value), as
    :func:`~robohw.board.frames.crc16` computes it: a combinational 16-bit value."""
    inputs = Cat(Value.cast(crc)[:16], Value.cast(byte)[:8])
    columns = _columns()
    return Cat(*(functools.reduce(operator.xor, (inputs[i] for i, column in enumerate(columns)
                                                 if column >> j & 1))
                 for j in range(16)))
