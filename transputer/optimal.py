"""The allocation of least makespan, as a mixed-integer program solved by HiGHS
(:func:`scipy.optimize.milp`), and the checks that make its answer trustworthy.

The makespan of an allocation to the slaves of a tree is the largest, over the slaves, of the
costs of its subtasks plus what its place in the tree adds
(:func:`robohw.transputer.machine.communication_ms`): ``x[u, p] = 1`` puts unit ``u``
(:func:`~robohw.transputer.allocation.units`: a bundle or a subtask) on slave ``p``;
minimize ``z`` subject to ``sum_p x[u, p] = 1`` and ``sum_u c_u x[u, p] + comm_p <= z``.
Slaves with the same ``comm_p`` are interchangeable, so their loads are required to fall in
their order (symmetry breaking: it removes only relabelled copies of solutions).

``milp`` has been seen to report "Optimal" wrongly, so its answer counts as optimal only when
(i) HiGHS reports a zero gap between its solution and its dual bound, (ii) the makespan
recomputed from the solution's 0/1 values equals its objective, (iii) it is at least the
independent lower bound :func:`lower_bound_ms` and (iv) at most the longest-processing-time
allocation's makespan on the same model, a feasible point it must not be worse than. A search
cut short by its time limit is not certified; if its best is worse than LPT's, LPT's allocation
is returned instead.
"""

import contextlib
import math
import os
import sys
from dataclasses import dataclass

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from robohw.transputer.allocation import loads, lpt_allocation, units
from robohw.transputer.lagrange_euler_tasks import PAPER_SUBTASKS

__all__ = ["TICK_MS", "Optimal", "makespan_ms", "lower_bound_ms", "optimal_allocation"]

# The solver's unit of time, the resolution of the paper's Table 5 (3.34 ms): each subtask's
# cost is rounded to it, and the makespan is a whole number of it.
TICK_MS = 0.01


@dataclass(frozen=True)
class Optimal:
    """The allocation (``P1`` first, one place per slave as ``comm_ms`` orders them), its
    ``makespan_ms``, HiGHS' ``dual_bound_ms`` and ``gap``, our ``lower_bound_ms``, the
    longest-processing-time ``lpt_ms``, and ``certified``: all four checks hold (module
    docstring). ``reason`` says which failed, if one did."""
    allocation: tuple
    makespan_ms: float
    dual_bound_ms: float
    gap: float
    lower_bound_ms: float
    lpt_ms: float
    certified: bool
    reason: str = ""


@contextlib.contextmanager
def _native_stdout_silenced():
    """HiGHS' C++ writes debugging lines to the process's standard output even with ``disp``
    off ("HighsMipSolverData::transformNewIntegerFeasibleSolution ..."): point file
    descriptor 1 at the null device while it runs."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def makespan_ms(allocation, cost, comm_ms):
    """The model's makespan: the largest ``load + comm`` over the slaves."""
    return max(load + c for load, c in zip(loads(allocation, cost), comm_ms))


def lower_bound_ms(cost, comm_ms, subtasks=PAPER_SUBTASKS):
    """A bound no allocation beats, found without the solver: every unit sits on some slave
    (the largest unit plus the smallest ``comm``), and the slaves share all the work (the
    total plus every ``comm``, over their number)."""
    weights = loads(units(subtasks), cost)
    return max(max(weights) + min(comm_ms), (sum(weights) + sum(comm_ms)) / len(comm_ms))


def optimal_allocation(cost, comm_ms, subtasks=PAPER_SUBTASKS, time_limit_s=60.0):
    """The least-makespan allocation of ``subtasks`` (``cost[subtask]``, ms) to slaves whose
    places add ``comm_ms`` (one per slave), within ``time_limit_s`` of solver time."""
    slaves = len(comm_ms)
    placed = units(subtasks)
    # In whole ticks, the makespan too: HiGHS then rounds its bound up to the next tick, which
    # closes the gap as soon as a solution reaches it (with fractions it rarely can).
    comm = np.round(np.asarray(comm_ms, dtype=float) / TICK_MS)
    ticks = {task: round(cost[task] / TICK_MS) for task in subtasks}
    weight = np.asarray(loads(placed, ticks), dtype=float)
    n_units = len(placed)

    def var(u, p):
        return u * slaves + p
    z = n_units * slaves
    objective = np.zeros(z + 1)
    objective[z] = 1.0
    rows, low, high = [], [], []

    def constrain(row, lower, upper):
        rows.append(row)
        low.append(lower)
        high.append(upper)
    for u in range(n_units):                              # each unit on exactly one slave
        row = np.zeros(z + 1)
        row[[var(u, p) for p in range(slaves)]] = 1.0
        constrain(row, 1.0, 1.0)
    for p in range(slaves):                               # load + comm <= z
        row = np.zeros(z + 1)
        row[[var(u, p) for u in range(n_units)]] = weight
        row[z] = -1.0
        constrain(row, -np.inf, -comm[p])
    for p in range(slaves - 1):                           # interchangeable slaves: loads fall
        if comm[p] == comm[p + 1]:
            row = np.zeros(z + 1)
            row[[var(u, p) for u in range(n_units)]] = weight
            row[[var(u, p + 1) for u in range(n_units)]] = -weight
            constrain(row, 0.0, np.inf)
    integrality = np.ones(z + 1)
    upper = np.ones(z + 1)
    upper[z] = np.inf
    with _native_stdout_silenced():
        result = milp(objective, constraints=LinearConstraint(np.array(rows), low, high),
                      integrality=integrality, bounds=Bounds(np.zeros(z + 1), upper),
                      options={"time_limit": time_limit_s, "mip_rel_gap": 0.0})
    lpt = lpt_allocation(ticks, slaves, subtasks, start_ms=comm)
    lpt_ticks = makespan_ms(lpt, ticks, comm)
    bound = math.ceil(lower_bound_ms(ticks, comm, subtasks) - 1e-9)
    if result.x is None:
        return Optimal(lpt, lpt_ticks * TICK_MS, float("nan"), float("inf"), bound * TICK_MS,
                       lpt_ticks * TICK_MS, False, f"HiGHS found no solution: {result.message}")
    chosen = np.round(result.x[:z]).reshape(n_units, slaves)
    allocation = tuple(tuple(task for u in range(n_units) if chosen[u, p] for task in placed[u])
                       for p in range(slaves))
    span = makespan_ms(allocation, ticks, comm)
    dual = math.ceil(result.mip_dual_bound - 1e-6)
    checks = [
        (result.status == 0 and span <= dual,
         f"HiGHS left a gap: {result.message}, {span} ticks against a bound of {dual}"),
        (span == round(result.fun), f"the solution's makespan {span} ticks is not its objective "
                                    f"{result.fun}"),
        (span >= bound, f"the makespan {span} ticks is below the lower bound {bound}"),
        (span <= lpt_ticks, f"the makespan {span} ticks is worse than LPT's {lpt_ticks}"),
    ]
    failed = [why for ok, why in checks if not ok]
    if failed and lpt_ticks < span:           # cut short with a worse incumbent: keep LPT's
        allocation, span = lpt, lpt_ticks
        failed[0] += "; LPT's allocation is better and is the one returned"
    return Optimal(allocation, span * TICK_MS, dual * TICK_MS, float(result.mip_gap),
                   bound * TICK_MS, lpt_ticks * TICK_MS, not failed,
                   failed[0] if failed else "")
