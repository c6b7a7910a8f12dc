"""Prefix scans ``x(i) = x(i-1) o a(i)`` of an associative operation, three ways.

The Newton-Euler equations in base coordinates are such recurrences (Lee & Chang, section 3):
one 3x3 matrix-product scan and five vector-sum scans. :func:`serial_scan` is the uniprocessor
loop; :func:`doubling_scan` is recursive doubling (Kogge-Stone: at step ``k`` element ``i``
combines with element ``i - 2**k``), ``ceil(log2 N)`` steps for ``N`` elements on ``N``
processors; :func:`pfp_scan` is Lee & Chang's p-fold parallel algorithm (PFP, their
(32)-(36) with the index corrections of our reading (docs/dynamics.md)) on ``p`` processors.

``combine(a, b)`` is ``a o b`` with ``a`` the earlier element: the matrix product does not
commute. Elements are whatever ``combine`` accepts (numpy arrays with a batch of states along
the first axis, tuples of scalars); every scan returns the list of the ``N`` prefixes. Each scan
runs its schedule (the step model below), so the values and the step counts come from one
description of which processor combines which elements at which step.
"""

import math
from contextlib import nullcontext

from robohw.hw.checks import check_positive_integer

__all__ = ["serial_scan", "doubling_scan", "pfp_scan", "run_schedule", "serial_schedule",
           "doubling_schedule", "pfp_schedule", "schedule_steps", "printed_pfp_time",
           "corrected_pfp_time"]


def serial_scan(elements, combine):
    """The prefixes one after the other: ``N - 1`` operations in ``N - 1`` steps."""
    return run_schedule(serial_schedule(len(elements)), elements, combine)


def doubling_scan(elements, combine, processors=None):
    """Recursive doubling (:func:`doubling_schedule`): after step ``k`` element ``i`` holds the
    product of elements ``max(0, i - 2**(k+1) + 1) .. i``."""
    return run_schedule(doubling_schedule(len(elements), processors), elements, combine)


def pfp_scan(elements, combine, processors):
    """Lee & Chang's PFP on ``processors`` (``p``) processors (:func:`pfp_schedule`): P1 pads
    the ``N`` elements to ``p s`` (``s = ceil(N / p)``); P3 scans each block of ``s`` serially;
    P4 scans the ``p`` block totals by recursive doubling; P5 combines each block's prefixes
    with the total of the blocks before it."""
    check_positive_integer("processors", processors)
    return run_schedule(pfp_schedule(len(elements), processors), elements, combine)


# --- the step model ----------------------------------------------------------------------------
# A schedule is a list of steps, each a list of operations (processor, target, left, right) on
# registers "x0", "x1", ...: target := left o right. Every operation of a step reads the values
# from before the step. Registers beyond the elements are padding and hold nothing: combining
# with nothing leaves the other operand (the identity of o; the processor spends the step all
# the same). The scans above run their schedules on values; schedule_steps runs a schedule on
# intervals (lo, hi), standing for a(lo) o ... o a(hi), to check that it computes every prefix.

def run_schedule(schedule, elements, combine, at=None):
    """The ``N`` prefixes of ``elements`` by ``schedule``. ``at(step, processor)``, if given,
    returns a context entered around each operation (to mark where and when it runs: the
    operation counts of :mod:`robohw.dynamics.inverse.counts`)."""
    registers = {f"x{i}": element for i, element in enumerate(elements)}
    for number, step in enumerate(schedule):
        results = {}
        for processor, target, left, right in step:
            a, b = registers.get(left), registers.get(right)
            if a is None or b is None:
                results[target] = b if a is None else a
                continue
            with at(number, processor) if at else nullcontext():
                results[target] = combine(a, b)
        registers.update(results)
    return [registers[f"x{i}"] for i in range(len(elements))]


def serial_schedule(count):
    """One processor, ``count - 1`` steps: ``x(i) = x(i - 1) o x(i)``."""
    return [[(0, f"x{i}", f"x{i - 1}", f"x{i}")] for i in range(1, count)]


def doubling_schedule(count, processors=None):
    """Recursive doubling of ``count`` elements on ``processors`` (default ``count``): step ``k``
    combines ``x(i - 2**k)`` into ``x(i)`` for every ``i >= 2**k``, split into sub-steps when
    fewer processors than operations are at hand. Returns the list of steps."""
    processors = processors or count
    steps, shift = [], 1
    while shift < count:
        # Highest first: a later sub-step still reads the old values it needs.
        ops = [(f"x{i}", f"x{i - shift}", f"x{i}") for i in range(count - 1, shift - 1, -1)]
        for first in range(0, len(ops), processors):
            steps.append([(pe, *op) for pe, op in enumerate(ops[first:first + processors])])
        shift *= 2
    return steps


def pfp_schedule(count, processors, *, skip_padding=False):
    """PFP (Lee & Chang's P1-P5) of ``count`` elements on ``processors``: P1 pads to ``p s``
    elements (``s = ceil(count / p)``) with the identity; P3 ``s - 1`` steps of serial block
    scans; P4 recursive doubling of the ``p`` block totals; P5 the fix-ups of every other prefix
    (all but the last of each full block), spread over the ``p`` processors. Returns the list of
    steps. ``skip_padding`` drops the operations on padding alone (blocks of padding take no
    part in P4; a partial block's last prefix comes out of P4): fewer steps where several
    blocks are empty, a schedule the paper does not give."""
    size = math.ceil(count / processors)
    blocks = [list(range(j * size, (j + 1) * size)) for j in range(processors)]
    real = [[i for i in b if i < count] for b in blocks]
    steps = []
    for i in range(1, size):                                        # P3: N(i, j) in place
        steps.append([(j, f"x{b[i]}", f"x{b[i - 1]}", f"x{b[i]}")
                      for j, b in enumerate(blocks)
                      if not skip_padding or b[i] < count])
    ends = [b[-1] for b in (real if skip_padding else blocks) if b]  # P4: y(j)
    shift = 1
    while shift < len(ends):
        steps.append([(j, f"x{ends[j]}", f"x{ends[j - shift]}", f"x{ends[j]}")
                      for j in range(shift, len(ends))])
        shift *= 2
    done = set(ends) if skip_padding else {b[-1] for b in real if len(b) == size}
    tasks = [(f"x{i}", f"x{blocks[j - 1][-1]}", f"x{i}")                          # P5
             for j in range(1, processors) for i in real[j] if i not in done]
    for first in range(0, len(tasks), processors):
        steps.append([(pe, *task) for pe, task in enumerate(tasks[first:first + processors])])
    return [step for step in steps if step]


def schedule_steps(schedule, count, processors):
    """The number of o-steps of ``schedule``, after checking that it computes all ``count``
    prefixes with at most one operation per processor per step."""
    for number, step in enumerate(schedule):
        used = [processor for processor, *_ in step]
        if len(used) != len(set(used)) or any(not 0 <= pe < processors for pe in used):
            raise AssertionError(f"step {number}: a processor used twice or out of range")

    def join(a, b):
        if a[1] + 1 != b[0]:
            raise AssertionError(f"{a} and {b} do not meet")
        return (a[0], b[1])

    got = run_schedule(schedule, [(i, i) for i in range(count)], join)
    wrong = [i for i in range(count) if got[i] != (0, i)]
    if wrong:
        raise AssertionError(f"prefix x{wrong[0]} is {got[wrong[0]]}, not (0, {wrong[0]})")
    return len(schedule)


def printed_pfp_time(n, p):
    """Lee & Chang's T_p for the ``n + 1`` elements a(0..n) on ``p`` processors, as printed."""
    s = math.ceil((n + 1) / p)
    middle = n - p - s + (2 if (n + 1) % p == 0 else 3)
    return s + math.ceil(middle / p) + math.ceil(math.log2(p)) - 1


def corrected_pfp_time(n, p):
    """The corrected closed form (docs/dynamics.md): ``(s - 1) + ceil(log2 p) +
    ceil(tasks / p)``, ``tasks = n + 2 - s - floor((n + 1) / s)``."""
    s = math.ceil((n + 1) / p)
    tasks = n + 2 - s - (n + 1) // s
    return (s - 1) + math.ceil(math.log2(p)) + math.ceil(tasks / p)
