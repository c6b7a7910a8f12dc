"""Products of a traced graph whose operands are narrowed to a DSP tile's 18 bits
(:mod:`robohw.hw.narrowing`): their kinds in the vocabulary (``nmul``, ``ncmul``: rules, model
and Amaranth twin, executed by the engine's ``Unit.NMUL`` multipliers), and which products take
them, chosen by the error analysis (:func:`narrowed_products`).

A narrowed operand adds at most half its narrowed step to the product's error
(:func:`~robohw.hw.narrowing.narrowing_error`); what that adds to an output's proven bound is,
to first order, the product's added error times the output's gain on it: the derivative of the
output's bound with respect to the product's error, through every operation's error rule
(:meth:`~robohw.dataflow.operations.Operation.propagated`, differentiated numerically, so any
kind's rule serves) from the outputs back. :func:`narrowed_products` takes the products in
order of their largest share of an output's room and keeps each whose first-order additions
leave every output within its room. The bound of the narrowed graph is then proven as any
graph's (:func:`~robohw.dataflow.graph.error_bounds`): the choice is first order, the proof is
not.

A product with a reciprocal operand keeps its full width: its error rule bounds it through the
quotient's range (:func:`robohw.dataflow.operations._quotient_error`), which a narrowed operand
would lose.
"""

import numpy as np

from robohw.dataflow.graph import frac_bits_for, past_negation, propagated_error
from robohw.dataflow.operations import (
    RECIPROCAL_KINDS,
    ROUNDING,
    Op,
    Unit,
    hdl_constant,
    hdl_rounded,
    operation,
    register,
    unit_of,
)
from robohw.hw.fixed import round_shift
from robohw.hw.narrowing import hdl_narrowed, narrowed_code, narrowing_drop, narrowing_error

__all__ = ["narrowed_products", "output_gains", "NARROWED"]

def _narrowed_error(node, errors, formats, drop):
    """``node``'s error bound as an operand narrowed by ``drop`` bits
    (:func:`~robohw.hw.narrowing.narrowing_error`): its own and the narrowing's."""
    frac = formats[node.index].frac
    largest = (node.magnitude + errors[node.index]) * 2.0 ** frac
    return errors[node.index] + narrowing_error(frac, drop, largest)


def _narrowed_args(node, args, drop, narrow=narrowed_code):
    """``node``'s operand values ``args`` narrowed by ``drop`` bits as the engine's unit narrows
    them: an operand past its negation, then negated (the unit narrows what it reads and
    complements the narrowed code), so a negated operand is ``-narrow(-x)``, not ``narrow(x)``
    (they differ on a tie and at the saturated top). ``narrow``: :func:`narrowed_code` or its
    Amaranth twin."""
    if not drop:
        return list(args)
    return [-narrow(-x, drop) if a.op == Op.NEG else narrow(x, drop)
            for a, x in zip(node.args, args)]


class _NarrowMultiply(type(operation(Op.MUL))):
    """``a * b`` of the operands narrowed to a DSP tile's 18 bits
    (:func:`~robohw.hw.narrowing.narrowed_code`, by the format's ``drop`` bits each): one tile
    and no partial products in the fabric. The error analysis chooses which products take it
    (:func:`narrowed_products`)."""
    kind, unit = Op.NMUL, Unit.NMUL

    def cap(self, fracs, constant, width):
        drop = narrowing_drop(width)
        return fracs[0] + fracs[1] - 2 * drop, (0, 0, drop)

    def propagated(self, node, errors, formats, constant_format):
        a, b = node.args
        drop = constant_format[2]
        e_a, e_b = (_narrowed_error(x, errors, formats, drop) for x in (a, b))
        return a.magnitude * e_b + b.magnitude * e_a + e_a * e_b

    def fixed(self, node, fmt, args, arg_formats, width):
        a, b = _narrowed_args(node, args, fmt.drop)
        return round_shift(a * b, arg_formats[0].frac + arg_formats[1].frac - 2 * fmt.drop -
                           fmt.frac, ROUNDING)

    def hdl(self, node, fmt, args, arg_formats):
        a, b = _narrowed_args(node, args, fmt.drop, hdl_narrowed)
        return hdl_rounded(a * b, arg_formats[0].frac + arg_formats[1].frac - 2 * fmt.drop -
                           fmt.frac)

    def word(self, node, fmt, fracs, args, negs):
        return {"b": args[1].index, "neg_b": negs[1],
                "shift": fracs[0] + fracs[1] - 2 * fmt.drop - fmt.frac}


class _NarrowMultiplyConstant(type(operation(Op.CMUL))):
    """``a * constant`` with ``a`` narrowed to a DSP tile's 18 bits (as
    :class:`_NarrowMultiply`'s) and the constant a ``signed(18)`` code of its own."""
    kind, unit = Op.NCMUL, Unit.NMUL

    def cap(self, fracs, constant, width):
        drop = narrowing_drop(width)
        const_frac = frac_bits_for(abs(constant), width - drop)
        return (fracs[0] - drop + const_frac,
                (round(constant * 2.0 ** const_frac), const_frac, drop))

    def propagated(self, node, errors, formats, constant_format):
        (a,) = node.args
        code, const_frac, drop = constant_format
        e_a = _narrowed_error(a, errors, formats, drop)
        return abs(node.constant) * e_a + \
            (a.magnitude + e_a) * abs(node.constant - code * 2.0 ** -const_frac)

    def fixed(self, node, fmt, args, arg_formats, width):
        (a,) = _narrowed_args(node, args, fmt.drop)
        return round_shift(a * fmt.const_code,
                           arg_formats[0].frac - fmt.drop + fmt.const_frac - fmt.frac, ROUNDING)

    def hdl(self, node, fmt, args, arg_formats):
        (a,) = _narrowed_args(node, args, fmt.drop, hdl_narrowed)
        return hdl_rounded(a * hdl_constant(fmt.const_code),
                           arg_formats[0].frac - fmt.drop + fmt.const_frac - fmt.frac)

    def word(self, node, fmt, fracs, args, negs):
        return {"constant": fmt.const_code,
                "shift": fracs[0] - fmt.drop + fmt.const_frac - fmt.frac}


# The narrowed kinds in the vocabulary, and each product's kind's narrowed kind.
register(_NarrowMultiply())
register(_NarrowMultiplyConstant())
NARROWED = {Op.MUL: Op.NMUL, Op.CMUL: Op.NCMUL}


# The step of the numerical derivative of an error rule, a share of the operand's error (or of
# its magnitude where its error is 0): the rules are linear or quadratic in the errors, so
# the first-order term is all but exact.
_STEP = 2.0 ** -20


def output_gains(tracer, indices, formats, errors, outputs):
    """``{index: (len(outputs),) array}``: each live node's gain on each output's error bound
    (``outputs``: node indices, in order), from ``errors`` (``{index: bound}`` in ``formats``,
    :func:`~robohw.dataflow.graph.assign_formats`')."""
    nodes = tracer.nodes
    gains = {k: np.zeros(len(outputs)) for k in indices}
    for j, k in enumerate(outputs):
        gains[k][j] += 1.0
    for k in reversed(list(indices)):
        node = nodes[k]
        if node.op == Op.INPUT or not gains[k].any():
            continue
        if node.op == Op.NEG:
            gains[node.args[0].index] += gains[k]
            continue
        here = propagated_error(node, errors, formats)
        for arg in {a.index: a for a in node.args}.values():
            step = max(errors[arg.index], arg.magnitude * 2.0 ** -40, 2.0 ** -1000) * _STEP
            bumped = dict(errors)
            bumped[arg.index] = errors[arg.index] + step
            slope = (propagated_error(node, bumped, formats) - here) / step
            gains[arg.index] += gains[k] * slope
    return gains


def narrowed_products(tracer, indices, formats, errors, width, outputs, room):
    """The products (node indices, a set) to narrow: ``outputs`` ``{key: node}`` (the
    outputs' nodes, a negation's allowed), ``room`` ``{key: bound}`` how much each output's
    proven bound may grow; ``formats`` and ``errors`` the graph's at ``width`` bits with every
    product at the full width (:func:`~robohw.dataflow.graph.assign_formats`')."""
    drop = narrowing_drop(width)
    keys = [key for key in outputs if key in room]
    if not drop or not keys:
        return set()
    nodes = tracer.nodes
    sources = [past_negation(outputs[key]).index for key in keys]
    gains = output_gains(tracer, indices, formats, errors, sources)
    space = np.array([max(room[key], 0.0) for key in keys])
    shares = {}
    for k in indices:
        node = nodes[k]
        if node.op not in NARROWED or any(unit_of(a) in RECIPROCAL_KINDS for a in node.args):
            continue
        narrow = operation(NARROWED[node.op])
        _, extra = narrow.cap([formats[a.index].frac for a in node.args], node.constant, width)
        added = narrow.propagated(node, errors, formats, extra) - \
            propagated_error(node, errors, formats)
        cost = gains[k] * max(added, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            shares[k] = (cost, np.where(cost > 0, cost / space, 0.0).max())
    chosen, used = set(), np.zeros(len(keys))
    for k in sorted(shares, key=lambda k: (shares[k][1], k)):
        cost = shares[k][0]
        if (used + cost <= space).all():
            chosen.add(k)
            used += cost
    return chosen
