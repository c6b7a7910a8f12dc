"""Evaluation of traced dataflow graphs (:mod:`robohw.dataflow.graph`): in float64
(:func:`evaluate_float`) and bit-exactly in the fixed-point formats the hardware uses
(:func:`evaluate_fixed`; :func:`fixed_op` is the one definition of every operation's integer
arithmetic, and :func:`robohw.dataflow.pipeline.build_dataflow` builds the same arithmetic in
Amaranth).

Integer arithmetic runs in numpy ``int64`` up to :data:`INT64_WIDTH` bits (every product of two
``signed(31)`` codes stays below ``2**62``) and in Python integers (numpy object arrays) above,
exact at any width.
"""

import numpy as np

from robohw.hw.fixed import Rounding, round_shift

__all__ = ["evaluate_float", "evaluate_fixed", "fixed_op", "ROUNDING", "INT64_WIDTH"]

ROUNDING = Rounding.HALF_EVEN
# The widest datapath whose products numpy's int64 holds.
INT64_WIDTH = 31


def evaluate_float(tracer, indices, inputs):
    """``{index: float64 array}`` of the nodes ``indices`` for input values by name."""
    values = {}
    for k in indices:
        node = tracer.nodes[k]
        args = [values[a.index] for a in node.args]
        op = node.op
        if op == "input":
            values[k] = np.asarray(inputs[node.name], dtype=np.float64)
        elif op == "const":
            values[k] = node.constant
        elif op == "recip":
            values[k] = 1.0 / args[0]
        elif op == "add":
            values[k] = args[0] + args[1]
        elif op == "sub":
            values[k] = args[0] - args[1]
        elif op == "addc":
            values[k] = args[0] + node.constant
        elif op == "mul":
            values[k] = args[0] * args[1]
        elif op == "cmul":
            values[k] = args[0] * node.constant
        elif op == "neg":
            values[k] = -args[0]
        else:
            raise ValueError(f"{node}: unknown op")
    return values


# Integer bits numpy's int64 holds with a sign and a carry to spare.
_INT64_BITS = 62


def _align(codes, frac, to, width):
    """``codes * 2**(to - frac)``, exact: in Python integers where ``int64`` could not hold the
    shifted ``signed(width)`` values (formats of very different scales, e.g. a 3e6 kg link
    beside a 1 kg one)."""
    shift = to - frac
    if width + shift > _INT64_BITS:
        codes = np.asarray(codes).astype(object)
    return codes << shift


def fixed_op(node, fmt, args, arg_formats, width=INT64_WIDTH):
    """The integer result of one registered node, before it is stored: exact for operands in
    ``signed(width)`` (numpy ``int64``, or Python integers where an intermediate needs more
    than 62 bits: the hardware's adders are as wide as the operation needs)."""
    op, frac = node.op, fmt.frac
    if op in ("add", "sub"):
        top = max(f.frac for f in arg_formats)
        a, b = (_align(v, f.frac, top, width) for v, f in zip(args, arg_formats))
        return round_shift(a + b if op == "add" else a - b, top - frac, ROUNDING)
    if op == "addc":
        top = max(arg_formats[0].frac, frac)
        constant = round(node.constant * 2.0 ** top)
        aligned = _align(args[0], arg_formats[0].frac, top, width)
        if constant.bit_length() > _INT64_BITS and aligned.dtype != object:
            aligned = aligned.astype(object)
        return round_shift(aligned + constant, top - frac, ROUNDING)
    if op == "mul":
        return round_shift(args[0] * args[1], arg_formats[0].frac + arg_formats[1].frac - frac,
                           ROUNDING)
    if op == "cmul":
        return round_shift(args[0] * fmt.const_code, arg_formats[0].frac + fmt.const_frac - frac,
                           ROUNDING)
    raise ValueError(f"{node}: not a registered op")


def evaluate_fixed(tracer, indices, formats, inputs, width, overflow="raise", known=None):
    """``{index: codes}`` of the nodes ``indices``; ``inputs`` are codes by name, ``known``
    (optional) codes of nodes evaluated before, by index. Codes are numpy ``int64`` up to
    :data:`INT64_WIDTH` bits, object arrays of Python integers above.

    ``overflow="raise"``: raises ``OverflowError`` naming the node if a registered value
    leaves ``signed(width)`` (the formats promise that never happens within the proven
    ranges). ``overflow="wrap"``: the value wraps, as a register of ``width`` bits does (what
    the hardware holds for inputs outside the proven ranges).
    """
    if overflow not in ("raise", "wrap"):
        raise ValueError(f"overflow must be 'raise' or 'wrap', not {overflow!r}")
    wide = width > INT64_WIDTH
    low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
    values = dict(known or {})
    for k in indices:
        node = tracer.nodes[k]
        if node.op == "input":
            codes = np.asarray(inputs[node.name])
            values[k] = codes.astype(object) if wide else codes.astype(np.int64)
        elif node.op == "neg":
            values[k] = -values[node.args[0].index]
        else:
            args = [values[a.index] for a in node.args]
            result = np.asarray(fixed_op(node, formats[k], args,
                                         [formats[a.index] for a in node.args], width))
            if overflow == "wrap":
                result = ((result + (1 << (width - 1))) & ((1 << width) - 1)) + low
            elif result.size and (result.min() < low or result.max() > high):
                raise OverflowError(f"{node} ({node.op}) leaves signed({width}) with "
                                    f"{formats[k].frac} fraction bits")
            values[k] = result.astype(object) if wide else result.astype(np.int64)
    return {k: values[k] for k in indices} if known else values
