"""Prefix scans ``x(i) = x(i-1) o a(i)`` of an associative operation, three ways.

The Newton-Euler equations in base coordinates are such recurrences (Lee & Chang, section 3):
one 3x3 matrix-product scan and five vector-sum scans. :func:`serial_scan` is the uniprocessor
loop; :func:`doubling_scan` is recursive doubling (Kogge-Stone: at step ``k`` element ``i``
combines with element ``i - 2**k``), ``ceil(log2 N)`` steps for ``N`` elements on ``N``
processors; :func:`pfp_scan` is Lee & Chang's p-fold parallel algorithm (PFP, their
(32)-(36) with the index corrections of the specification notes) on ``p`` processors.

``combine(a, b)`` is ``a o b`` with ``a`` the earlier element: the matrix product does not
commute. Elements are numpy arrays (a batch of states along the first axis, or anything the
operation accepts); every scan returns the list of the ``N`` prefixes.
"""

import math

__all__ = ["serial_scan", "doubling_scan", "pfp_scan", "doubling_schedule", "pfp_schedule",
           "schedule_steps", "printed_pfp_time", "corrected_pfp_time"]


def serial_scan(elements, combine):
    """The prefixes one after the other: ``N - 1`` operations in ``N - 1`` steps."""
    out = [elements[0]]
    for element in elements[1:]:
        out.append(combine(out[-1], element))
    return out


def doubling_scan(elements, combine):
    """Recursive doubling: after step ``k`` (``k = 0 .. ceil(log2 N) - 1``) element ``i`` holds
    the product of elements ``max(0, i - 2**(k+1) + 1) .. i``."""
    x = list(elements)
    shift = 1
    while shift < len(x):
        x = [x[i] if i < shift else combine(x[i - shift], x[i]) for i in range(len(x))]
        shift *= 2
    return x


def pfp_scan(elements, combine, processors, identity):
    """Lee & Chang's PFP on ``processors`` (``p``) processors: P1 pads the ``N`` elements with
    ``identity`` to ``p s`` (``s = ceil(N / p)``); P3 scans each block of ``s`` serially; P4
    scans the ``p`` block totals by recursive doubling; P5 combines each block's prefixes with
    the total of the blocks before it."""
    count = len(elements)
    if not isinstance(processors, int) or processors < 1:
        raise ValueError(f"processors must be a positive integer, not {processors!r}")
    size = math.ceil(count / processors)                                     # P1
    padded = list(elements) + [identity] * (processors * size - count)
    blocks = [serial_scan(padded[j * size:(j + 1) * size], combine)         # P2, P3
              for j in range(processors)]
    totals = doubling_scan([block[-1] for block in blocks], combine)        # P4
    out = list(blocks[0])
    for j in range(1, processors):                                          # P5
        out += [combine(totals[j - 1], value) for value in blocks[j]]
    return out[:count]


# --- the step model ----------------------------------------------------------------------------
# Elements are intervals of the input sequence: (lo, hi) stands for a(lo) o ... o a(hi), and an
# operation may only combine (lo, m) with (m + 1, hi). A schedule is a list of steps, each a list
# of operations (processor, target, left, right) on named registers; running it on intervals
# checks that it computes every prefix (0, i), and its length is the time in o-steps.

def _run_schedule(steps, registers, processors):
    for number, step in enumerate(steps):
        used = [pe for pe, *_ in step]
        if len(used) != len(set(used)) or any(not 0 <= pe < processors for pe in used):
            raise AssertionError(f"step {number}: a processor used twice or out of range")
        results = {}
        for _, target, left, right in step:
            a, b = registers[left], registers[right]
            if a is None or b is None:          # padding: the identity
                results[target] = b if a is None else a
            elif a[1] + 1 != b[0]:
                raise AssertionError(f"step {number}: {left} = {a} and {right} = {b} do not "
                                     f"meet")
            else:
                results[target] = (a[0], b[1])
        registers.update(results)     # every operation of a step reads the step's inputs
    return registers


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
    padded = max((int(name[1:]) for step in schedule for _, name, *_ in step), default=0) + 1
    registers = {f"x{i}": (i, i) if i < count else None for i in range(max(count, padded))}
    registers = _run_schedule(schedule, registers, processors)
    wrong = [i for i in range(count) if registers[f"x{i}"] != (0, i)]
    if wrong:
        raise AssertionError(f"prefix x{wrong[0]} is {registers[f'x{wrong[0]}']}, not (0, "
                             f"{wrong[0]})")
    return len(schedule)


def printed_pfp_time(n, p):
    """Lee & Chang's T_p for the ``n + 1`` elements a(0..n) on ``p`` processors, as printed."""
    s = math.ceil((n + 1) / p)
    middle = n - p - s + (2 if (n + 1) % p == 0 else 3)
    return s + math.ceil(middle / p) + math.ceil(math.log2(p)) - 1


def corrected_pfp_time(n, p):
    """The corrected closed form (specification notes, A.5): ``(s - 1) + ceil(log2 p) +
    ceil(tasks / p)``, ``tasks = n + 2 - s - floor((n + 1) / s)``."""
    s = math.ceil((n + 1) / p)
    tasks = n + 2 - s - (n + 1) // s
    return (s - 1) + math.ceil(math.log2(p)) + math.ceil(tasks / p)
