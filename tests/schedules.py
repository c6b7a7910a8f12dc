"""Independent checks of the schedules the hardware runs, for latency tests that must not restate
a design's own ``latency`` property.

:func:`critical_path` counts the longest chain of registered operations through a traced plan's
graph with networkx (not with the plan's scheduler). :func:`replay_modulo_schedule` replays a
folded plan's modulo schedule from its start cycles and the units' latencies alone and returns
the cycle its last output is ready. :func:`replay_program` replays the Newton-Euler processor
array's compiled program (operands present before use, one issue per unit per cycle, rounds the
network carries, no register overwritten while live). :func:`replay_engine` replays the engine's
compiled program over overlapped states, and :func:`engine_critical_path` is the least latency
its machine allows.
"""

import math

import networkx as nx

from robohw.cordic.pipelined import pipelined_latency
from robohw.dataflow.operations import operation, unit_of
from robohw.dataflow.pipeline import MULTIPLIER_STAGES

__all__ = ["critical_path", "replay_modulo_schedule", "replay_program", "engine_critical_path",
           "replay_engine"]


def _cycles(node, folded):
    # Folded, a product runs on a shared multiplier with its operand and product registers.
    if folded and unit_of(node) == "mul":
        return MULTIPLIER_STAGES
    return int(operation(node.op).registered)


def critical_path(plan, folded=False):
    """Cycles on the longest path through ``plan``'s traced graph: the CORDIC in front of every
    cos and sin, one cycle per registered operation (a shared multiplier's stages when
    ``folded``)."""
    graph = nx.DiGraph()
    for k in plan.live:
        node = plan.tracer.nodes[k]
        if node.op == "input":
            trig = node.name[:3] in ("cos", "sin")
            graph.add_edge("ports", k, weight=pipelined_latency(plan.cordic) if trig else 0)
        for arg in node.args:
            graph.add_edge(arg.index, k, weight=_cycles(node, folded))
    return nx.dag_longest_path_length(graph)


def replay_modulo_schedule(plan):
    """Replay a folded ``plan``'s schedule: every node starts once its operands are ready (an
    operand's ready cycle its start plus its unit's latency), no two products on one multiplier
    in one phase, ``ceil(products / fold)`` multipliers at least, every CORDIC angle in a phase
    of its own CORDIC and its cos and sin out a CORDIC's latency later. Returns the cycle the
    last output is ready (1 if every output is a constant)."""
    fold, sched, nodes = plan.fold, plan.schedule, plan.tracer.nodes
    ready = {}
    for k in plan.live:
        node = nodes[k]
        if node.op == "input":
            ready[k] = sched.start[k]
            assert ready[k] >= 0, node
            continue
        for arg in node.args:
            assert sched.start[k] >= ready[arg.index], (node, arg)
        ready[k] = sched.start[k] + _cycles(node, folded=True)
    products = [k for k in plan.live if unit_of(nodes[k]) == "mul"]
    assert sched.multipliers >= math.ceil(len(products) / fold)
    assert set(sched.unit) == set(products)
    slots = [(sched.unit[k], sched.start[k] % fold) for k in products]
    assert len(set(slots)) == len(slots) and all(0 <= u < sched.multipliers for u, _ in slots)
    # The CORDICs: one angle per phase each, ceil(joints / fold) of them.
    slots = list(plan.cordic_slots.values())
    assert len(set(slots)) == len(slots)
    assert len({u for u, _ in slots}) == math.ceil(len(slots) / fold)
    assert all(0 <= s < fold for _, s in slots)
    for k, (_, slot) in plan.cordic_slots.items():
        for node in nodes:
            if node.op == "input" and node.name in (f"cos{k}", f"sin{k}") and \
                    node.index in ready:
                assert ready[node.index] == slot + pipelined_latency(plan.cordic), node
    sources = [node.args[0] if node.op == "neg" else node for node in plan.outputs.values()
               if not isinstance(node, float)]
    # All outputs constant (a one-link arm's H): a result still takes a cycle.
    return max((ready[source.index] for source in sources), default=1)


def replay_program(plan):
    """Check an :class:`robohw.dynamics.inverse.array_plan.ArrayPlan`'s program without the plan's
    own bookkeeping: every operand is at the element (computed there, given there, or delivered by a
    hop) before the operation issues, a unit issues once a cycle, every round is one the network
    can carry, and every value a hop sends is at the sender when it leaves. Returns the cycle the
    last torque is ready (the program's length)."""
    nodes, program = plan.tracer.nodes, plan.program
    at = {}                                # (node, element) -> readable from this cycle

    def source(node):
        return source(node.args[0]) if node.op == "neg" else node

    for k in plan.live:
        if nodes[k].op == "input":
            at[(k, plan.element_of(nodes[k]))] = plan.input_ready(nodes[k])
    events = sorted([(i.cycle, "op", i) for i in program.multiplies + program.adds] +
                    [(h.cycle, "hop", h) for h in program.hops], key=lambda e: e[0])
    latency = {"mul": plan.multiplier_latency, "add": plan.adder_latency}
    used, rounds = set(), {}
    for cycle, kind, item in events:
        if kind == "op":
            node = nodes[item.node]
            unit = unit_of(node)
            assert (cycle, item.element, unit) not in used
            used.add((cycle, item.element, unit))
            for arg in node.args:
                assert at.get((source(arg).index, item.element), math.inf) <= cycle, node
            at[(item.node, item.element)] = cycle + latency[unit]
        else:
            assert at.get((item.node, item.source), math.inf) <= cycle
            rounds.setdefault(cycle, []).append((item.source, item.target))
            at.setdefault((item.node, item.target), cycle + plan.network.stages + 1)
    assert all(plan.network.compatible(hops) for hops in rounds.values())
    done = [at[(source(v).index, program.owner[source(v).index])]
            for v in plan.outputs.values() if not isinstance(v, float)]
    length = max(done)
    # Every live operation is issued exactly once.
    issued = sorted(i.node for i in program.multiplies + program.adds)
    assert issued == sorted(k for k in plan.live if unit_of(nodes[k]) is not None)
    # The register files, replayed: each value is written in the cycle before it is readable
    # and every read (an operand at its issue, a send, a torque at the end) finds it still in
    # its register, not overwritten by a value that reuses the register.
    addresses = plan.addresses()
    reads = [(i.cycle, i.element, source(a).index)
             for i in program.multiplies + program.adds for a in nodes[i.node].args]
    reads += [(h.cycle, h.source, h.node) for h in program.hops]
    reads += [(length, program.owner[source(v).index], source(v).index)
              for v in plan.outputs.values() if not isinstance(v, float)]
    writes = sorted((ready - 1, element, k) for (k, element), ready in at.items()
                    if nodes[k].op != "input")
    files = [{address: k for k, address in table.items() if nodes[k].op == "input"}
             for table in addresses]
    done = 0
    for cycle, element, k in sorted(reads):
        while done < len(writes) and writes[done][0] < cycle:
            _, target, value = writes[done]
            files[target][addresses[target][value]] = value
            done += 1
        assert files[element][addresses[element][k]] == k, (cycle, element, nodes[k])
    assert plan.registers() == [max(t.values(), default=-1) + 1 for t in addresses]
    return length


def engine_critical_path(plan, machine):
    """Cycles on the longest path through ``plan``'s traced graph at the engine ``machine``'s
    units' latencies: a fixed-point input loaded in the first cycle after the state's (readable
    two cycles later: the loader registers its select, then the field), a cos or sin from a
    CORDIC that took its angle then, each operation its unit's latency (``neg`` is wiring), and
    on a machine with clusters a hop's latency where an operation's value is read in another
    cluster or by the outputs. The least latency any schedule on the machine has."""
    nodes = plan.tracer.nodes
    cluster = {k: c.name for c in machine.clusters for k in c.nodes}

    def source(node):
        while node.op == "neg":
            node = node.args[0]
        return node.index

    def hop(k, home):
        operation = nodes[k].op != "input"
        return machine.hop_latency if operation and cluster.get(k) != home else 0

    graph = nx.DiGraph()
    for key, value in plan.outputs.items():
        if not isinstance(value, float):
            graph.add_edge(source(value), ("out", key), weight=hop(source(value), None))
    for k in plan.live:
        node = nodes[k]
        if node.op == "input":
            trig = node.name[:3] in ("cos", "sin")
            graph.add_edge("state", k, weight=1 + (machine.trig_latency if trig else 3))
            continue
        cycles = 0 if node.op == "neg" else (
            machine.multiplier_latency if unit_of(node) == "mul" else machine.adder_latency)
        for arg in node.args:
            far = hop(source(arg), cluster.get(k)) if node.op != "neg" else 0
            graph.add_edge(arg.index, k, weight=cycles + far)
    return nx.dag_longest_path_length(graph)


def replay_engine(plan, program, states=None):
    """Replay a traced plan's compiled ``program`` (on its ``machine``) from its
    issues alone, states overlapped one every interval: one issue per unit per slot of the
    interval (loads and CORDICs too, each within the interval after its state's transfer),
    every operation after its operands are readable (a unit's latency after their issue),
    every operand port reading only files it is wired to, each file written by its writers
    alone, once a cycle at most (its one write port), and every access, at the address the
    hardware computes (the program's constant plus the iteration counter, modulo the file's
    depth), finding the value of its own state: no register is overwritten while live. A value
    is written into every file it is read from, in the cycle before it is readable.
    On a machine with clusters every operation is issued on a unit of its cluster, and a unit's
    value read by another cluster's port (or by the outputs or the machine's own units) is
    written there from its hop ``<unit>_to_<cluster or machine>``, a hop's latency later.
    ``states`` (default: enough for every file to wrap twice) are replayed. Returns the cycle
    the outputs are read (the last output's readable cycle)."""
    machine = program.machine
    cluster_of = {}                 # a clustered unit: its cluster
    for cluster in machine.clusters:
        for kind, count in (("mul", cluster.multipliers), ("add", cluster.adders),
                            ("nmul", cluster.narrow_multipliers)):
            for j in range(count):
                cluster_of[f"{cluster.name}_{kind}{j}"] = cluster
    fanned = set()
    ii, nodes = machine.interval, plan.tracer.nodes
    ready, writer = {}, {}
    slots = set()

    def claim(unit, cycle):
        assert (unit, cycle % ii) not in slots, f"{unit} issues twice in slot {cycle % ii}"
        slots.add((unit, cycle % ii))

    for load in program.loads:
        assert 1 <= load.cycle <= ii, load
        claim(load.unit, load.cycle)
        # The select registered in the load's cycle, the field in the next, its copies for
        # the files in the one after: readable after.
        ready[load.node], writer[load.node] = load.cycle + 3, load.unit
        fanned.add(load.node)
    for trig in program.trigs:
        assert 1 <= trig.cycle <= ii, trig
        claim(trig.unit, trig.cycle)
        for part in ("cos", "sin"):
            node = getattr(trig, part)
            if node is not None:
                ready[node] = trig.cycle + machine.trig_latency
                writer[node] = part + trig.unit[len("cordic"):]
                fanned.add(node)
    accesses = []           # (cycle, file, node): reads in the state's program

    def home(reader):
        cluster = cluster_of.get(reader[0])
        return cluster.name if cluster else None

    def hopped(reader, node):
        """The hop ``node``'s value reaches ``reader``'s files through, or ``None``."""
        if node in fanned or home((writer[node],)) == home(reader):
            return None
        return f"{writer[node]}_to_{home(reader) or 'machine'}"

    def readable(reader, node):
        return ready[node] + (machine.hop_latency if hopped(reader, node) else 0)

    def reached(reader, node):
        file = program.source[(reader, node)]
        assert program.files[file].reader == reader, (reader, file)
        sender = hopped(reader, node) or writer[node]
        assert sender in program.files[file].writers, (file, node, sender)
        return file

    flat = {"mul": machine.multipliers, "add": machine.adders,
            "nmul": machine.narrow_multipliers} if not machine.clusters else {}
    counts = {**flat, "recip": machine.reciprocals,
              "rsqrt": machine.roots}
    latencies = {"mul": machine.multiplier_latency, "nmul": machine.multiplier_latency,
                 "add": machine.adder_latency,
                 "recip": machine.reciprocal_latency, "rsqrt": machine.root_latency}
    kinds = {i.node: unit_of(nodes[i.node]) for i in program.issues}
    for issue in program.issues:
        ready[issue.node] = issue.cycle + latencies[kinds[issue.node]]
        writer[issue.node] = issue.unit
    for issue in sorted(program.issues, key=lambda i: i.cycle):
        node, kind = nodes[issue.node], kinds[issue.node]
        if issue.unit in cluster_of:
            assert issue.node in cluster_of[issue.unit].nodes, issue
            assert issue.unit[len(cluster_of[issue.unit].name) + 1:].startswith(kind), issue
        else:
            assert issue.unit.startswith(kind) and int(issue.unit[len(kind):]) < counts[kind], \
                issue
        claim(issue.unit, issue.cycle)
        operands = [arg for arg in node.args]
        sources = []
        for arg in operands:
            while arg.op == "neg":
                arg = arg.args[0]
            sources.append(arg.index)
        word = program.operation(issue)
        assert sorted(s for s in (word["a"], word["b"]) if s is not None) == sorted(sources)
        for port in "ab":
            source = word[port]
            if source is None:
                continue
            assert readable((issue.unit, port), source) <= issue.cycle, \
                f"{node} reads {source} before it is ready"
            file = reached((issue.unit, port), source)
            assert file in program.reads[(issue.unit, port)], (issue, port)
            accesses.append((issue.cycle, file, source))
    live_ops = {k for k in plan.live if nodes[k].op not in ("input", "neg")}
    assert {issue.node for issue in program.issues} == live_ops
    assert len(program.issues) == len(live_ops)
    read_out = max((readable(("out", key), k) for key, (k, _) in program.outputs.items()),
                   default=1)
    accesses += [(read_out, reached(("out", key), k), k)
                 for key, (k, _) in program.outputs.items()]
    # The files over overlapped states: a write lands at the end of the cycle before its value
    # is readable; the reads of a cycle happen before its writes land.
    depth = program.depth
    states = states or 2 * max(depth.values()) + read_out // ii + 2
    copies = {(file, k) for _, file, k in accesses}
    events, written = [], set()
    for state in range(states):
        start = state * ii
        for file, k in copies:
            time = start + readable(program.files[file].reader, k) - 1
            assert (file, time) not in written, f"{file} is written twice in cycle {time}"
            written.add((file, time))
            events.append((time, 1, file, k, state))
        for cycle, file, k in accesses:
            events.append((start + cycle, 0, file, k, state))
    held = {}
    for time, is_write, file, k, state in sorted(events):
        access_cycle = time - state * ii
        at = (program.offset(file, k, access_cycle) + time // ii) % depth[file]
        if is_write:
            held[(file, at)] = (k, state)
        else:
            assert held.get((file, at)) == (k, state), (
                f"state {state} reads {k} in {file}[{at}] at cycle {access_cycle}, which holds "
                f"{held.get((file, at))}")
    return read_out
