"""Evaluate a traced dataflow graph (:mod:`systolic.dataflow`): in float64, and bit-exactly in
the fixed-point formats the hardware uses (:func:`fixed_op` is the one definition of every
operation's integer arithmetic, and :class:`systolic.pipeline.DataflowPipeline` builds the same
arithmetic in Amaranth).

Integer arithmetic runs in numpy ``int64``: widths up to 31 bits keep every product below
``2**62``.
"""

import numpy as np

from hw.fixed import Rounding, round_shift

__all__ = ["evaluate_float", "evaluate_fixed", "fixed_op", "ROUNDING", "MAX_WIDTH"]

ROUNDING = Rounding.HALF_EVEN
MAX_WIDTH = 31


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


def _align(codes, frac, to):
    return codes << (to - frac)


def fixed_op(node, fmt, args, arg_formats):
    """The integer result of one registered node, before it is stored (numpy ``int64``)."""
    op, frac = node.op, fmt.frac
    if op in ("add", "sub"):
        top = max(f.frac for f in arg_formats)
        a, b = (_align(v, f.frac, top) for v, f in zip(args, arg_formats))
        return round_shift(a + b if op == "add" else a - b, top - frac, ROUNDING)
    if op == "addc":
        top = max(arg_formats[0].frac, frac)
        constant = round(node.constant * 2.0 ** top)
        return round_shift(_align(args[0], arg_formats[0].frac, top) + constant, top - frac,
                           ROUNDING)
    if op == "mul":
        return round_shift(args[0] * args[1], arg_formats[0].frac + arg_formats[1].frac - frac,
                           ROUNDING)
    if op == "cmul":
        return round_shift(args[0] * fmt.const_code, arg_formats[0].frac + fmt.const_frac - frac,
                           ROUNDING)
    raise ValueError(f"{node}: not a registered op")


def evaluate_fixed(tracer, indices, formats, inputs, width):
    """``{index: int64 codes}`` of the nodes ``indices``; ``inputs`` are codes by name.

    Raises ``OverflowError`` naming the node if a registered value leaves ``signed(width)``:
    the formats promise that never happens within the joint ranges.
    """
    if width > MAX_WIDTH:
        raise ValueError(f"width must be at most {MAX_WIDTH} for the int64 model, not {width}")
    low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
    values = {}
    for k in indices:
        node = tracer.nodes[k]
        if node.op == "input":
            values[k] = np.asarray(inputs[node.name], dtype=np.int64)
        elif node.op == "neg":
            values[k] = -values[node.args[0].index]
        else:
            args = [values[a.index] for a in node.args]
            result = fixed_op(node, formats[k], args, [formats[a.index] for a in node.args])
            if result.size and (result.min() < low or result.max() > high):
                raise OverflowError(f"{node} ({node.op}) leaves signed({width}) with "
                                    f"{formats[k].frac} fraction bits")
            values[k] = result
    return values
