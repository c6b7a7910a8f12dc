"""The interconnects of the Newton-Euler processor array (Lee & Chang, section 3 and their
ref. [10], whose details the paper defers: what we chose is stated here).

A network moves values between processing elements in *rounds*: in one round every element
sends at most one value and receives at most one. Two networks:

- :class:`DirectNetwork`: the recursive-doubling links themselves, element ``j`` wired to
  ``j + 2**k`` and ``j - 2**k`` for every ``k`` (Kogge-Stone in both directions: the suffix
  scans run the other way). A value travels farther than one link in several rounds, stored
  at each element on its way; a register at the sender and one at the receiver.
- :class:`OmegaNetwork`: an inverse-perfect-shuffle (Omega) network of ``m = ceil(log2 p)``
  stages of 2 x 2 switches, ``2**m`` ports, routed by destination tags carried with each value
  (stage ``s`` steers by bit ``m - 1 - s`` of the destination); every cyclic shift, the
  recursive-doubling pattern, passes in one round without conflict. One register after each
  stage and one at the receiver.

Both give :meth:`path` (the rounds a transfer takes, as hops) and :meth:`compatible` (whether a
set of hops can share one round); :attr:`stages` is the registers from a sender's read to the
receiver's write. Each ends in a register at the receiver, beside its register file: a net
from one element to another never reaches a register file's write multiplexers directly.
"""

import math

from robohw.hw.checks import check_positive_integer

__all__ = ["DirectNetwork", "OmegaNetwork", "NETWORKS", "omega_route"]


def _check_processors(processors):
    check_positive_integer("processors", processors)
    return processors


class DirectNetwork:
    """Links ``j -> j +- 2**k`` between ``processors`` elements."""
    name = "direct"

    def __init__(self, processors):
        self.processors = _check_processors(processors)
        self.distances = sorted({sign * (1 << k) for k in range(max(1, processors).bit_length())
                                 for sign in (1, -1) if (1 << k) < processors})

    @property
    def stages(self):
        return 2                         # the send and the receive register

    def path(self, source, target):
        """Hops ``[(from, to), ...]`` from ``source`` to ``target``: the largest link towards
        the target first (as many hops as the distance has bits)."""
        hops, here = [], source
        while here != target:
            distance = target - here
            step = (1 << (abs(distance).bit_length() - 1)) * (1 if distance > 0 else -1)
            hops.append((here, here + step))
            here += step
        return hops

    def compatible(self, hops):
        """Hops share a round if no element sends or receives twice (each hop is one link)."""
        return len({a for a, _ in hops}) == len(hops) == len({b for _, b in hops})


def omega_route(ports, pairs):
    """Destination-tag routing of ``pairs`` ``[(source, target)]`` through an Omega network of
    ``ports`` (a power of two) ports: the ``(stage, position)`` each value occupies, or
    ``None`` if two values want one switch output (a conflict). Stage ``s`` first moves the
    value at position ``i`` to the perfect shuffle of ``i`` (its index bits rotated left),
    then the switch of positions ``2k, 2k + 1`` sends it to ``2k + b`` where ``b`` is bit
    ``m - 1 - s`` of its target."""
    m = ports.bit_length() - 1
    positions = {pair: pair[0] for pair in pairs}
    trace = {pair: [] for pair in pairs}
    for stage in range(m):
        taken = {}
        for pair, at in positions.items():
            shuffled = ((at << 1) | (at >> (m - 1))) & (ports - 1) if m else at
            bit = (pair[1] >> (m - 1 - stage)) & 1
            out = (shuffled & ~1) | bit
            if out in taken:
                return None
            taken[out] = pair
            positions[pair] = out
            trace[pair].append(out)
    if any(positions[pair] != pair[1] for pair in pairs):
        raise AssertionError("destination-tag routing missed its target")
    return trace


class OmegaNetwork:
    """An Omega network over ``processors`` elements (``2**ceil(log2 p)`` ports)."""
    name = "shuffle"

    def __init__(self, processors):
        self.processors = _check_processors(processors)
        self.levels = max(1, math.ceil(math.log2(processors))) if processors > 1 else 0
        self.ports = 1 << self.levels

    @property
    def stages(self):
        return max(1, self.levels) + 1   # each switch column's register, the receive register

    def path(self, source, target):
        """One hop: any element reaches any other in one pass."""
        return [(source, target)] if source != target else []

    def compatible(self, hops):
        if not (len({a for a, _ in hops}) == len(hops) == len({b for _, b in hops})):
            return False
        return omega_route(self.ports, list(hops)) is not None


NETWORKS = {"direct": DirectNetwork, "shuffle": OmegaNetwork}
