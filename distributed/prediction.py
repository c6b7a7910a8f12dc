"""The thesis's schemes for its link computers, simulated in sampled time (float64): what
torques each gives at every sample of a trajectory.

Each link's computer evaluates its eight terms (:mod:`robohw.distributed.link_terms`) once per
sample. The terms it needs from its neighbours (``AW``, ``AWd``, ``Aa`` from link ``i - 1``,
``Af``, ``An`` from link ``i + 1``) are, by scheme (:data:`PREDICTED`):

- ``serial``, ``v1``, ``v2``: the neighbour's of this sample (the computers wait for them):
  the exact Newton-Euler torques; they differ only in time (:mod:`robohw.distributed.timing`).
- ``zero`` (zero-order prediction, section 5.2.1): all five are the neighbour's of the
  previous sample, as the neighbour computed them (itself from predictions). In hardware, a
  register of one sample on every channel between computers.
- ``first`` (first-order prediction, section 5.2.2): the forward ones corrected. Computer
  ``i - 1`` also computes, at sample ``k``, ``cW_i = R_{i-1}^T (cW_{i-1} + Z0 (qd_{i-1}(k) -
  qd_{i-1}(k-1)))``, the change of its ``AW`` over one sample in its frame, from ``cW_{i-1}``
  (its predecessor's, received from sample ``k - 1``; zero at link 1; no ``Z0`` term at a
  prismatic joint), the same ``cWd_i`` with ``qdd``, and sends ``AW + cW_i``, ``AWd + cWd_i``
  and ``Aa + cWd_i x AS + cW_i x (cW_i x AS)`` (eqs. 5.1-16, 5.1-17, 5.1-21 to 5.1-23): 77
  operations more per link (:data:`CORRECTION_OPERATIONS`). The printed recursion mixes
  frames (docs/distributed.md); this is the frame-consistent reading. ``Af`` and ``An`` are
  predicted as in ``zero``.
- ``hybrid`` (section 5.2.3): ``Aa`` and ``An`` from the previous sample, ``AW``, ``AWd`` and
  ``Af`` from this one.

At sample 0 every computer uses its neighbours' values of sample 0 (the thesis's "initial and
end conditions": the robot starts at rest, so they are exact). Samples are arrays: a scheme
that takes a value from the previous sample reads it shifted by one (the first sample's
repeated), so each link's terms are evaluated once for the whole trajectory, links in order
(forward terms from the base out, backward terms from the hand in), whatever the scheme.
"""

import numpy as np

from robohw.distributed.link_terms import (
    BACKWARD,
    FORWARD,
    backward_terms,
    base_terms,
    body_terms,
    end_terms,
    forward_terms,
    joint_torque,
    link_states,
)
from robohw.hw.checks import check_choice
from robohw.robots.algebra import cross, matTvec, vadd

__all__ = ["SCHEMES", "PREDICTED", "CORRECTION_OPERATIONS", "scheme_torques", "error_percent"]

SCHEMES = ("serial", "v1", "v2", "zero", "first", "hybrid")
PREDICTED = {"serial": (), "v1": (), "v2": (), "zero": FORWARD + BACKWARD,
             "first": FORWARD + BACKWARD, "hybrid": ("Aa", "An")}
# First-order prediction's corrections (section 5.2.2): for AW and for AWd two vector additions,
# a matrix-vector product and a subtraction (9 + 13 each); for Aa three cross products and two
# vector additions (18 + 15): 36 multiplications and 41 additions.
CORRECTION_OPERATIONS = (36, 41)


def _previous(vector):
    """Each sample's value from the sample before (the first sample's own at sample 0)."""
    return tuple(np.concatenate([x[:1], x[:-1]]) for x in vector)


def _changes(values):
    """``values(k) - values(k - 1)``, 0 at sample 0."""
    return np.concatenate([np.zeros(1), np.diff(values)])


def scheme_torques(robot, q, qd, qdd, scheme):
    """``(K, N)`` torques (N m, or N at a prismatic joint) the link computers give under
    ``scheme`` (:data:`SCHEMES`) at the ``K`` consecutive samples ``q``, ``qd``, ``qdd``
    (``(K, N)``, one sample period apart)."""
    check_choice("scheme", scheme, SCHEMES)
    links = link_states(robot, q, qd, qdd)
    count, n = len(np.atleast_2d(q)), robot.dof
    predicted = PREDICTED[scheme]

    def arriving(name, value):
        return _previous(value) if name in predicted else value

    sent = base_terms(robot, count)
    correction = {"AW": (np.zeros(count),) * 3, "AWd": (np.zeros(count),) * 3}
    bodies = []
    for k, link in enumerate(links):
        inputs = {name: arriving(name, sent[name]) for name in FORWARD}
        terms = dict(zip(FORWARD, forward_terms(link, inputs["AW"], inputs["AWd"],
                                                inputs["Aa"])))
        bodies.append(body_terms(link, terms["AW"], terms["AWd"], terms["Aa"]))
        sent = dict(terms)
        if scheme == "first" and k + 1 < n:
            sent, correction = _corrected(link, terms, correction,
                                          np.atleast_2d(qd)[:, k], np.atleast_2d(qdd)[:, k])
    sent = end_terms(count)
    tau = np.zeros((count, n))
    for k in reversed(range(n)):
        f, n_ = backward_terms(links[k], *bodies[k], arriving("Af", sent["Af"]),
                               arriving("An", sent["An"]))
        tau[:, k] = joint_torque(links[k], f, n_)
        sent = {"Af": f, "An": n_}
    return tau


def _corrected(link, terms, received, qd, qdd):
    """What a link's computer sends its successor under first-order prediction, and its
    corrections ``cW``, ``cWd`` for the successor's (the module docstring)."""
    incoming = {name: _previous(value) for name, value in received.items()}
    if link.revolute:
        zero = np.zeros_like(qd)
        incoming = {"AW": vadd(incoming["AW"], (zero, zero, _changes(qd))),
                    "AWd": vadd(incoming["AWd"], (zero, zero, _changes(qdd)))}
    corrections = {name: matTvec(link.R, value) for name, value in incoming.items()}
    cW, cWd = corrections["AW"], corrections["AWd"]
    sent = {"AW": vadd(terms["AW"], cW), "AWd": vadd(terms["AWd"], cWd),
            "Aa": vadd(vadd(terms["Aa"], cross(cWd, link.AS)),
                       cross(cW, cross(cW, link.AS)))}
    return sent, corrections


def error_percent(tau, exact):
    """The thesis's error per joint (section 6.1): the RMS of ``tau - exact`` over
    the samples, over the exact torque's range (max - min), in percent; 0 where the exact
    torque is constant and matched, ``inf`` where it is constant and missed."""
    tau, exact = np.atleast_2d(tau), np.atleast_2d(exact)
    rms = np.sqrt(np.mean((tau - exact) ** 2, axis=0))
    span = exact.max(axis=0) - exact.min(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 100 * rms / span
    return np.where(rms == 0, 0.0, out)
