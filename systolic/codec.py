"""The inertia arrays' payloads: the one place that knows their field names and converts joint
values to input payloads and output payloads to H.

An array's input payload has a field ``q{k}`` per joint (binary angles for revolute joints,
fixed point for prismatic ones); its output payload a field ``h{j}_{i}`` per element of H's
upper triangle (``j <= i``, from 1), fixed point with the plan's
:attr:`~robohw.systolic.array.InertiaPlan.output_fracs` fraction bits, and ``tag``. A plan
here is an :class:`~robohw.systolic.array.InertiaPlan`.
"""

import numpy as np

from robohw.hw.fixed import wrap
from robohw.hw.payload import payload_rows

__all__ = ["joint_field", "inertia_field", "encode_joints", "output_codes",
           "output_payloads", "symmetric", "decode_outputs", "field_formats"]


def joint_field(k):
    """The input field of joint ``k`` (from 1)."""
    return f"q{k}"


def inertia_field(j, i):
    """The output field of H's element ``(j, i)`` (from 1, ``j <= i``)."""
    return f"h{j}_{i}"


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
            codes[joint_field(k)] = plan.angle_codes(joint_field(k), q[:, k - 1])
        else:
            value = np.rint(q[:, k - 1] * 2.0 ** fracs.get(f"d{k}", width - 1)).astype(np.int64)
            if k > 1 and (np.any(q[:, k - 1] < frame.limits[0]) or
                          np.any(q[:, k - 1] > frame.limits[1])):
                raise OverflowError(f"{joint_field(k)} outside the joint limits {frame.limits}")
            codes[joint_field(k)] = wrap(value, width)
    return codes


def output_codes(plan, outputs):
    """Output codes ``{(j, i): int64 array}`` from a run's output payloads."""
    return {(j, i): np.array([o[inertia_field(j, i)] for o in outputs], dtype=np.int64)
            for (j, i) in plan.output_fracs}


def output_payloads(codes):
    """Output payloads (dicts of ints, without ``tag``) from codes ``{(j, i): array}``, as the
    array streams them out."""
    return payload_rows({inertia_field(j, i): v for (j, i), v in codes.items()})


def symmetric(upper, batch, n):
    """``(B, N, N)`` matrices from their upper triangles ``{(j, i): (B,) values}``."""
    h = np.zeros((batch, n, n))
    for (j, i), value in upper.items():
        h[:, j - 1, i - 1] = h[:, i - 1, j - 1] = value
    return h


def decode_outputs(plan, out):
    """H of shape ``(B, N, N)`` from output codes by ``(j, i)``."""
    batch = len(np.atleast_1d(next(iter(out.values()))))
    return symmetric({key: np.asarray(out[key], dtype=np.float64) * 2.0 ** -frac
                       for key, frac in plan.output_fracs.items()}, batch, plan.dof)


def field_formats(plan):
    """Every payload field's number format, as an export sidecar states it:
    ``angle(width)``, ``fixed(width, frac)``, ``tag``."""
    width = plan.width
    out = {}
    for k, frame in enumerate(plan.frames, start=1):
        out[joint_field(k)] = f"angle({width})" if frame.revolute else \
            f"fixed({width}, {plan.input_fracs.get(k, width - 1)})"
    out.update({inertia_field(j, i): f"fixed({width}, {frac})"
                for (j, i), frac in plan.output_fracs.items()})
    out["tag"] = "tag"
    return out
