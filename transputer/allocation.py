"""Allocations of the 64 Lagrange-Euler subtasks to slave transputers: Zomaya & Morris's Tables
1-4 (for 3, 6, 7 and 8 slaves) as data, the check that an allocation gives every subtask to
exactly one processor, and a longest-processing-time allocator.

An allocation is a tuple with one tuple of subtasks per slave, ``P1`` first. The paper never
splits a bundle (``C4``, ``C5``), so the allocators place bundles whole (:func:`units`). The
tables name subtasks as the paper does (``D14``, ``C3_25``, ``h4``) or whole groups: ``D`` (the
17 inertia terms), ``h`` (the 4 gravity terms), ``C1``-``C5`` (all ``C_ijk`` of one ``i``; the
paper never splits ``C4`` and ``C5``, whose contents we infer from its text).
"""

from robohw.hw.checks import check_positive_integer
from robohw.transputer.lagrange_euler_tasks import PAPER_SUBTASKS

__all__ = ["PAPER_TABLES", "expand", "paper_allocation", "check_allocation", "units",
           "loads", "lpt_allocation"]

# Spec B.6, Tables 1-4 (Z:L228-310), the OCR's table dashes removed.
PAPER_TABLES = {
    3: ("C3_25 C2 C4 h",
        "C1 C3_44 C3_45 C3_55",
        "D C5 C3_14 C3_24 C3_15"),
    6: ("C1_12 C1_13 C1_22 C1_23 C3_55 C5",
        "D14 D15 D16 D23 D24 D25 D26 D33 D35 D44 D46 D55 D66 C3_25",
        "C2_14 C2_15 C2_16 C2_24 C2_25 C2_44 C2_45 C2_46 C2_55 C2_56 C3_15",
        "C1_14 C1_15 C1_24 C1_25 C1_26 C1_44 C1_45 C1_46 C1_55 C1_56 C3_45",
        "D11 D12 D13 D22 C2_13 C3_24 h",
        "C4 C2_23 C3_14 C3_44"),
    7: ("C1_12 C1_13 C1_22 C1_23 C2_16",
        "D11 D12 D13 D22 D23 D33 C1_26 C1_46 C1_56",
        "C2_15 C3",
        "C2_13 C2_14 C2_23 C2_24 C2_44 C2_55",
        "D14 D15 D16 D24 D25 D26 D35 D44 D46 D55 D66 C2_45",
        "C4 C5 h C2_46 C2_56",
        "C1_14 C1_15 C1_24 C1_25 C1_44 C1_45 C1_55 C2_25"),
    8: ("D14 D15 D16 D24 D25 D26 D35 D44 D46 D55 D66",
        "D11 D12 D13 D22 D23 D33 h4",
        "C4 C5 h2 h3 h5",
        "C1_46 C3_14 C3_24 C3_25 C3_44 C3_45 C3_55",
        "C2_13 C2_14 C2_15 C2_23 C2_24",
        "C1_44 C2_16 C2_25 C2_44 C2_45 C2_46 C2_55 C2_56 C3_15",
        "C1_12 C1_13 C1_14 C1_15 C1_55 C1_56",
        "C1_22 C1_23 C1_24 C1_25 C1_26 C1_45"),
}

_BY_NAME = {task.name: task for task in PAPER_SUBTASKS}


def _group(token):
    """The subtasks a group name stands for, or ``None`` if it is not a group."""
    if token in ("D", "h"):
        return tuple(task for task in PAPER_SUBTASKS if task.kind == token)
    if len(token) == 2 and token[0] == "C" and token[1].isdigit():
        group = tuple(task for task in PAPER_SUBTASKS
                      if task.kind == "C" and task.i == int(token[1]))
        return group or None                 # C6: no subtask, so no group
    return None


def expand(text):
    """The subtasks of one processor's entry, a space-separated list of names and groups;
    raises ``ValueError`` on a name that is neither."""
    out = []
    for token in text.split():
        group = _group(token)
        if group is None:
            if token not in _BY_NAME:
                raise ValueError(f"unknown subtask {token!r} (names such as D14, C3_25, h4, or "
                                 f"the groups D, h, C1-C5)")
            group = (_BY_NAME[token],)
        out.extend(group)
    return tuple(out)


def paper_allocation(processors):
    """The paper's allocation for ``processors`` slaves (3, 6, 7 or 8): a tuple of subtask
    tuples, ``P1`` first."""
    if processors not in PAPER_TABLES:
        raise ValueError(f"the paper allocates to {', '.join(map(str, PAPER_TABLES))} "
                         f"slaves, not {processors!r}")
    return tuple(expand(entry) for entry in PAPER_TABLES[processors])


def check_allocation(allocation, subtasks=PAPER_SUBTASKS):
    """Return ``allocation`` if it gives each of ``subtasks`` to exactly one processor and
    nothing else; raise ``ValueError`` naming the first subtask missing, repeated or unknown."""
    seen = {}
    for p, tasks in enumerate(allocation, start=1):
        for task in tasks:
            if task not in subtasks:
                raise ValueError(f"P{p}: {task.name} is not one of the subtasks")
            if task in seen:
                raise ValueError(f"{task.name} is on P{seen[task]} and P{p}")
            seen[task] = p
    missing = [task.name for task in subtasks if task not in seen]
    if missing:
        raise ValueError(f"no processor has {', '.join(missing)}")
    return allocation


def units(subtasks=PAPER_SUBTASKS):
    """The subtasks as the allocators place them: a tuple per bundle (all its members) and one
    per other subtask, in order."""
    out, bundles = [], {}
    for task in subtasks:
        if task.bundle is None:
            out.append((task,))
        elif task.bundle not in bundles:
            bundles[task.bundle] = len(out)
            out.append((task,))
        else:
            out[bundles[task.bundle]] += (task,)
    return out


def loads(allocation, cost):
    """Each processor's computing time: the sum of ``cost[subtask]`` over its subtasks."""
    return tuple(sum(cost[task] for task in tasks) for tasks in allocation)


def lpt_allocation(cost, processors, subtasks=PAPER_SUBTASKS, start_ms=None):
    """Longest-processing-time list scheduling (Graham): the :func:`units` from the costliest
    down, each to the processor with the least load so far (the first of equals), a
    processor's load starting from ``start_ms[p]`` (its communication, say; zeros if
    ``None``). Without ``start_ms`` its largest load is at most ``total / processors +
    (1 - 1 / processors) * max unit``."""
    check_positive_integer("processors", processors)
    load = [0.0] * processors if start_ms is None else [float(t) for t in start_ms]
    if len(load) != processors:
        raise ValueError(f"{len(load)} start times for {processors} processors")
    placed = units(subtasks)
    order = sorted(zip(loads(placed, cost), placed), key=lambda pair: -pair[0])
    assigned = [[] for _ in range(processors)]
    for weight, unit in order:
        p = min(range(processors), key=lambda q: load[q])
        assigned[p].extend(unit)
        load[p] += weight
    return tuple(tuple(tasks) for tasks in assigned)
