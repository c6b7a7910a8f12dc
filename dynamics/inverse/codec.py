"""The payload codec of the designs that take a robot state ``(q, qd, qdd)`` and give joint
torques (:mod:`robohw.dynamics`, :mod:`robohw.distributed`): the one place that knows their
field names and converts states to payload codes and torque codes back.

The input payload has ``q{k}``, ``qd{k}`` and ``qdd{k}`` for each joint ``k`` (from 1); the
output payload ``tau{k}`` (``signed(width)``, fixed point with the plan's ``output_fracs``),
a design's validity flag and ``tag`` (forward dynamics' fields:
:mod:`robohw.dynamics.forward.codec`). A plan here has ``robot``, ``dof``, ``width``,
``cordic`` (the angles' CORDIC), ``angle_codes`` (the angle fields' codes,
:meth:`robohw.dataflow.plan.TracedPlan.angle_codes`), ``input_fracs`` (fraction bits of the
fixed-point fields by name) and ``output_fracs`` (of the torques, by joint from 1)."""

import numpy as np
from amaranth.hdl import signed

from robohw.hw.payload import payload_rows
from robohw.robots.joint_type import JointType

__all__ = ["state_field", "position_inputs", "torque_field", "state_fields", "torque_fields",
           "encode_states", "encode_fields", "torque_codes", "torque_payloads", "decode_torques",
           "field_formats"]


def state_field(kind, k):
    """The input field of joint ``k``'s (from 1) position, rate, acceleration or, for forward
    dynamics, torque (``kind``: ``"q"``, ``"qd"``, ``"qdd"`` or ``"tau"``)."""
    if kind not in ("q", "qd", "qdd", "tau"):
        raise ValueError(f"kind must be one of q, qd, qdd, tau, not {kind!r}")
    return f"{kind}{k}"


def position_inputs(plan, robot):
    """The traced inputs of ``robot``'s joint positions on ``plan`` (a
    :class:`~robohw.dataflow.plan.TracedPlan` tracing): a revolute joint's ``(cos, sin)`` from
    a CORDIC (its field a binary angle plus its offset), a prismatic joint's ``d{k}`` node
    within its limits (its field fixed point plus its offset, rounded with it: an error of one
    LSB)."""
    inputs = []
    for k, joint in enumerate(robot.joints, start=1):
        if joint.type == JointType.REVOLUTE:
            inputs.append(plan.angle_input(k, state_field("q", k), joint.offset))
        else:
            low, high = (limit + joint.offset for limit in joint.limits)
            inputs.append(plan.value_input(f"d{k}", state_field("q", k), low, high,
                                           joint.offset, error_lsb=1.0))
    return inputs


def torque_field(k):
    """The output field of joint ``k``'s (from 1) torque or force."""
    return f"tau{k}"


def state_fields(plan, kinds=("qd", "qdd")):
    """The input payload's fields of a state, ``{name: shape}``: ``q1..qN`` (binary angles of
    the CORDICs' width for revolute joints, ``signed(width)`` for prismatic ones), then each
    of ``kinds`` (default ``qd1..qdN``, ``qdd1..qddN``; ``signed(width)``)."""
    fields = {}
    for k, joint in enumerate(plan.robot.joints, start=1):
        fields[state_field("q", k)] = signed(plan.cordic.width if joint.type == JointType.REVOLUTE
                                             else plan.width)
    fields.update({state_field(kind, k): signed(plan.width) for kind in kinds
                   for k in range(1, plan.dof + 1)})
    return fields


def torque_fields(plan):
    """The output payload's torque fields, ``{tau1..tauN: signed(width)}``."""
    return {torque_field(k): signed(plan.width) for k in range(1, plan.dof + 1)}


def encode_states(plan, q, qd, qdd):
    """Payload codes ``{field: (B,) int64}`` of states ``(B, N)`` each: binary angles for
    revolute joints, fixed point with ``plan.input_fracs`` fraction bits for the rest (rounded
    to nearest; a value too large for its field saturates, and its row leaves with
    ``in_bounds`` low)."""
    return encode_fields(plan, q, {"qd": qd, "qdd": qdd})


def encode_fields(plan, q, others):
    """Payload codes ``{field: (B,)}`` of positions ``q`` (as :func:`encode_states` codes them)
    and of fixed-point inputs ``others`` (``{kind: (B, N) values}``, each kind a
    :func:`state_field` kind)."""
    arrays = {name: np.atleast_2d(np.asarray(v, dtype=np.float64))
              for name, v in {"q": q, **others}.items()}
    for name, value in arrays.items():
        if value.shape[-1] != plan.dof:
            raise ValueError(f"{name} must have {plan.dof} columns, not {value.shape[-1]}")
        if not np.isfinite(value).all():
            raise ValueError(f"{name} must be finite")
    arrays = dict(zip(arrays, np.broadcast_arrays(*arrays.values())))
    fracs, width = plan.input_fracs, plan.width
    codes = {}
    for k, joint in enumerate(plan.robot.joints, start=1):
        position = state_field("q", k)
        if joint.type == JointType.REVOLUTE:
            codes[position] = plan.angle_codes(position, arrays["q"][:, k - 1])
        else:
            codes[position] = _fixed(arrays["q"][:, k - 1], fracs[position], width)
        for kind in others:
            field = state_field(kind, k)
            codes[field] = _fixed(arrays[kind][:, k - 1], fracs[field], width)
    return codes


def _fixed(values, frac, width):
    # Saturated to the field: a value beyond it becomes the field's extreme code, which lies
    # outside the limits (the formats keep a margin below it), so its row is flagged; wrapping
    # could land it back inside them. Codes beyond int64 (fields over 63 bits) are Python
    # integers.
    top = 2.0 ** (width - 1)
    with np.errstate(over="ignore"):        # beyond float64 is beyond the field: saturated
        codes = np.clip(np.rint(values * 2.0 ** frac), -top, top - 1)
    return codes.astype(np.int64) if width <= 63 else \
        np.array([int(v) for v in codes], dtype=object)


def torque_codes(plan, outputs):
    """Torque codes ``{k: (B,) object array}`` (Python integers: fields may pass 63 bits) from a
    run's output payloads."""
    return {k: np.array([o[torque_field(k)] for o in outputs], dtype=object)
            for k in range(1, plan.dof + 1)}


def torque_payloads(out, **flags):
    """Output payloads (dicts of ints, without ``tag``) from torque codes ``{k: (B,)}`` and
    the validity flags given by name (``in_bounds=(B,) bools``)."""
    return payload_rows({**{torque_field(k): v for k, v in out.items()}, **flags})


def decode_torques(plan, out):
    """Torques ``(B, N)`` (N m, N) from torque codes by joint."""
    fracs = plan.output_fracs
    return np.stack([np.asarray(out[k], dtype=np.float64) * 2.0 ** -fracs[k]
                     for k in range(1, plan.dof + 1)], axis=-1)


def field_formats(plan, flag, kinds=("qd", "qdd"), output=torque_field, flags=()):
    """Every payload field's number format, as an export sidecar states it (``angle(width)``,
    ``fixed(width, frac)``, ``bit`` for the validity flag named ``flag`` and the others named
    in ``flags``, ``tag``): the state's inputs of :func:`state_fields` ``kinds``, the
    outputs named by ``output(k)`` (forward dynamics: ``kinds=("qd", "tau")``,
    :func:`robohw.dynamics.forward.codec.acceleration_field`)."""
    out = {}
    for k, joint in enumerate(plan.robot.joints, start=1):
        position = state_field("q", k)
        out[position] = f"angle({plan.cordic.width})" if joint.type == JointType.REVOLUTE else \
            f"fixed({plan.width}, {plan.input_fracs[position]})"
    for kind in kinds:
        out.update({state_field(kind, k): f"fixed({plan.width}, "
                                          f"{plan.input_fracs[state_field(kind, k)]})"
                    for k in range(1, plan.dof + 1)})
    out.update({output(k): f"fixed({plan.width}, {frac})"
                for k, frac in plan.output_fracs.items()})
    for name in (flag, *flags):
        out[name] = "bit"
    out["tag"] = "tag"
    return out
