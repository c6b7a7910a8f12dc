"""The bit-exact model of the link computers (:class:`~robohw.distributed.plan.LinkComputersPlan`):
a run of consecutive samples to the torque codes the processors give, every operation the
fixed-point arithmetic of its traced node (:func:`robohw.dataflow.evaluate.fixed_op`), exact at
any width (Python integers above 31 bits).

A channel input is its producer's value of the same sample where the scheme waits for it and
of the previous sample where it predicts (the first sample of a run, and any sample marked
``restart``, is exact: the thesis's initial conditions), as in
:mod:`robohw.reference.prediction`; each link's terms are evaluated once for the whole run.

A torque is valid when its sample and every sample it depends on through predictions were
within the proven ranges: :func:`prediction_depth` samples back, up to the last restart.
"""

import numpy as np

from robohw.dataflow.evaluate import evaluate_fixed
from robohw.dataflow.plan import _input_codes, in_bounds
from robohw.dataflow.states import decode_torques, encode_states
from robohw.reference.link_terms import BACKWARD, FORWARD, TERMS
from robohw.reference.prediction import PREDICTED

__all__ = ["prediction_depth", "model_run", "model_torques"]


def prediction_depth(plan):
    """Samples back a torque depends on: ``n - 1`` through predicted forward terms (link 1's
    values reach link ``n`` one link a sample) and ``n - 1`` more through predicted backward
    ones."""
    predicted = set(PREDICTED[plan.scheme])
    return (plan.dof - 1) * (bool(predicted & set(FORWARD)) + bool(predicted & set(BACKWARD)))


def _previous(codes, restart):
    """Each sample's code from the sample before, the sample's own where ``restart``."""
    out = np.concatenate([codes[:1], codes[:-1]])
    out[restart] = codes[restart]
    return out


def model_run(plan, codes, restart=None):
    """``({k: (K,) torque codes}, (K,) valid)`` of a run of ``K`` samples given as payload
    codes (:func:`robohw.dataflow.states.encode_states`); ``restart`` ``(K,)`` bool marks the
    samples that start again from exact values (default: the first only)."""
    count = len(np.atleast_1d(codes["qd1"]))
    restart = np.zeros(count, dtype=bool) if restart is None else \
        np.asarray(restart, dtype=bool).copy()
    if restart.shape != (count,):
        raise ValueError(f"restart must have one flag per sample ({count}), not "
                         f"{restart.shape}")
    restart[0] = True
    inside = in_bounds(plan, codes)
    nodes, live = plan.tracer.nodes, plan.live
    inputs = _input_codes(plan, codes)
    wide = plan.width > 31
    for name, code in plan.constants.items():
        inputs[name] = np.full(count, code, dtype=object if wide else np.int64)
    # Out of bounds, registers may wrap: the hardware's values, never marked valid.
    overflow = "raise" if inside.all() else "wrap"
    cells = {}
    for k in live:
        cell = nodes[k].cell
        key = (cell[1], cell[2]) if cell and cell[0] == "link" else "given"
        cells.setdefault(key, []).append(k)
    known = evaluate_fixed(plan.tracer, [k for k in cells["given"] if nodes[k].op != "input"
                                         or nodes[k].name not in plan.channels],
                           plan.formats, inputs, plan.width, overflow)
    predicted = set(PREDICTED[plan.scheme])
    n = plan.dof
    order = [(i, term) for i in range(n) for term in TERMS[:5]] + \
            [(i, term) for i in reversed(range(n)) for term in TERMS[5:]]
    for link, term in order:
        for name, producer in plan.channels.items():
            receiver, sent = name[2:].split("_", 1)
            if int(receiver) == link and sent[:-1] in _READS[term] and name not in inputs:
                value = known[producer]
                inputs[name] = _previous(value, restart) if sent[:-1] in predicted else value
        channel_nodes = [k for k in cells["given"] if nodes[k].op == "input" and
                         nodes[k].name in inputs and nodes[k].name in plan.channels and
                         k not in known]
        known.update(evaluate_fixed(plan.tracer, channel_nodes, plan.formats, inputs,
                                    plan.width, overflow))
        known.update(evaluate_fixed(plan.tracer, cells.get((link, term), []), plan.formats,
                                    inputs, plan.width, overflow, known=known))
    out = {k: known[plan.outputs[k].index] for k in range(1, n + 1)}
    return out, _valid(inside, restart, prediction_depth(plan))


# The neighbours' terms each term's computation reads (its channel inputs).
_READS = {"AW": {"AW"}, "AWd": {"AW", "AWd"}, "Aa": {"Aa"}, "AF": set(), "AN": set(),
          "Af": {"Af"}, "An": {"An"}, "u": set()}


def _valid(inside, restart, depth):
    """A sample is valid when it and the ``depth`` before it, back to the last restart, were
    in bounds."""
    valid = np.empty(len(inside), dtype=bool)
    last_bad = last_restart = -1
    for k, ok in enumerate(inside):
        last_restart = k if restart[k] else last_restart
        last_bad = last_bad if ok else k
        valid[k] = last_bad < max(last_restart, k - depth)
    return valid


def model_torques(plan, q, qd, qdd, restart=None):
    """``(tau (K, N), valid (K,))`` of a run of consecutive samples through the model."""
    codes = encode_states(plan, q, qd, qdd)
    out, valid = model_run(plan, codes, restart)
    return decode_torques(plan, out), valid
