"""The payload codec of forward dynamics' designs: they take ``q{k}``, ``qd{k}`` and ``tau{k}``
for each joint ``k`` (from 1; the state's fields of :mod:`robohw.dynamics.inverse.codec`) and
give ``qdd{k}`` (``signed(width)``, fixed point with the plan's ``output_fracs``), a validity
flag and ``tag``."""

import numpy as np

from robohw.dynamics.inverse.codec import decode_torques, encode_fields, state_fields
from robohw.hw.payload import payload_rows

__all__ = ["acceleration_field", "forward_fields", "encode_forward", "acceleration_codes",
           "acceleration_payloads", "decode_accelerations"]


def acceleration_field(k):
    """Forward dynamics' output field of joint ``k``'s (from 1) acceleration."""
    return f"qdd{k}"


def forward_fields(plan):
    """Forward dynamics' input payload's fields: ``q1..qN``, ``qd1..qdN``, ``tau1..tauN``
    (:func:`~robohw.dynamics.inverse.codec.state_fields`)."""
    return state_fields(plan, ("qd", "tau"))


def encode_forward(plan, q, qd, tau):
    """Payload codes ``{field: (B,) int64}`` of forward dynamics' inputs ``(B, N)`` each:
    positions as :func:`~robohw.dynamics.inverse.codec.encode_states` codes them, ``qd{k}`` and
    ``tau{k}`` fixed point."""
    return encode_fields(plan, q, {"qd": qd, "tau": tau})


def acceleration_codes(plan, outputs):
    """Forward dynamics' acceleration codes ``{k: (B,) object array}`` from a run's output
    payloads."""
    return {k: np.array([o[acceleration_field(k)] for o in outputs], dtype=object)
            for k in range(1, plan.dof + 1)}


def acceleration_payloads(out, **flags):
    """Forward dynamics' output payloads from acceleration codes ``{k: (B,)}`` and the flags
    given by name."""
    return payload_rows({**{acceleration_field(k): v for k, v in out.items()}, **flags})


def decode_accelerations(plan, out):
    """Accelerations ``(B, N)`` (rad/s^2, m/s^2) from forward dynamics' output codes by
    joint."""
    return decode_torques(plan, out)
