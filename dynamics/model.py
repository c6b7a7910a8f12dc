"""The bit-exact model of :class:`robohw.dynamics.NewtonEulerPipeline`: states to payload codes
(:func:`encode_states`), codes to the torque codes and ``in_bounds`` flags the pipeline streams
out (:func:`model_outputs`, through :func:`robohw.dataflow.plan.model_codes`: numpy ``int64``
up to 31 bits, Python integers above), codes to torques (:func:`decode_torques`), and
:func:`model_torques` all three at once."""

import numpy as np

from robohw.dataflow.plan import in_bounds, model_codes
from robohw.hw.fixed import angle_to_code

__all__ = ["encode_states", "model_outputs", "decode_torques", "model_torques"]


def encode_states(plan, q, qd, qdd):
    """Payload codes ``{field: (B,) int64}`` of states ``(B, N)`` each: binary angles for
    revolute joints, fixed point with :attr:`~robohw.dynamics.NewtonEulerPlan.input_fracs`
    fraction bits for the rest (rounded to nearest; a value too large for its field saturates,
    and its row leaves with ``in_bounds`` low)."""
    arrays = [np.atleast_2d(np.asarray(v, dtype=np.float64)) for v in (q, qd, qdd)]
    for name, value in zip(("q", "qd", "qdd"), arrays):
        if value.shape[-1] != plan.dof:
            raise ValueError(f"{name} must have {plan.dof} columns, not {value.shape[-1]}")
        if not np.isfinite(value).all():
            raise ValueError(f"{name} must be finite")
    q, qd, qdd = np.broadcast_arrays(*arrays)
    fracs, width = plan.input_fracs, plan.width
    codes = {}
    for k, joint in enumerate(plan.robot.joints, start=1):
        if joint.type == "revolute":
            codes[f"q{k}"] = angle_to_code(q[:, k - 1], plan.cordic.width)
        else:
            codes[f"q{k}"] = _fixed(q[:, k - 1], fracs[f"q{k}"], width)
        codes[f"qd{k}"] = _fixed(qd[:, k - 1], fracs[f"qd{k}"], width)
        codes[f"qdd{k}"] = _fixed(qdd[:, k - 1], fracs[f"qdd{k}"], width)
    return codes


def _fixed(values, frac, width):
    # Saturated to the field: a value beyond it becomes the field's extreme code, which lies
    # outside the limits (the formats keep a margin below it), so its row is flagged; wrapping
    # could land it back inside them.
    top = 2.0 ** (width - 1)
    return np.clip(np.rint(values * 2.0 ** frac), -top, top - 1).astype(np.int64)


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


def decode_torques(plan, out):
    """Torques ``(B, N)`` (N m, N) from torque codes by joint."""
    fracs = plan.output_fracs
    return np.stack([np.asarray(out[k], dtype=np.float64) * 2.0 ** -fracs[k]
                     for k in range(1, plan.dof + 1)], axis=-1)


def model_torques(plan, q, qd, qdd):
    """``(tau (B, N), in_bounds (B,))`` through the bit-exact model."""
    codes = encode_states(plan, q, qd, qdd)
    out, inside = model_outputs(plan, codes)
    return decode_torques(plan, out), inside
