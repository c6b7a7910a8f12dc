"""One sample of Zomaya & Morris's transputer network as a discrete-event simulation: the master
``P0`` broadcasts the joint state down the tree (:mod:`robohw.transputer.topology`), each slave
computes its subtasks, and the partial force vectors come back up to ``P0``, which adds them.

The machine is a fixed graph of activities, each needing one resource for a stated time: a
processor (``"P3"``) or one direction of a link (``"P0>P1"``, ``"P1>P0"``; a T800 link is two
independent channels). An activity starts when all it depends on has ended and its resource is
free, the resource serving what is ready in order (first ready, first served; ties in the order
the activities were made). That is all the simulation needs, so it is a short event loop of its
own rather than SimPy's processes.

What the activities are:

- the state, :attr:`Links.state_words` numbers, goes from ``P0`` to each slave on its links at
  once (Occam ``PAR``; each link has its own DMA engine) and from a first-level slave on to the
  slaves below it after it has all of it (store and forward);
- a slave computes once its state has arrived; its links keep forwarding meanwhile (DMA
  overlapped with computation);
- each slave's partial sum, :attr:`Links.partial_words` numbers, goes up hop by hop, forwarded
  whole by every slave on the way (queued behind what that uplink is already sending);
- ``P0`` adds each partial sum into the torques as it arrives (``reduce_ms`` each).

No link ever carries data both ways at once here: a slave sends up only after its state has
come down, and nothing else goes down a link. So the acknowledge packets of one direction never
delay the data packets of the other, and a byte costs :attr:`Links.bits_per_byte` bit times.

A slave's busy time runs from the start of its state's arrival to the end of its own partial
sum's first hop (what a timer around the slave's ``SEQ in ? state; compute; out ! partial``
measures; forwarding runs in parallel processes and is not counted); its utilisation is that
over the sample's time, so a first-level slave on the critical path is at about 100 %, as in
the paper's Table 6.
"""

import heapq
from dataclasses import dataclass

from robohw.hw.checks import check_number, check_positive_integer
from robohw.transputer.topology import Tree

__all__ = ["Links", "Activity", "Sample", "simulate"]


@dataclass(frozen=True)
class Links:
    """The T800 links and the messages on them.

    Parameters
    ----------
    mbit_per_s : float
        Link bit rate: 10 or 20 Mbit/s on a T800 (the paper does not say; 20 by default).
    bits_per_byte : float
        Bit times per data byte. A data packet is 11 bits (two start bits, 8 data, a stop bit)
        and its 2-bit acknowledge travels back on the other wire; a T800 sends the acknowledge
        as soon as a packet starts to arrive, so the next packet follows with only a
        handshake gap, here half a bit: 20 Mbit/s / 11.5 = 1.74 MB/s, the T800's
        unidirectional figure.
    word_bytes : int
        Bytes per number: 8 for ``REAL64`` (the default), 4 for ``REAL32``.
    state_words, partial_words : int
        The broadcast (joint positions, rates and accelerations, 3 x 6) and a partial force
        vector (6).
    """
    mbit_per_s: float = 20.0
    bits_per_byte: float = 11.5
    word_bytes: int = 8
    state_words: int = 18
    partial_words: int = 6

    def __post_init__(self):
        for name in ("mbit_per_s", "bits_per_byte"):
            check_number(name, getattr(self, name), above=0)
        if self.word_bytes not in (4, 8):
            raise ValueError(f"word_bytes must be 4 (REAL32) or 8 (REAL64), not "
                             f"{self.word_bytes!r}")
        for name in ("state_words", "partial_words"):
            check_positive_integer(name, getattr(self, name))

    def transfer_ms(self, words):
        """Time of one message of ``words`` numbers on one link, in ms."""
        return words * self.word_bytes * self.bits_per_byte / (self.mbit_per_s * 1e3)

    @property
    def round_trip_ms(self):
        """One hop each way: the state down and a partial sum up, in ms."""
        return self.transfer_ms(self.state_words) + self.transfer_ms(self.partial_words)


@dataclass(frozen=True)
class Activity:
    """What ``resource`` (``"P2"``, ``"P0>P1"``) did from ``start_ms`` to ``end_ms``:
    ``kind`` ``"state"``, ``"compute"``, ``"partial"`` or ``"reduce"``; ``slave``: the slave
    it is for (whose state, computation or partial sum)."""
    resource: str
    kind: str
    slave: int
    start_ms: float
    end_ms: float


@dataclass(frozen=True)
class Sample:
    """One torque vector on the network: ``time_ms`` from the start of the broadcast to the
    last partial sum added at ``P0``; ``busy_ms`` and ``utilisation`` per slave, ``P1``
    first (module docstring); ``activities`` in the order they started."""
    time_ms: float
    busy_ms: tuple
    utilisation: tuple
    activities: tuple


def _link(a, b):
    return f"P{a}>P{b}"


def simulate(tree, compute_ms, links=Links(), reduce_ms=0.0):
    """Simulate one sample on ``tree`` with slave ``P{k}`` computing for ``compute_ms[k - 1]``
    ms; ``P0`` takes ``reduce_ms`` to add each partial sum. Returns a :class:`Sample`."""
    if not isinstance(tree, Tree):
        raise TypeError(f"tree must be a Tree, not {tree!r}")
    compute_ms = tuple(compute_ms)
    if len(compute_ms) != tree.processors:
        raise ValueError(f"{len(compute_ms)} compute times for {tree.processors} slaves")
    if any(not t >= 0 for t in compute_ms + (reduce_ms,)):
        raise ValueError("compute and reduce times must be non-negative")

    made = []                               # [resource, kind, slave, duration, deps]

    def make(resource, kind, slave, duration, deps):
        made.append((resource, kind, slave, duration, tuple(deps)))
        return len(made) - 1

    state_in, compute, first_hop = {}, {}, {}
    for slave in range(1, tree.processors + 1):           # parents come before children
        parent = tree.parents[slave - 1]
        state_in[slave] = make(_link(parent, slave), "state", slave,
                               links.transfer_ms(links.state_words),
                               [state_in[parent]] if parent else [])
    for slave in range(1, tree.processors + 1):
        compute[slave] = make(f"P{slave}", "compute", slave, compute_ms[slave - 1],
                              [state_in[slave]])
    for slave in range(1, tree.processors + 1):
        node, previous = slave, compute[slave]
        while node:
            parent = tree.parents[node - 1]
            previous = make(_link(node, parent), "partial", slave,
                            links.transfer_ms(links.partial_words), [previous])
            first_hop.setdefault(slave, previous)
            node = parent
        make("P0", "reduce", slave, reduce_ms, [previous])

    start, end = _run(made)
    time_ms = max(end)
    busy = tuple(end[first_hop[s]] - start[state_in[s]] for s in range(1, tree.processors + 1))
    order = sorted(range(len(made)), key=lambda a: (start[a], a))
    activities = tuple(Activity(made[a][0], made[a][1], made[a][2], start[a], end[a])
                       for a in order)
    return Sample(time_ms, busy, tuple(b / time_ms for b in busy), activities)


def _run(made):
    """Start and end times of the activities ``made`` (module docstring's rules)."""
    waiting = [len(deps) for *_, deps in made]
    after = [[] for _ in made]
    for a, (*_, deps) in enumerate(made):
        for d in deps:
            after[d].append(a)
    start, end = [None] * len(made), [None] * len(made)
    queues, free_at = {}, {}
    events = []                             # (time, activity) completions

    def ready(a, now):
        heapq.heappush(queues.setdefault(made[a][0], []), (now, a))

    def dispatch(now):
        for resource, queue in queues.items():
            if queue and free_at.get(resource, 0.0) <= now:
                _, a = heapq.heappop(queue)
                start[a], end[a] = now, now + made[a][3]
                free_at[resource] = end[a]
                heapq.heappush(events, (end[a], a))

    for a, count in enumerate(waiting):
        if count == 0:
            ready(a, 0.0)
    dispatch(0.0)
    while events:
        now = events[0][0]
        while events and events[0][0] == now:       # everything that ends now, then start
            _, a = heapq.heappop(events)
            for b in after[a]:
                waiting[b] -= 1
                if waiting[b] == 0:
                    ready(b, now)
        dispatch(now)
    if any(t is None for t in end):
        raise AssertionError("activities left waiting: the graph has a cycle")
    return start, end
