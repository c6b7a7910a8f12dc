"""Robot states as the payload codes of a traced plan's state fields, and torque codes back:
shared by the designs that take a state ``(q, qd, qdd)`` and give joint torques
(:mod:`robohw.dynamics`, :mod:`robohw.distributed`). A plan here has ``robot``, ``dof``,
``width``, ``cordic`` (the angles' CORDIC), ``input_fracs`` (fraction bits of the fixed-point
fields by name) and ``output_fracs`` (of the torques, by joint from 1)."""

import numpy as np
from amaranth.hdl import signed

from robohw.hw.fixed import angle_to_code

__all__ = ["state_fields", "encode_states", "decode_torques"]


def state_fields(plan):
    """The input payload's fields of a state, ``{name: shape}``: ``q1..qN`` (binary angles of
    the CORDICs' width for revolute joints, ``signed(width)`` for prismatic ones), ``qd1..qdN``,
    ``qdd1..qddN`` (``signed(width)``)."""
    fields = {}
    for k, joint in enumerate(plan.robot.joints, start=1):
        fields[f"q{k}"] = signed(plan.cordic.width if joint.type == "revolute" else plan.width)
    fields.update({f"{kind}{k}": signed(plan.width) for kind in ("qd", "qdd")
                   for k in range(1, plan.dof + 1)})
    return fields


def encode_states(plan, q, qd, qdd):
    """Payload codes ``{field: (B,) int64}`` of states ``(B, N)`` each: binary angles for
    revolute joints, fixed point with ``plan.input_fracs`` fraction bits for the rest (rounded
    to nearest; a value too large for its field saturates, and its row leaves with
    ``in_bounds`` low)."""
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
    # could land it back inside them. Codes beyond int64 (fields over 63 bits) are Python
    # integers.
    top = 2.0 ** (width - 1)
    codes = np.clip(np.rint(values * 2.0 ** frac), -top, top - 1)
    return codes.astype(np.int64) if width <= 63 else \
        np.array([int(v) for v in codes], dtype=object)


def decode_torques(plan, out):
    """Torques ``(B, N)`` (N m, N) from torque codes by joint."""
    fracs = plan.output_fracs
    return np.stack([np.asarray(out[k], dtype=np.float64) * 2.0 ** -fracs[k]
                     for k in range(1, plan.dof + 1)], axis=-1)
