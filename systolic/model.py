"""The bit-exact model of the inertia arrays, on the evaluation of traced dataflow graphs
(:mod:`robohw.dataflow.evaluate`).

An array's plan (:class:`robohw.systolic.array.InertiaPlan`) is evaluated through its payloads:
:func:`encode_joints` (joint values to ``q`` codes), :func:`model_outputs` (``q`` codes to the
``h`` codes the hardware streams out, bit for bit), :func:`decode_outputs` (codes to H), and
:func:`model_inertia` all three at once.

The arrays' widths stop at :data:`MAX_WIDTH`, where numpy ``int64`` still holds every product.
"""

import numpy as np

from robohw.dataflow.evaluate import INT64_WIDTH, evaluate_float
from robohw.dataflow.plan import model_codes
from robohw.hw.fixed import angle_to_code, wrap

__all__ = ["MAX_WIDTH", "encode_joints", "model_outputs", "decode_outputs", "model_inertia",
           "traced_float"]

MAX_WIDTH = INT64_WIDTH


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


def model_outputs(plan, codes):
    """Output codes ``{(j, i): int64 array}`` for payload codes (:func:`encode_joints`), bit
    for bit what the array streams out."""
    return model_codes(plan, codes)


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
