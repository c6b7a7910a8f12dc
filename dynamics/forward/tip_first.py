"""The inertia matrix solved tip first, written over scalars for hardware: ``H = L^T D L``
(``L`` unit lower triangular), then ``L^T z = rhs``, ``w = D^-1 z``, ``L x = w``; what the
solved-inertia plan (:mod:`robohw.dynamics.forward.solved_plan`) traces.

Taken from the last joint to the first, the pivots ``D_k`` are the joints' articulated inertias
(Featherstone's ``L^T D L`` factorisation), whose lower bounds
:mod:`robohw.dynamics.forward.divisors` proves, so every range is proven (0-based joints, ``m_i``
an upper bound on ``H_ii``, ``d_k`` the lower bound on ``D_k``):

- ``D_k`` in ``[d_k, m_k]``; the entries of each Schur complement ``H^(k)`` (joints ``0..k``
  left) are those of a positive definite matrix at most ``H``'s leading block, so its diagonal
  lies in ``[d_i, m_i]`` and ``|H^(k)_ij| <= sqrt(m_i m_j)``; so is what each step takes off,
  ``H^(k)_ik H^(k)_jk / D_k``;
- ``L_kj = H^(k)_jk / D_k``: ``|L_kj| <= sqrt(H^(k)_jj / D_k) <= sqrt(m_j / d_k)``;
- where the accelerations ``x`` are within their limits ``a`` (assumed, so checked): ``w = L x``,
  ``|w_k| <= a_k + sum_{j<k} |L_kj| a_j``, and ``z = D w``.
"""

import math

__all__ = ["tip_first_solve"]


def tip_first_solve(h, rhs, arith, largest, least, limits):
    """The ``N`` solutions ``x`` of ``H x = rhs`` over scalars.

    ``h``: ``{(i, j): H_ij}`` for ``i <= j`` (0-based); ``rhs``: ``N`` scalars; ``arith``: see
    :mod:`robohw.robots.algebra`; ``largest``, ``least``: per joint, an upper bound on ``H_ii``
    and a lower bound on the tip-first pivot ``D_i``; ``limits``: the bound each ``x_i`` is
    assumed within (``arith.assume``). Joint ``k``'s factorisation runs in
    ``arith.cell("factor", None, k)``, its solves in ``arith.cell("solve", None, k)``."""
    n = len(rhs)
    h = dict(h)
    unit, recip = {}, [None] * n
    for k in reversed(range(n)):
        with arith.cell("factor", None, k):
            pivot = arith.within([h[k, k]], least[k], largest[k])[0]
            recip[k] = arith.reciprocal(pivot)
            for j in range(k):
                unit[k, j] = arith.bound([h[j, k] * recip[k]],
                                         math.sqrt(largest[j] / least[k]))[0]
            for i in range(k):
                for j in range(i, k):
                    taken = arith.bound([unit[k, i] * h[j, k]],
                                        math.sqrt(largest[i] * largest[j]))[0]
                    left = h[i, j] - taken
                    h[i, j] = arith.within([left], least[i], largest[i])[0] if i == j else \
                        arith.bound([left], math.sqrt(largest[i] * largest[j]))[0]
    reach = [limits[k] + sum(math.sqrt(largest[j] / least[k]) * limits[j] for j in range(k))
             for k in range(n)]
    z = [None] * n
    for k in reversed(range(n)):
        with arith.cell("solve", None, k):
            value = rhs[k]
            for i in range(k + 1, n):
                value = value - unit[i, k] * z[i]
            z[k] = arith.assume([value], largest[k] * reach[k])[0]
    x = []
    for k in range(n):
        with arith.cell("solve", None, k):
            value = arith.assume([z[k] * recip[k]], reach[k])[0]
            for j in range(k):
                value = value - unit[k, j] * x[j]
            x.append(arith.assume([value], limits[k])[0])
    return x
