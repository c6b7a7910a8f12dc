"""Evaluation of traced dataflow graphs (:mod:`robohw.dataflow.graph`): in float64
(:func:`evaluate_float`) and bit-exactly in the fixed-point formats the hardware uses
(:func:`evaluate_fixed`; :func:`fixed_op` is every operation's integer arithmetic, each kind's
defined in :mod:`robohw.dataflow.operations` beside its Amaranth twin, which
:func:`robohw.dataflow.pipeline.build_dataflow` builds).

Integer arithmetic runs in numpy ``int64`` up to :data:`INT64_WIDTH` bits (every product of two
``signed(31)`` codes stays below ``2**62``) and in Python integers (numpy object arrays) above,
exact at any width.
"""

import numpy as np

from robohw.dataflow.operations import ROUNDING, Op, operation

__all__ = ["evaluate_float", "evaluate_fixed", "fixed_op", "ROUNDING", "INT64_WIDTH"]

# The widest datapath whose products numpy's int64 holds.
INT64_WIDTH = 31


def evaluate_float(tracer, indices, inputs):
    """``{index: float64 array}`` of the nodes ``indices`` for input values by name."""
    values = {}
    for k in indices:
        node = tracer.nodes[k]
        if node.op == Op.INPUT:
            values[k] = np.asarray(inputs[node.name], dtype=np.float64)
        else:
            values[k] = operation(node.op).evaluate([values[a.index] for a in node.args],
                                                    node.constant)
    return values


def fixed_op(node, fmt, args, arg_formats, width=INT64_WIDTH):
    """The integer result of one registered node, before it is stored: exact for operands in
    ``signed(width)`` (numpy ``int64``, or Python integers where an intermediate needs more
    than 62 bits: the hardware's adders are as wide as the operation needs); its kind's
    :meth:`~robohw.dataflow.operations.Operation.fixed`."""
    return operation(node.op).fixed(node, fmt, args, arg_formats, width)


def evaluate_fixed(tracer, indices, formats, inputs, width, overflow="raise", known=None,
                   observe=None):
    """``{index: codes}`` of the nodes ``indices``; ``inputs`` are codes by name, ``known``
    (optional) codes of nodes evaluated before, by index. Codes are numpy ``int64`` up to
    :data:`INT64_WIDTH` bits, object arrays of Python integers above. ``observe`` (optional):
    called as ``observe(index, result)`` with every registered node's integer result before
    it is stored (before it wraps or is found to overflow).

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
        if node.op == Op.INPUT:
            codes = np.asarray(inputs[node.name])
            values[k] = codes.astype(object) if wide else codes.astype(np.int64)
        elif node.op == Op.NEG:
            values[k] = -values[node.args[0].index]
        else:
            args = [values[a.index] for a in node.args]
            result = np.asarray(fixed_op(node, formats[k], args,
                                         [formats[a.index] for a in node.args], width))
            if observe is not None:
                observe(k, result)
            if overflow == "wrap":
                result = ((result + (1 << (width - 1))) & ((1 << width) - 1)) + low
            elif result.size and (result.min() < low or result.max() > high):
                raise OverflowError(f"{node} ({node.op}) leaves signed({width}) with "
                                    f"{formats[k].frac} fraction bits")
            values[k] = result.astype(object) if wide else result.astype(np.int64)
    return {k: values[k] for k in indices} if known else values
