"""The bit-exact model of :class:`robohw.dynamics.NewtonEulerPipeline`, through the payloads of
:mod:`robohw.dynamics.inverse.codec`: :func:`model_outputs` takes state codes to the torque codes
and ``in_bounds`` flags the pipeline streams out (through :func:`robohw.dataflow.plan.model_codes`:
numpy ``int64`` up to 31 bits, Python integers above), and :func:`model_torques` encodes,
models and decodes at once. :func:`coded_friction` is what a machine's Coulomb friction differs
by from the float64 reference's: the sign it takes is of qd's code."""

import numpy as np

from robohw.dataflow.plan import in_bounds, model_codes
from robohw.dynamics.inverse.codec import decode_torques, encode_states

__all__ = ["model_outputs", "model_torques", "coded_friction"]


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


def coded_friction(plan, qd, codes):
    """``(B, N)``: the plan's Coulomb friction less the float64 reference's, ``F_c (sign(c) -
    sign(qd))`` with ``c`` joint ``k``'s velocity code (``codes``, of :func:`encode_states`):
    ``-F_c sign(qd)`` for a joint whose ``|qd|`` is within half an LSB of 0 (code 0), 0 for
    every other joint and on a plan without friction. The reference plus it is what the
    proven bound covers (docs/accuracy.md)."""
    qd = np.atleast_2d(np.asarray(qd, dtype=np.float64))
    out = np.zeros(qd.shape)
    for name, sign in plan.sign_inputs.items():
        k = plan.input_joints[name]
        friction = plan.robot.joints[k - 1].friction
        out[:, k - 1] = friction * (np.sign(np.asarray(codes[sign.field])) - np.sign(qd[:, k - 1]))
    return out
