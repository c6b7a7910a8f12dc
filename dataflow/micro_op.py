"""A traced node as the micro-operation of a programmable unit: which operands it reads (either
negated), how it aligns them, what constant it takes and how far it shifts the result to round
it into its format. The processing elements of :mod:`robohw.dynamics.array` and the link
processors of :mod:`robohw.distributed` execute these words; the arithmetic is
:func:`robohw.dataflow.evaluate.fixed_op`'s, bit for bit."""

__all__ = ["micro_operation"]


def micro_operation(tracer, formats, index):
    """The fields of node ``index`` (an ``add``, ``sub``, ``addc``, ``mul`` or ``cmul``): ``a``,
    ``b`` (operand nodes, past any negation; ``b`` ``None`` for a constant), ``neg_a``,
    ``neg_b``, ``subtract``, ``constant`` (an integer code), ``shift_a``, ``shift_b``
    (alignment, adds only), ``shift`` (the rounding shift)."""
    node = tracer.nodes[index]
    fmt = formats[index]
    args = list(node.args)
    negs = [a.op == "neg" for a in args]
    args = [a.args[0] if a.op == "neg" else a for a in args]
    fracs = [formats[a.index].frac for a in node.args]
    word = {"a": args[0].index, "b": None, "neg_a": negs[0], "neg_b": False,
            "subtract": node.op == "sub", "constant": 0, "shift_a": 0, "shift_b": 0}
    if node.op in ("add", "sub"):
        top = max(fracs)
        word.update(b=args[1].index, neg_b=negs[1], shift_a=top - fracs[0],
                    shift_b=top - fracs[1], shift=top - fmt.frac)
    elif node.op == "addc":
        top = max(fracs[0], fmt.frac)
        word.update(constant=round(node.constant * 2.0 ** top), shift_a=top - fracs[0],
                    shift=top - fmt.frac)
    elif node.op == "mul":
        word.update(b=args[1].index, neg_b=negs[1], shift=fracs[0] + fracs[1] - fmt.frac)
    elif node.op == "cmul":
        word.update(constant=fmt.const_code, shift=fracs[0] + fmt.const_frac - fmt.frac)
    else:
        raise ValueError(f"{node}: not an operation of a processing element")
    return word
