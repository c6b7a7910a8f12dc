"""Which cluster of the engine each operation of a traced graph is bound to: the engine by
locality (:class:`~robohw.engine.machine.Cluster`) gives each cluster its own multipliers,
adders and register files, and values between clusters pass on registered hops.

:func:`cell_partition` groups operations by the link their trace says they belong to: the last
element of a node's :attr:`~robohw.dataflow.graph.Node.cell` where it is an integer (the link
frames' ``("outward", None, i)`` and ``("inward", None, i)``), a light link (fewer operations
than ``light`` times the mean link's) merged into its neighbour, and an operation traced
outside any link into the cluster of its first operand that has one.
"""

from robohw.dataflow.graph import past_negation
from robohw.dataflow.operations import Unit, unit_of
from robohw.hw.checks import check_number

__all__ = ["cell_partition", "cell_link", "LIGHT_LINK"]

# A link with fewer operations than this share of the mean link's joins its neighbour (the
# Panda's base link: 7 of 1,090 operations, a cluster of its own would be a multiplier and an
# adder idle nine slots in ten at II 10).
LIGHT_LINK = 0.5


def cell_link(node):
    """The link ``node``'s cell names (its last element, an integer), or ``None``."""
    cell = node.cell
    if isinstance(cell, tuple) and cell and isinstance(cell[-1], int) \
            and not isinstance(cell[-1], bool):
        return cell[-1]
    return None


def cell_partition(plan, *, light=LIGHT_LINK):
    """``{node index: cluster name}`` of every live operation of ``plan`` (a traced plan) that a
    multiplier (of either kind) or adder executes: ``"link<k>"``, k the first link of the
    cluster's run of consecutive links (see the module). ``ValueError`` if no operation names a
    link."""
    check_number("light", light, minimum=0)
    nodes = plan.tracer.nodes
    operations = [nodes[k] for k in plan.live if unit_of(nodes[k]) is not None]
    links = {node.index: cell_link(node) for node in operations}
    for node in operations:                 # traced outside a link: its first operand's
        if links[node.index] is None:
            links[node.index] = next((links.get(past_negation(arg).index) for arg in node.args
                                      if links.get(past_negation(arg).index) is not None), None)
    counts = {}
    for link in links.values():
        if link is not None:
            counts[link] = counts.get(link, 0) + 1
    if not counts:
        raise ValueError("no operation of the plan names a link in its cell: nothing to "
                         "partition by")
    least = light * sum(counts.values()) / len(counts)
    groups, current = [], []
    for link in sorted(counts):
        current.append(link)
        if sum(counts[k] for k in current) >= least:
            groups.append(current)
            current = []
    if current:                              # a light last link joins the one before
        if groups:
            groups[-1] += current
        else:
            groups.append(current)
    name = {link: f"link{group[0]}" for group in groups for link in group}
    first = name[min(counts)]
    return {k: name[link] if link is not None else first for k, link in links.items()
            if unit_of(nodes[k]) in (Unit.MUL, Unit.NMUL, Unit.ADD)}
