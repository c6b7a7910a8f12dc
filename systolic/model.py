"""The bit-exact model of the inertia arrays, and the evaluation of traced dataflow graphs it
rests on.

A traced graph (:mod:`robohw.systolic.dataflow`) is evaluated in float64 (:func:`evaluate_float`)
and bit-exactly in the fixed-point formats the hardware uses (:func:`evaluate_fixed`;
:func:`fixed_op` is the one definition of every operation's integer arithmetic, and
:func:`robohw.systolic.pipeline.build_dataflow` builds the same arithmetic in Amaranth).
An array's plan (:class:`robohw.systolic.array.InertiaPlan`) is evaluated through its payloads:
:func:`encode_joints` (joint values to ``q`` codes), :func:`model_outputs` (``q`` codes to the
``h`` codes the hardware streams out, bit for bit), :func:`decode_outputs` (codes to H), and
:func:`model_inertia` all three at once.

Integer arithmetic runs in numpy ``int64``: widths up to 31 bits keep every product below
``2**62``.
"""

import numpy as np

from robohw.cordic.model import cordic_model
from robohw.hw.fixed import Rounding, angle_to_code, round_shift, wrap

__all__ = ["evaluate_float", "evaluate_fixed", "fixed_op", "ROUNDING", "MAX_WIDTH",
           "encode_joints", "model_outputs", "decode_outputs", "model_inertia", "traced_float"]

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


def fixed_op(node, fmt, args, arg_formats, width=MAX_WIDTH):
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
            result = fixed_op(node, formats[k], args, [formats[a.index] for a in node.args],
                              width)
            if result.size and (result.min() < low or result.max() > high):
                raise OverflowError(f"{node} ({node.op}) leaves signed({width}) with "
                                    f"{formats[k].frac} fraction bits")
            values[k] = result.astype(np.int64)
    return values


def encode_joints(plan, q):
    """Payload codes ``{"q1": ..}`` of an array's plan for joint values ``q`` (``(B, N)``, rad
    or m): binary angles for revolute joints, fixed point for prismatic ones. A prismatic value
    outside its joint limits leaves the proven ranges: ``OverflowError``."""
    q = np.atleast_2d(np.asarray(q, dtype=np.float64))
    if q.shape[1] != plan.dof:
        raise ValueError(f"q must have {plan.dof} columns, not {q.shape[1]}")
    fracs, width = plan.traced_inputs, plan.width
    codes = {}
    for k, frame in enumerate(plan.frames, start=1):
        if frame.revolute:
            codes[f"q{k}"] = angle_to_code(q[:, k - 1], width)
        else:
            value = np.rint(q[:, k - 1] * 2.0 ** fracs.get(f"d{k}", width - 1)).astype(np.int64)
            if k > 1 and (np.any(q[:, k - 1] < frame.limits[0]) or
                          np.any(q[:, k - 1] > frame.limits[1])):
                raise OverflowError(f"q{k} outside the joint limits {frame.limits}")
            codes[f"q{k}"] = wrap(value, width)
    return codes


def _input_codes(plan, codes):
    """The traced graph's inputs from payload codes: cos and sin from the CORDIC model."""
    inputs = {}
    one = 1 << plan.cordic.frac_bits
    for name in plan.traced_inputs:
        k = int(name[3:] if name[0] in "cs" else name[1:])
        q = np.asarray(codes[f"q{k}"], dtype=np.int64)
        if name.startswith("cos"):
            z = wrap(q + plan.offset_code(k), plan.width)
            out = cordic_model(plan.cordic, np.full(z.shape, one), np.zeros_like(z), z)
            inputs[f"cos{k}"], inputs[f"sin{k}"] = out.x, out.y
        elif name.startswith("d"):
            inputs[name] = q + plan.offset_code(k)
    return inputs


def model_outputs(plan, codes):
    """Output codes ``{(j, i): int64 array}`` for payload codes (:func:`encode_joints`), bit
    for bit what the array streams out."""
    batch = len(np.atleast_1d(next(iter(codes.values()))))
    values = evaluate_fixed(plan.tracer, plan.live, plan.formats, _input_codes(plan, codes),
                            plan.width)
    fracs = plan.output_fracs
    out = {}
    for key, node in plan.outputs.items():
        if isinstance(node, float):
            out[key] = np.full(batch, round(node * 2.0 ** fracs[key]), dtype=np.int64)
        else:
            out[key] = np.broadcast_to(values[node.index], (batch,)).copy()
    return out


def _symmetric(upper, batch, n):
    """``(B, N, N)`` matrices from their upper triangles ``{(j, i): (B,) values}``."""
    h = np.zeros((batch, n, n))
    for (j, i), value in upper.items():
        h[:, j - 1, i - 1] = h[:, i - 1, j - 1] = value
    return h


def decode_outputs(plan, out):
    """H of shape ``(B, N, N)`` from output codes by ``(j, i)``."""
    batch = len(np.atleast_1d(next(iter(out.values()))))
    return _symmetric({key: np.asarray(out[key], dtype=np.float64) * 2.0 ** -frac
                       for key, frac in plan.output_fracs.items()}, batch, plan.dof)


def model_inertia(plan, q):
    """H ``(B, N, N)`` of joint values ``q`` through the bit-exact model: encode, model,
    decode."""
    return decode_outputs(plan, model_outputs(plan, encode_joints(plan, q)))


def traced_float(plan, q):
    """The plan's traced graph evaluated in float64 (cos and sin exact): H ``(B, N, N)``; equal
    to the references up to float rounding, which checks the tracing and the folding."""
    q = np.atleast_2d(np.asarray(q, dtype=np.float64))
    inputs = {}
    for k, frame in enumerate(plan.frames[1:], start=2):
        value = q[:, k - 1] + frame.offset
        inputs.update({f"cos{k}": np.cos(value), f"sin{k}": np.sin(value), f"d{k}": value})
    values = evaluate_float(plan.tracer, plan.live, inputs)
    return _symmetric({key: (np.full(len(q), node) if isinstance(node, float)
                             else values[node.index]) for key, node in plan.outputs.items()},
                      len(q), plan.dof)
