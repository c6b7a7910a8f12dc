"""The bit-exact model of the link computers (:class:`~robohw.distributed.plan.LinkComputersPlan`):
a run of consecutive samples from reset to the torque codes the processors give, every
operation the fixed-point arithmetic of its traced node
(:func:`robohw.dataflow.evaluate.fixed_op`), exact at any width (Python integers above 31
bits).

A channel input is its producer's value of the same sample where the scheme waits for it and
of the previous sample where it predicts (zero before the first sample: the registers' reset
value), as in :mod:`robohw.distributed.prediction`; each link's terms are evaluated once for the
whole run.

A torque is valid when its sample and the :func:`prediction_depth` samples before it were
within the proven ranges (so the first ``depth`` samples after reset never are). The thesis
starts from exact values (the robot at rest): :func:`warm_up` repeats the first state
``depth`` times before a run, after which every predicted value is its producer's exact one
(each pass carries the exact values one link further); :func:`model_torques` does so.
"""

import numpy as np

from robohw.dataflow.evaluate import evaluate_fixed
from robohw.dataflow.operations import Op
from robohw.dataflow.plan import _input_codes, in_bounds
from robohw.distributed.link_terms import BACKWARD, FORWARD, TERMS
from robohw.dynamics.inverse.codec import decode_torques, encode_states

__all__ = ["prediction_depth", "warm_up", "model_run", "model_torques"]


def prediction_depth(plan):
    """Samples back a torque depends on: ``n - 1`` through predicted forward terms (link 1's
    values reach link ``n`` one link a sample), ``n - 1`` more through predicted backward
    ones, and one more through first-order prediction's changes over a sample."""
    predicted = plan.predicted
    return (plan.dof - 1) * (bool(predicted & set(FORWARD)) + bool(predicted & set(BACKWARD))) \
        + (plan.scheme == "first")


def _previous(codes):
    """Each sample's code from the sample before (zero before the first: the reset value)."""
    return np.concatenate([np.zeros(1, dtype=codes.dtype), codes[:-1]])


def warm_up(codes, depth):
    """Payload codes with the first sample repeated ``depth`` times before the run."""
    return {field: np.concatenate([np.repeat(np.atleast_1d(value)[:1], depth),
                                   np.atleast_1d(value)]) for field, value in codes.items()}


def model_run(plan, codes):
    """``({k: (K,) torque codes}, (K,) valid)`` of a run of ``K`` samples from reset, given
    as payload codes (:func:`robohw.dynamics.inverse.codec.encode_states`)."""
    count = len(np.atleast_1d(codes["qd1"]))
    inside = in_bounds(plan, codes)
    nodes, live = plan.tracer.nodes, plan.live
    inputs = _input_codes(plan, codes)
    wide = plan.width > 31
    for name, code in plan.constants.items():
        inputs[name] = np.full(count, code, dtype=object if wide else np.int64)
    for name, current in plan.previous.items():
        inputs[name] = _previous(np.asarray(inputs[current]))
    # Out of bounds, registers may wrap: the hardware's values, never marked valid.
    overflow = "raise" if inside.all() else "wrap"
    cells = {}
    for k in live:
        cell = nodes[k].cell
        key = (cell[1], cell[2]) if cell and cell[0] == "link" else "given"
        cells.setdefault(key, []).append(k)
    known = evaluate_fixed(plan.tracer, [k for k in cells["given"] if nodes[k].op != Op.INPUT
                                         or nodes[k].name not in plan.channels],
                           plan.formats, inputs, plan.width, overflow)
    predicted = plan.predicted
    n = plan.dof
    order = [(i, term) for i in range(n) for term in TERMS[:5]] + \
            [(i, term) for i in reversed(range(n)) for term in TERMS[5:]]
    for link, term in order:
        for name, producer in plan.channels.items():
            receiver, sent = name[2:].split("_", 1)
            if int(receiver) == link and sent[:-1] in _READS[term] and name not in inputs:
                value = known[producer]
                inputs[name] = _previous(value) if sent[:-1] in predicted else value
        channel_nodes = [k for k in cells["given"] if nodes[k].op == Op.INPUT and
                         nodes[k].name in inputs and nodes[k].name in plan.channels and
                         k not in known]
        known.update(evaluate_fixed(plan.tracer, channel_nodes, plan.formats, inputs,
                                    plan.width, overflow))
        known.update(evaluate_fixed(plan.tracer, cells.get((link, term), []), plan.formats,
                                    inputs, plan.width, overflow, known=known))
    out = {k: known[plan.outputs[k].index] for k in range(1, n + 1)}
    return out, _valid(inside, prediction_depth(plan))


# The neighbours' terms each term's computation reads (its channel inputs).
_READS = {"AW": {"AW", "cW"}, "AWd": {"AW", "AWd", "cWd"}, "Aa": {"Aa"}, "AF": set(),
          "AN": set(), "Af": {"Af"}, "An": {"An"}, "u": set()}


def _valid(inside, depth):
    """A sample is valid when it and the ``depth`` before it (all after reset) were in
    bounds."""
    valid = np.empty(len(inside), dtype=bool)
    last_bad = -1
    for k, ok in enumerate(inside):
        last_bad = last_bad if ok else k
        valid[k] = k >= depth and last_bad < k - depth
    return valid


def model_torques(plan, q, qd, qdd):
    """``(tau (K, N), valid (K,))`` of a run of consecutive samples through the model, after
    the :func:`warm_up` that makes its first sample exact."""
    depth = prediction_depth(plan)
    out, valid = model_run(plan, warm_up(encode_states(plan, q, qd, qdd), depth))
    return decode_torques(plan, {k: v[depth:] for k, v in out.items()}), valid[depth:]
