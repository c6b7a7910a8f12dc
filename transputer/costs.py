"""Per-subtask costs on a T800 calibrated to Zomaya & Morris's measurements.

The paper timed each subtask off-line but printed only totals and utilizations. The costs
``c_s`` (ms) and a per-slave overhead ``k_m`` for each network are solved from what it printed:
for each network of ``m`` slaves and each slave ``p`` of it, the subtasks the paper's table
gives ``p`` and the overhead fill its busy time, ``sum_{s on p} c_s + k_m = U_p T_p(m)``
(24 equations), and one slave alone takes ``sum_s c_s = T_p(1) = 25.6`` ms. Those are 25
equations in 68 unknowns, so the solution is the one closest to a prior (each subtask's
operation count, :mod:`robohw.transputer.counts`, scaled to 25.6 ms), each cost's distance
from it relative to it, with every cost and overhead non-negative: a least-squares problem
whose equations weigh :data:`EQUATION_WEIGHT` times the prior's. The network simulation
(:mod:`robohw.transputer.network`) adds each slave's own link time to its computing, so for it
the fit takes that time off every busy time and off the one-slave total first (``link_ms``);
its equations are then met to 0.026 ms, not exactly (an overhead cannot go below zero), and
the simulated tables are a consistency check, not a prediction.
"""

from dataclasses import dataclass

import numpy as np
from scipy.optimize import lsq_linear

from robohw.hw.checks import check_number
from robohw.transputer.allocation import paper_allocation
from robohw.transputer.counts import subtask_counts
from robohw.transputer.lagrange_euler_tasks import PAPER_SUBTASKS
from robohw.transputer.measured import TIME_MS, busy_ms

__all__ = ["EQUATION_WEIGHT", "CalibratedCosts", "calibrate"]

EQUATION_WEIGHT = 1e4


@dataclass(frozen=True)
class CalibratedCosts:
    """``cost_ms``: ``{subtask: ms}``; ``overhead_ms``: ``{m: k_m}``; ``residual_ms``: the
    largest miss of the 25 equations; ``prior_ms``: ``{subtask: ms}`` it was drawn toward."""
    cost_ms: dict
    overhead_ms: dict
    residual_ms: float
    prior_ms: dict

    def share(self, kind, i=None):
        """Fraction of the 25.6 ms spent on the subtasks of ``kind`` (and first index ``i``)."""
        part = sum(c for task, c in self.cost_ms.items()
                   if task.kind == kind and (i is None or task.i == i))
        return part / sum(self.cost_ms.values())


def calibrate(robot, networks=(3, 6, 7, 8), link_ms=0.0):
    """Calibrate the costs of :data:`~robohw.transputer.lagrange_euler_tasks.PAPER_SUBTASKS` on
    ``robot`` (the Stanford arm's file) to the paper's tables for ``networks``.

    ``link_ms``: the time a slave spends on its own links inside its busy time (receiving the
    state, sending its partial sum: :mod:`robohw.transputer.network`), taken off every busy
    time and off the one-slave total before the fit, so that the costs and overheads are what
    the processors computed. With it the equations need not be met exactly (the overheads
    cannot go below zero): ``residual_ms`` says how far they are not."""
    check_number("link_ms", link_ms, minimum=0)
    tasks = list(PAPER_SUBTASKS)
    index = {task: k for k, task in enumerate(tasks)}
    counts = subtask_counts(robot, tasks)
    work = np.array([sum(counts[task]) for task in tasks], dtype=float)
    prior = work / work.sum() * (TIME_MS[1] - link_ms)
    unknowns = len(tasks) + len(networks)
    rows, targets = [], []
    for n, m in enumerate(networks):
        for p, (assigned, busy) in enumerate(zip(paper_allocation(m), busy_ms(m))):
            row = np.zeros(unknowns)
            row[[index[task] for task in assigned]] = 1.0
            row[len(tasks) + n] = 1.0
            rows.append(row)
            targets.append(busy - link_ms)
    whole = np.zeros(unknowns)
    whole[:len(tasks)] = 1.0
    rows.append(whole)
    targets.append(TIME_MS[1] - link_ms)
    equations, targets = np.array(rows), np.array(targets)
    # Relative to the prior: a cheap subtask is not driven to nothing to spare a costly one.
    toward = np.hstack([np.diag(1 / prior), np.zeros((len(tasks), len(networks)))])
    system = np.vstack([EQUATION_WEIGHT * equations, toward])
    wanted = np.concatenate([EQUATION_WEIGHT * targets, np.ones(len(tasks))])
    solution = lsq_linear(system, wanted, bounds=(0, np.inf), tol=1e-14, lsmr_tol="auto",
                          max_iter=10_000).x
    residual = float(np.abs(equations @ solution - targets).max())
    return CalibratedCosts(
        cost_ms={task: float(solution[index[task]]) for task in tasks},
        overhead_ms={m: float(solution[len(tasks) + n]) for n, m in enumerate(networks)},
        residual_ms=residual,
        prior_ms={task: float(prior[index[task]]) for task in tasks})
