"""The bit-exact model of the inertia arrays, on the evaluation of traced dataflow graphs
(:mod:`robohw.dataflow.evaluate`).

An array's plan (:class:`robohw.systolic.array.InertiaPlan`) is evaluated through its payloads
(:mod:`robohw.systolic.codec`): :func:`model_outputs` takes the ``q`` codes to the ``h`` codes
the hardware streams out, bit for bit, and :func:`model_inertia` encodes, models and decodes at
once.

The arrays' widths stop at :data:`MAX_WIDTH`, where numpy ``int64`` still holds every product.
"""

import numpy as np

from robohw.dataflow.evaluate import INT64_WIDTH, evaluate_float
from robohw.dataflow.plan import model_codes
from robohw.systolic.codec import decode_outputs, encode_joints, symmetric

__all__ = ["MAX_WIDTH", "model_outputs", "model_inertia", "traced_float"]

MAX_WIDTH = INT64_WIDTH


def model_outputs(plan, codes):
    """Output codes ``{(j, i): int64 array}`` for payload codes (:func:`encode_joints`), bit
    for bit what the array streams out."""
    return model_codes(plan, codes)


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
    return symmetric({key: (np.full(len(q), node) if isinstance(node, float)
                             else values[node.index]) for key, node in plan.outputs.items()},
                      len(q), plan.dof)
