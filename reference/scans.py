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

__all__ = ["serial_scan", "doubling_scan", "pfp_scan"]


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
