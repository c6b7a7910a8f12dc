"""An allocation run on the network: which slave of the tree gets which processor's subtasks,
and the simulated sample (:func:`robohw.transputer.network.simulate`).

The paper names its processors ``P1``-``Pm`` but does not say which of them sit on the first
level of the tree. Here the heaviest loads go where the state arrives first: the
allocation's processors, by computing time from the largest down, fill the tree in its own
order (first level first, :func:`~robohw.transputer.topology.tree`).
"""

from dataclasses import dataclass

from robohw.transputer.allocation import loads
from robohw.transputer.network import Links, Sample, simulate
from robohw.transputer.topology import tree

__all__ = ["Run", "run", "communication_ms"]


@dataclass(frozen=True)
class Run:
    """``allocation`` as placed (``allocation[k - 1]``: the subtasks of the tree's slave
    ``P{k}``), ``compute_ms`` per slave and the simulated ``sample``."""
    allocation: tuple
    compute_ms: tuple
    sample: Sample

    @property
    def time_ms(self):
        return self.sample.time_ms

    @property
    def utilisation(self):
        return self.sample.utilisation


def run(allocation, cost_ms, overhead_ms=0.0, links=Links(), reduce_ms=0.0):
    """Simulate ``allocation`` (one tuple of subtasks per slave) with ``cost_ms[subtask]`` and
    ``overhead_ms`` more on every slave, in the tree of as many slaves."""
    computing = [load + overhead_ms for load in loads(allocation, cost_ms)]
    order = sorted(range(len(allocation)), key=lambda p: -computing[p])   # stable
    placed = tuple(allocation[p] for p in order)
    compute_ms = tuple(computing[p] for p in order)
    sample = simulate(tree(len(allocation)), compute_ms, links, reduce_ms)
    return Run(placed, compute_ms, sample)


def communication_ms(topology, links=Links(), reduce_ms=0.0):
    """What each slave's place in ``topology`` adds to its computing time on the way to the
    torques, queueing aside: its state down and its partial sum up, one hop per level, and the
    addition at ``P0``. The optimal allocator's model of the network."""
    return tuple(topology.level(k) * links.round_trip_ms + reduce_ms
                 for k in range(1, topology.processors + 1))
