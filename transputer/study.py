"""Zomaya & Morris's experiment rerun: for each number of slaves, an allocation (the paper's
tables, longest-processing-time or optimal) under a cost model (predictive or calibrated),
simulated on the network; time per torque vector, utilisation, speed-up and efficiency.

Speed-up is ``T(1) / T(m)`` with ``T(1)`` the same cost model's one-slave time on the same
network (``P0`` and one slave), efficiency the speed-up over ``m``: the paper's definitions
(Tables 7 and 8; ``m`` counts slaves only).

The cost models:

- ``"predictive"``: :func:`robohw.transputer.predictive.predicted_costs` on the default
  :class:`~robohw.transputer.predictive.T800`; nothing fitted to the paper.
- ``"calibrated"``: :func:`robohw.transputer.costs.calibrate` with the slaves' own link time
  taken off their busy times, so that the simulation adds it back; the per-slave overheads it
  fits exist for 3, 6, 7 and 8 slaves (other networks get none). A consistency check of the
  simulation against the tables the costs came from, not a prediction.
"""

from dataclasses import dataclass
from functools import cache

from robohw.hw.checks import check_choice, check_integer
from robohw.robots import load_robot
from robohw.transputer.allocation import PAPER_TABLES, lpt_allocation, paper_allocation
from robohw.transputer.costs import calibrate
from robohw.transputer.lagrange_euler_tasks import PAPER_SUBTASKS
from robohw.transputer.machine import communication_ms, run
from robohw.transputer.network import Links
from robohw.transputer.optimal import optimal_allocation
from robohw.transputer.predictive import T800, Work, predicted_costs
from robohw.transputer.topology import tree

__all__ = ["ALLOCATIONS", "COSTS", "MAX_PROCESSORS", "CostModel", "cost_model", "Row",
           "check_processors", "study"]

ALLOCATIONS = ("paper", "lpt", "optimal")
COSTS = ("predictive", "calibrated")
MAX_PROCESSORS = 64         # one subtask per slave, the paper's extreme (Z:L312)


@dataclass(frozen=True)
class CostModel:
    """``cost_ms[subtask]``; what every slave spends besides its subtasks, ``slave_ms``, and
    more on networks of ``m`` slaves, ``overhead_ms[m]`` (where fitted); the time ``P0`` takes
    to add a partial sum, ``reduce_ms``; the ``links``."""
    name: str
    cost_ms: dict
    slave_ms: float
    overhead_ms: dict
    reduce_ms: float
    links: Links

    def overhead(self, m):
        """Each slave's time besides its subtasks on a network of ``m`` slaves."""
        return self.slave_ms + self.overhead_ms.get(m, 0.0)


@cache
def _stanford():
    return load_robot("stanford")


def cost_model(costs, links=Links(), timing=T800()):
    """The :class:`CostModel` ``costs`` (``"predictive"`` or ``"calibrated"``) of the Stanford
    arm's 64 subtasks on ``links``."""
    check_choice("costs", costs, COSTS)
    reduce_ms = timing.time_ms(Work(0, links.partial_words))
    if costs == "predictive":
        cost_ms, slave_ms = predicted_costs(_stanford(), timing)
        return CostModel(costs, cost_ms, slave_ms, {}, reduce_ms, links)
    fit = calibrate(_stanford(), link_ms=links.round_trip_ms)
    return CostModel(costs, fit.cost_ms, 0.0, fit.overhead_ms, reduce_ms, links)


@dataclass(frozen=True)
class Row:
    """One run: ``processors`` (slaves), ``allocation`` and ``costs`` (their names),
    ``time_ms`` per torque vector, ``speedup``, ``efficiency``, ``utilisation`` per slave
    (``P1`` first, as placed), the :class:`~robohw.transputer.machine.Run` ``run``, and for an
    optimal allocation its :class:`~robohw.transputer.optimal.Optimal` ``optimal``."""
    processors: int
    allocation: str
    costs: str
    time_ms: float
    speedup: float
    efficiency: float
    utilisation: tuple
    run: object
    optimal: object = None

    def as_json(self):
        out = {key: getattr(self, key) for key in
               ("processors", "allocation", "costs", "time_ms", "speedup", "efficiency")}
        out["utilisation"] = list(self.utilisation)
        if self.optimal is not None:
            out["optimal_certified"] = self.optimal.certified
            out["optimal_gap"] = self.optimal.gap
        return out


def _allocate(m, allocation, model, time_limit_s):
    if m == 1:
        return (PAPER_SUBTASKS,), None
    if allocation == "paper":
        return paper_allocation(m), None
    comm = tuple(c + model.overhead(m)
                 for c in communication_ms(tree(m), model.links, model.reduce_ms))
    if allocation == "lpt":
        return lpt_allocation(model.cost_ms, m, start_ms=comm), None
    found = optimal_allocation(model.cost_ms, comm, time_limit_s=time_limit_s)
    return found.allocation, found


def check_processors(processors, allocation):
    """``processors`` as a tuple, or ``ValueError`` naming the first that cannot be run."""
    processors = tuple(processors)
    for m in processors:
        check_integer("processors", m, minimum=1, maximum=MAX_PROCESSORS)
        if allocation == "paper" and m != 1 and m not in PAPER_TABLES:
            raise ValueError(f"the paper allocates to 1, "
                             f"{', '.join(map(str, PAPER_TABLES))} slaves, not {m}")
    return processors


def study(processors=(1, 3, 6, 7, 8), allocation="paper", costs="predictive", links=Links(),
          time_limit_s=60.0, progress=None):
    """One :class:`Row` per number of slaves in ``processors``; ``progress`` (a
    :class:`~robohw.support.progress.Progress`-like ``step()``), if given, is told after each."""
    check_choice("allocation", allocation, ALLOCATIONS)
    processors = check_processors(processors, allocation)
    model = cost_model(costs, links)
    one = run((PAPER_SUBTASKS,), model.cost_ms, model.overhead(1), links,
              model.reduce_ms).time_ms
    rows = []
    for m in processors:
        assigned, optimal = _allocate(m, allocation, model, time_limit_s)
        result = run(assigned, model.cost_ms, model.overhead(m), links, model.reduce_ms)
        speedup = one / result.time_ms
        rows.append(Row(m, allocation, costs, result.time_ms, speedup, speedup / m,
                        result.utilisation, result, optimal))
        if progress is not None:
            progress.step(f"{m} slaves")
    return rows
