"""The gradient's payloads: its machines take a state as inverse dynamics' do
(:func:`~robohw.dynamics.inverse.codec.state_fields`) and give every entry of ``dtau/dq`` and
``dtau/dqd`` as ``signed(width)`` fixed point (
:func:`~robohw.dynamics.gradient.fields.gradient_field`'s
names, each with its own fraction bits: the plan's ``output_fracs``) and ``in_bounds``."""

import numpy as np
from amaranth.hdl import signed

from robohw.dynamics.gradient.fields import gradient_field, gradient_keys
from robohw.hw.payload import payload_rows

__all__ = ["gradient_fields", "gradient_codes", "gradient_payloads", "decode_gradient"]


def gradient_fields(plan):
    """The output payload's entry fields, ``{dtau{i}_dq{j}..dtau{i}_dqd{j}: signed(width)}``."""
    return {key: signed(plan.width) for key in gradient_keys(plan.dof)}


def gradient_codes(plan, outputs):
    """Entry codes ``{field: (B,) object array}`` (Python integers) from a run's output
    payloads."""
    return {key: np.array([o[key] for o in outputs], dtype=object)
            for key in gradient_keys(plan.dof)}


def gradient_payloads(out, **flags):
    """Output payloads (dicts of ints, without ``tag``) from entry codes ``{field: (B,)}`` and
    the validity flags given by name (``in_bounds=(B,) bools``)."""
    return payload_rows({**out, **flags})


def decode_gradient(plan, out):
    """``(dq, dqd)``, each ``(B, N, N)`` (entry ``[b, i, j]``: d tau_i / d q_j, or / d qd_j),
    from entry codes by field."""
    fracs, n = plan.output_fracs, plan.dof

    def matrix(wrt):
        return np.stack([np.stack([
            np.asarray(out[gradient_field(i, j, wrt)], dtype=np.float64) *
            2.0 ** -fracs[gradient_field(i, j, wrt)] for j in range(1, n + 1)], axis=-1)
            for i in range(1, n + 1)], axis=-2)
    return matrix("q"), matrix("qd")
