"""Register counts read off an elaborated design, for latency tests that must not restate the
design's own ``latency`` property.

:func:`register_depths` builds the design's data graph from its statements (an edge from every
signal an assignment reads to the signal it writes: weight 1 in a clocked domain, 0 in ``comb``;
the conditions that enable an assignment are not data) and returns the set of register counts over
every path from ``i.payload`` to ``o.payload``. A fully pipelined design has one count, its latency
in cycles. A memory is an edge from its write port's data to its synchronous read port's data of
weight rows + 1: the delay of a circular buffer written and read at one pointer, the read port's
register included (:func:`robohw.hw.delay_line.memory_delay`; the netlist cannot see the pointers,
so the simulations measure that part). The memory of a lane of a stream's output queue
(:class:`robohw.hw.queue.QueueLane`) is an edge of weight 2: its write and its read register, the
delay of a result that finds it empty.

:func:`phase_rings` names the phase rings in a folded design's Verilog.
"""

import re
from collections import defaultdict

from amaranth.hdl import Value
from amaranth.hdl._ast import Assign, Switch
from amaranth.hdl._ir import Fragment
from amaranth.hdl._mem import MemoryInstance

from robohw.hw.queue import QueueLane

__all__ = ["register_depths", "phase_rings"]


def phase_rings(verilog):
    """The names of the phase rings in a folded design's Verilog: a ring's bits are ``{name}0``
    to ``{name}{fold - 1}``, the first starting high."""
    return set(re.findall(r"reg (\w*(?:phase|ring))0 = 1'h1;", verilog))


def _assignments(statements):
    for statement in statements:
        if isinstance(statement, Assign):
            yield statement
        elif isinstance(statement, Switch):
            for _patterns, body, _src_loc in statement.cases:
                yield from _assignments(body)


def register_depths(component):
    """The set of register counts on the paths from ``component.i.payload`` to
    ``component.o.payload`` (Amaranth 0.5 internals; checked against measured latencies)."""
    readers = defaultdict(set)   # signal -> {(signal it feeds, registers on the edge)}

    def walk(fragment, in_queue=False):
        in_queue = in_queue or any(isinstance(o, QueueLane)
                                   for o in fragment.origins or ())
        for domain, statements in fragment.statements.items():
            weight = 0 if domain == "comb" else 1
            for assign in _assignments(statements):
                for target in assign.lhs._lhs_signals():
                    for source in assign.rhs._rhs_signals():
                        readers[id(source)].add((id(target), weight))
        if isinstance(fragment, MemoryInstance):
            for write in fragment._write_ports:
                for read in fragment._read_ports:
                    assert read._domain != "comb", "an asynchronous read is not a delay"
                    weight = 2 if in_queue else fragment._data.depth + 1
                    readers[id(write._data)].add((id(read._data), weight))
        for sub, *_ in fragment.subfragments:
            walk(sub, in_queue)

    walk(Fragment.get(component, None))
    # Signals compare by building expressions, so the graph is keyed by identity.
    source, sink = id(Value.cast(component.i.payload)), id(Value.cast(component.o.payload))
    # Depth-first, iteratively (a deep pipeline outruns Python's recursion limit): a signal's
    # set of depths is known once every signal it feeds is.
    known, visiting = {sink: frozenset({0})}, set()
    stack = [source]
    while stack:
        signal = stack[-1]
        if signal in known:
            stack.pop()
            continue
        pending = [t for t, _ in readers[signal] if t not in known]
        if pending:
            if signal in visiting:
                raise ValueError("the data path loops: not a pipeline")
            visiting.add(signal)
            stack.extend(pending)
            continue
        known[signal] = frozenset(d + weight for target, weight in readers[signal]
                                  for d in known[target])
        visiting.discard(signal)
        stack.pop()
    return set(known[source])
