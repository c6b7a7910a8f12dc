"""A traced node as the micro-operation of a programmable unit: which operands it reads (either
negated), how it aligns them, what constant it takes and how far it shifts the result to round
it into its format. The processing elements of :mod:`robohw.dynamics.inverse.array` and the link
processors of :mod:`robohw.distributed` execute these words; the arithmetic is
:func:`robohw.dataflow.evaluate.fixed_op`'s, bit for bit."""

from robohw.dataflow.operations import Op, operation

__all__ = ["micro_operation"]


def micro_operation(tracer, formats, index):
    """The fields of node ``index`` (an operation a unit executes: ``add``, ``sub``, ``addc``,
    ``mul``, ``cmul`` or any kind added with a unit): ``a``, ``b`` (operand nodes, past any
    negation; ``b`` ``None`` for a constant), ``neg_a``, ``neg_b``, ``subtract``, ``constant``
    (an integer code), ``shift_a``, ``shift_b`` (alignment, adds only), ``shift`` (the rounding
    shift); its kind's :meth:`~robohw.dataflow.operations.Operation.word`."""
    node = tracer.nodes[index]
    op = operation(node.op)
    if op.unit is None:
        raise ValueError(f"{node}: not an operation of a processing element")
    args = list(node.args)
    negs = [a.op == Op.NEG for a in args]
    args = [a.args[0] if a.op == Op.NEG else a for a in args]
    fracs = [formats[a.index].frac for a in node.args]
    word = {"a": args[0].index, "b": None, "neg_a": negs[0], "neg_b": False,
            "subtract": False, "constant": 0, "shift_a": 0, "shift_b": 0}
    word.update(op.word(node, formats[index], fracs, args, negs))
    return word
