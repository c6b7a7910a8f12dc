"""Rotating register files: where each value of a modulo-scheduled program lives.

Successive states overlap, one every ``interval`` cycles, so a value whose life is longer than
the interval is alive for several states at once. A bank of ``depth`` registers rotates once an
interval: value ``v`` of the state that entered in iteration ``s`` lives in register
``(base[v] + s) % depth``. Its accesses need no per-state bookkeeping: an access ``t`` cycles
into a state's program, in absolute iteration ``i``, addresses ``(base[v] - t // interval + i)
% depth``, the program's constant ``(base[v] - t // interval) % depth`` plus the bank's
iteration counter (:func:`access_offset`).

Two values (of any states) meet in one register only if their lives, shifted by the interval
times their bases, overlap modulo ``depth * interval`` cycles: so the allocation places the
lives, each shifted by a multiple of the interval, one after the other on a line
(:func:`rotating_allocation`), and the depth is the span they take, in intervals.
"""

import math

from robohw.hw.checks import check_positive_integer

__all__ = ["rotating_allocation", "padded_depth", "access_offset", "physical_register",
           "live_lower_bound", "RAM_WORDS"]

# The words of one LUT-RAM block: a TRELLIS_DPR16X4 holds 16 words of 4 bits (Lattice
# FPGA-TN-02032, ECP5 memory usage guide, distributed RAM).
RAM_WORDS = 16


def rotating_allocation(lives, interval):
    """``(depth, {key: base})`` for ``lives`` (``{key: (first, last)}``: the value is readable
    from cycle ``first`` of its state's program and read last in cycle ``last``, its write
    landing at the end of cycle ``first - 1``).

    Greedy, in one pass: each value, shifted by a multiple of ``interval``, starts at the first
    cycle at or after the end of the last one placed; the next placed is the value whose start
    comes soonest (ties: the earliest ``first``, then the order of ``lives``). The values then
    never share a register while both live, in any states, and the bank holds
    ``ceil(span / interval)`` registers (at least one)."""
    if interval < 1:
        raise ValueError(f"interval must be at least 1, not {interval}")
    order = {key: k for k, key in enumerate(lives)}
    remaining = sorted(lives, key=lambda key: (lives[key][0], order[key]))
    start, frontier = {}, None
    while remaining:
        if frontier is None:
            key = remaining[0]
            placed = lives[key][0] % interval
        else:
            key = min(remaining, key=lambda k: ((lives[k][0] - frontier) % interval,
                                                lives[k][0], order[k]))
            placed = frontier + (lives[key][0] - frontier) % interval
        remaining.remove(key)
        first, last = lives[key]
        start[key] = placed
        frontier = placed + max(last, first) - first + 1
    if not start:
        return 1, {}
    span = frontier - min(start.values())
    base = {key: (lives[key][0] - start[key]) // interval for key in lives}
    return max(1, math.ceil(span / interval)), base


def padded_depth(depth):
    """``depth`` rounded up to a power of two when that takes no more :data:`RAM_WORDS`-word
    blocks (a file of up to 16 words: always). Rotating addresses then wrap by themselves: an
    address is the low bits of a sum, with no comparison and subtraction. A bank deeper than
    an allocation's still never shares a register between live values: their shifted lives
    lie on a line shorter than the bank's turn."""
    check_positive_integer("depth", depth)
    power = 1 << (depth - 1).bit_length()
    return power if -(-power // RAM_WORDS) == -(-depth // RAM_WORDS) else depth


def access_offset(base, cycle, interval, depth):
    """The program's constant for an access ``cycle`` cycles into a state's program of a value
    with ``base``: the hardware adds its bank's iteration counter, modulo ``depth``."""
    return (base - cycle // interval) % depth


def physical_register(base, iteration, depth):
    """The register of a value with ``base`` of the state that entered in ``iteration``."""
    return (base + iteration) % depth


def live_lower_bound(lives, interval):
    """The fewest registers any allocation needs: the values' lives together, in intervals
    (each value holds a register for ``last - first + 1`` cycles of every interval's state)."""
    total = sum(max(last, first) - first + 1 for first, last in lives.values())
    return max(1, math.ceil(total / interval)) if lives else 1
