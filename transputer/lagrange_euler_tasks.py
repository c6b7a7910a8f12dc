"""Zomaya & Morris's 64 Lagrange-Euler subtasks of the Stanford arm, each callable on its own,
and the structural zeros of any serial robot's Lagrange-Euler terms.

The paper splits the torques (:mod:`robohw.transputer.lagrange_euler`) into 17 inertia terms
``D_ij`` (``i <= j``), 43 Coriolis and centripetal terms ``C_ijk`` (``j <= k``; the C_4 and C_5
terms only as two bundles) and 4 gravity terms ``h_i``, one subtask each (joints
1-based as the paper writes them). Each subtask computes its coefficient from the broadcast
state and returns its share of the torque vector (a slave sums its subtasks' shares into the
6-number partial force it sends back):

- ``D_ij``: ``D_ij qdd_j`` to joint ``i`` and, off the diagonal, ``D_ij qdd_i`` to joint ``j``;
- ``C_ijk``: ``C_ijk qd_j qd_k`` to joint ``i``, twice when ``j != k`` (``C_ijk = C_ikj``); and
  the reflexive term (``C_ijk = -C_kji`` for ``i, k >= j``, ``i != k``): ``-C_ijk qd_j qd_i`` to
  joint ``k``, twice when ``j != i``; the paper lists only the member with the smaller first
  index;
- ``h_i``: ``h_i`` to joint ``i``.

The other terms are zero for the Stanford arm's parameters (Paul's: no centre of mass off the
x = 0 plane, links 3, 5 and 6 symmetric about their axes), or identically: the 64 rebuild the
torques exactly (:func:`paper_torques`). Three of the paper's C terms are identically zero
(C^2_13, C^3_44, C^3_45): they stay in the list, as the paper computed them.
"""

from dataclasses import dataclass

import numpy as np

from robohw.robots.algebra import total
from robohw.transputer.lagrange_euler import (
    coriolis_term,
    differential_vectors,
    gravity_in_links,
    gravity_term,
    inertia_term,
    lagrange_euler_terms,
    link_moments,
    link_transforms,
)

__all__ = ["Subtask", "PAPER_SUBTASKS", "subtask_coefficient", "state_vectors",
           "subtask_shares", "paper_torques", "structural_zeros"]


@dataclass(frozen=True)
class Subtask:
    """One term of the Lagrange-Euler torques: ``kind`` ``"D"``, ``"C"`` or ``"h"`` and its
    indices, 1-based (``j`` and ``k`` unused where the kind has none); ``bundle``: the paper's
    bundle it is computed in (``"C4"``, ``"C5"``) or ``None``."""
    kind: str
    i: int
    j: int = 0
    k: int = 0
    bundle: "str | None" = None

    @property
    def name(self):
        """As the paper writes it: ``D12``, ``C1_22``, ``h3``."""
        if self.kind == "D":
            return f"D{self.i}{self.j}"
        if self.kind == "C":
            return f"C{self.i}_{self.j}{self.k}"
        return f"h{self.i}"


def _c_terms(i, pairs, bundle=None):
    return [Subtask("C", i, int(p[0]), int(p[1]), bundle) for p in pairs.split()]


# Spec B.4: the paper's lists (D, h, C^1-C^3), and our inferred contents of the C_4 and C_5
# bundles, with which every allocation table covers the 64 exactly once.
PAPER_SUBTASKS = tuple(
    [Subtask("D", int(p[0]), int(p[1]))
     for p in "11 12 13 14 15 16 22 23 24 25 26 33 35 44 46 55 66".split()]
    + _c_terms(1, "12 13 14 15 22 23 24 25 26 44 45 46 55 56")
    + _c_terms(2, "13 14 15 16 23 24 25 44 45 46 55 56")
    + _c_terms(3, "14 15 24 25 44 45 55")
    + _c_terms(4, "15 16 25 26 45 55 56", "C4")
    + _c_terms(5, "16 26 46", "C5")
    + [Subtask("h", i) for i in (2, 3, 4, 5)])


def subtask_coefficient(task, vectors, gravity, moments, links):
    """The coefficient ``D_ij``, ``C_ijk`` or ``h_i`` of ``task`` on its own, summed over the
    ``links`` (their count) that carry it, in the vector form of
    :func:`~robohw.transputer.lagrange_euler.inertia_term` and its siblings, over scalars of any
    type: ``vectors(joint, link)`` gives ``(delta, d)`` (3-tuples, 0-based indices),
    ``gravity(link)`` the gravity in the link's frame, ``moments[link]`` the link's
    :func:`~robohw.transputer.lagrange_euler.link_moments`."""
    i, j, k = task.i - 1, task.j - 1, task.k - 1
    terms = []
    for l in range(max(i, j, k), links):
        rotation_i, translation_i = vectors(i, l)
        if task.kind == "D":
            terms.append(inertia_term(rotation_i, translation_i, *vectors(j, l), moments[l]))
        elif task.kind == "C":
            rotation_k, translation_k = vectors(k, l)
            terms.append(coriolis_term(rotation_i, translation_i, vectors(j, l)[0], rotation_k,
                                       translation_k, moments[l]))
        else:
            terms.append(gravity_term(rotation_i, translation_i, gravity(l), moments[l]))
    return total(terms)


def state_vectors(robot, q):
    """``(vectors, gravity)`` for :func:`subtask_coefficient` at the states ``q`` ``(B, N)``:
    components as ``(B,)`` arrays."""
    links = link_transforms(robot, q)
    delta, d = differential_vectors(robot, q, links)
    in_links = gravity_in_links(robot, q, links)

    def vectors(joint, link):
        return (tuple(delta[:, joint, link, c] for c in range(3)),
                tuple(d[:, joint, link, c] for c in range(3)))

    def gravity(link):
        return tuple(in_links[:, link, c] for c in range(3))
    return vectors, gravity


def subtask_shares(robot, q, qd, qdd, subtasks=PAPER_SUBTASKS):
    """``{subtask: share}``: each subtask's share of the torques, ``(B, N)``, at the states
    ``(q, qd, qdd)`` ``(B, N)`` (see the module docstring), each coefficient computed on its
    own (:func:`subtask_coefficient`) from the broadcast state's differential vectors."""
    vectors, gravity = state_vectors(robot, q)
    moments = [link_moments(joint) for joint in robot.joints]
    shape = np.atleast_2d(q).shape
    qd, qdd = (np.broadcast_to(np.atleast_2d(np.asarray(v, dtype=np.float64)), shape)
               for v in (qd, qdd))
    shares = {}
    for task in subtasks:
        share = np.zeros(shape)
        i, j, k = task.i - 1, task.j - 1, task.k - 1
        value = subtask_coefficient(task, vectors, gravity, moments, robot.dof)
        if task.kind == "D":
            share[:, i] += value * qdd[:, j]
            if i != j:
                share[:, j] += value * qdd[:, i]
        elif task.kind == "C":
            share[:, i] += value * qd[:, j] * qd[:, k] * (1 if j == k else 2)
            if j <= min(i, k) and i != k:
                share[:, k] -= value * qd[:, j] * qd[:, i] * (1 if j == i else 2)
        else:
            share[:, i] += value
        shares[task] = share
    return shares


def paper_torques(robot, q, qd, qdd):
    """The torques ``(B, N)`` as the paper's network sums them: the 64 subtasks' shares."""
    return sum(subtask_shares(robot, q, qd, qdd).values())


def structural_zeros(robot, q, tolerance=1e-12):
    """The Lagrange-Euler terms of ``robot`` that vanish at every state of ``q`` ``(B, N)``
    (a sample; the caller draws enough states to trust it): ``{"D": [(i, j), ...] (i <= j),
    "C": [(i, j, k), ...] (j <= k), "h": [i, ...]}``, 1-based, each below ``tolerance`` times the
    largest of its kind."""
    D, C, h = lagrange_euler_terms(robot, q)
    n = robot.dof
    d_peak, c_peak, h_peak = (np.abs(x).max(axis=0) for x in (D, C, h))
    d_scale, c_scale, h_scale = (max(x.max(), 1e-300) * tolerance
                                 for x in (d_peak, c_peak, h_peak))
    return {
        "D": [(i + 1, j + 1) for i in range(n) for j in range(i, n)
              if d_peak[i, j] <= d_scale],
        "C": [(i + 1, j + 1, k + 1) for i in range(n) for j in range(n) for k in range(j, n)
              if c_peak[i, j, k] <= c_scale],
        "h": [i + 1 for i in range(n) if h_peak[i] <= h_scale],
    }
