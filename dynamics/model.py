"""The bit-exact model of :class:`robohw.dynamics.NewtonEulerPipeline`, through the payloads of
:mod:`robohw.dataflow.states`: :func:`model_outputs` takes state codes to the torque codes and
``in_bounds`` flags the pipeline streams out (through :func:`robohw.dataflow.plan.model_codes`:
numpy ``int64`` up to 31 bits, Python integers above), and :func:`model_torques` encodes,
models and decodes at once."""

import numpy as np

from robohw.dataflow.plan import in_bounds, model_codes
from robohw.dataflow.states import decode_torques, encode_states

__all__ = ["model_outputs", "model_torques"]


def model_outputs(plan, codes):
    """``({k: (B,) torque codes}, (B,) in_bounds)`` for payload codes, bit for bit what the
    pipeline streams out (rows out of bounds included: their codes are what the registers
    hold, wrapped)."""
    inside = in_bounds(plan, codes)
    out = model_codes(plan, {field: value[inside] for field, value in codes.items()})
    if not inside.all():
        # Rows out of bounds may overflow a register: evaluated apart, wrapped as the
        # hardware's registers wrap.
        outside = model_codes(plan, {field: value[~inside] for field, value in codes.items()},
                              overflow="wrap")
        merged = {}
        for key in out:
            merged[key] = np.zeros(len(inside), dtype=out[key].dtype)
            merged[key][inside], merged[key][~inside] = out[key], outside[key]
        out = merged
    return out, inside


def model_torques(plan, q, qd, qdd):
    """``(tau (B, N), in_bounds (B,))`` through the bit-exact model."""
    codes = encode_states(plan, q, qd, qdd)
    out, inside = model_outputs(plan, codes)
    return decode_torques(plan, out), inside
