"""The PUMA IK pipelines' payloads: the one place that knows their field names and converts hand
poses to input payloads and output payloads to joint angles.

The input payload has the twelve reals of the hand pose (:data:`POSE_INPUTS`: the columns
``n``, ``o``, ``a``, ``p`` of ``[[n o a p], [0 0 0 1]]``, fixed point at the graph's fraction
bits), a graph's branch bits (``arm``, ``elbow``, ``wrist``: 1 for the ``-1`` branch) and
``tag``; the output payload the six joint angles (:data:`JOINT_FIELDS`, binary angles of the
port width), ``unreachable`` and ``tag``.
"""

import numpy as np

from robohw.hw.fixed import FixedFormat

__all__ = ["POSE_INPUTS", "JOINT_FIELDS", "pose_inputs", "poses_from_inputs", "encode_poses",
           "joint_angles", "payload_joint_angles", "field_formats"]

POSE_INPUTS = ("nx", "ny", "nz", "ox", "oy", "oz", "ax", "ay", "az", "px", "py", "pz")
JOINT_FIELDS = tuple(f"q{k}" for k in range(1, 7))


def pose_inputs(pose):
    """The graph inputs ``{"nx": .., "pz": ..}`` of hand poses ``(..., 4, 4)``: the columns
    ``n``, ``o``, ``a``, ``p`` of ``[[n o a p], [0 0 0 1]]``."""
    pose = np.asarray(pose)
    return {n: pose[..., "xyz".index(n[1]), "noap".index(n[0])] for n in POSE_INPUTS}


def poses_from_inputs(values):
    """Hand poses ``(B, 4, 4)`` from an array ``(B, 12)`` of the :data:`POSE_INPUTS` in order."""
    values = np.asarray(values, dtype=np.float64)
    poses = np.tile(np.eye(4), (len(values), 1, 1))
    for k, name in enumerate(POSE_INPUTS):
        poses[:, "xyz".index(name[1]), "noap".index(name[0])] = values[:, k]
    return poses


def encode_poses(inputs, width, frac_bits):
    """Payload codes ``{"nx": (B,) int64, ..}`` of graph ``inputs`` (:func:`pose_inputs`) in
    ``fixed(width, frac_bits)``. A real outside the format raises ``OverflowError``."""
    fmt = FixedFormat(width, frac_bits)
    return {n: fmt.from_float(inputs[n]) for n in POSE_INPUTS}


def joint_angles(out):
    """Joint angles ``(B, 6)`` from the model's outputs ``{"q1": (B,), ..}`` (radians)."""
    return np.stack([out[name] for name in JOINT_FIELDS], -1)


def payload_joint_angles(outputs, width):
    """Joint angles ``(B, 6)`` in radians from a run's output payloads (binary angles of
    ``width`` bits)."""
    q = np.array([[o[name] for name in JOINT_FIELDS] for o in outputs], dtype=np.float64)
    return q.reshape(-1, len(JOINT_FIELDS)) * (2 * np.pi / 2 ** width)


def field_formats(width, frac_bits, branches):
    """Every payload field's number format, as an export sidecar states it."""
    out = {n: f"fixed({width}, {frac_bits})" for n in POSE_INPUTS}
    out.update({b: "bit" for b in branches})
    out.update({name: f"angle({width})" for name in JOINT_FIELDS})
    out.update({"unreachable": "bit", "tag": "tag"})
    return out
