"""When each link computer evaluates each of its eight terms in one sample, under each scheme:
the thesis's space-time graphs (Figs. 3.5, 3.6, 5.1, 5.2) as schedules, in cycles of one
operation (the thesis's unit: every multiplication and addition takes the same time, T4700).

Each computer evaluates its terms in the order of :data:`~robohw.distributed.link_terms.TERMS`,
each as soon as its computer is free and the neighbours' terms it waits for are done
(:data:`WAITS`, the thesis's descriptions of each scheme):

- ``serial`` (section 3.3.2): computer ``i`` starts its first five terms when computer
  ``i - 1`` has finished its first five, and its last three when computer ``i + 1`` has
  finished its last three (computer ``n`` right after its first five);
- ``v1`` (section 3.3.3): ``AW`` once the predecessor has ``Aa``; ``Af`` once the successor
  has ``An``;
- ``v2``: ``AW`` once the predecessor has ``AWd``, ``Aa`` once it has ``Aa``; ``Af`` as in
  ``v1``;
- ``zero`` and ``first`` (sections 5.2.1, 5.2.2): nothing waits; first-order prediction's
  corrections lengthen ``AW``, ``AWd`` and ``Aa`` (:data:`CORRECTION_CYCLES`);
- ``hybrid`` (section 5.2.3): ``AW``, ``AWd`` and ``Af`` wait for the neighbour's same term;
  ``Aa`` and ``An`` are predicted.

The cycles per sample (:attr:`Schedule.cycles`) are then the thesis's formulas: ``n`` times a
link's 257 operations (serial), ``n(t1+t2+t3) + t4 + t5 + n(t6+t7) + t8`` (v1), ``t1 + t2 +
n t3 + t4 + t5 + n(t6+t7) + t8`` (v2), 257 (zero), 257 + 77 (first), ``t1 + n t2 + t3 + t4 +
t5 + n t6 + t7 + t8`` (hybrid), with ``t`` the terms' operation counts. For other term lengths
(other units, :mod:`robohw.distributed.plan`), v2's and the hybrid's take the longer of two
chains: ``max(t1 + t2 + n t3, n(t1 + t2) + t3)`` in place of ``t1 + t2 + n t3``, and
``max(t1 + n(t2 + t6), n(t1 + t6) + t2)`` in place of ``t1 + n t2 + n t6``.
"""

from dataclasses import dataclass

from robohw.distributed.link_terms import TERM_OPERATIONS, TERMS
from robohw.distributed.prediction import CORRECTION_OPERATIONS, SCHEMES
from robohw.hw.checks import check_choice, check_positive_integer

__all__ = ["TERM_CYCLES", "CORRECTION_CYCLES", "WAITS", "Slot", "Schedule", "schedule"]

# One operation a cycle (Table 2.1's counts).
TERM_CYCLES = {term: sum(TERM_OPERATIONS[term]) for term in TERMS}
# First-order prediction's 77 operations (section 5.2.2): 22 each for AW's and AWd's
# corrections, 33 for Aa's.
CORRECTION_CYCLES = {"AW": 22, "AWd": 22, "Aa": 33}
assert sum(CORRECTION_CYCLES.values()) == sum(CORRECTION_OPERATIONS)

_FIRST_FIVE, _LAST_THREE = TERMS[:5], TERMS[5:]
# scheme: {term: (neighbour offset, the neighbour's term it waits for)}; serial's blocks are
# handled by its first term of each block.
WAITS = {
    "serial": {"AW": (-1, "AN"), "Af": (+1, "u")},
    "v1": {"AW": (-1, "Aa"), "Af": (+1, "An")},
    "v2": {"AW": (-1, "AWd"), "Aa": (-1, "Aa"), "Af": (+1, "An")},
    "zero": {},
    "first": {},
    "hybrid": {"AW": (-1, "AW"), "AWd": (-1, "AWd"), "Af": (+1, "Af")},
}


@dataclass(frozen=True)
class Slot:
    """Computer ``link`` (0-based) evaluates ``term`` in cycles ``start`` to ``end - 1`` of
    the sample; ``waited`` is the neighbour's ``(link, term)`` it waited for, if any."""
    link: int
    term: str
    start: int
    end: int
    waited: "tuple | None" = None


@dataclass(frozen=True)
class Schedule:
    """One sample of ``scheme`` on ``links`` computers."""
    scheme: str
    links: int
    slots: tuple

    @property
    def cycles(self):
        """Cycles per sample: from the first term's start to the last term's end."""
        return max(slot.end for slot in self.slots)

    def busy(self, link):
        """Cycles computer ``link`` computes in a sample."""
        return sum(s.end - s.start for s in self.slots if s.link == link)

    @property
    def gain(self):
        """Speed-up over one computer evaluating every link's terms in turn."""
        return self.links * sum(TERM_CYCLES.values()) / self.cycles


def schedule(scheme, links, *, term_cycles=None):
    """The :class:`Schedule` of ``scheme`` (:data:`~robohw.distributed.prediction.SCHEMES`) on
    ``links`` computers; ``term_cycles`` (default :data:`TERM_CYCLES`, plus
    :data:`CORRECTION_CYCLES` under ``first``) gives each term's cycles."""
    check_choice("scheme", scheme, SCHEMES)
    check_positive_integer("links", links)
    if term_cycles is None:
        term_cycles = dict(TERM_CYCLES)
        if scheme == "first":
            for term, extra in CORRECTION_CYCLES.items():
                term_cycles[term] += extra
    elif set(term_cycles) != set(TERMS):
        raise ValueError(f"term_cycles must give a positive integer for each of "
                         f"{', '.join(TERMS)}")
    else:
        for term, cycles in term_cycles.items():
            check_positive_integer(f"term_cycles[{term!r}]", cycles)
    waits = WAITS[scheme]
    end, slots = {}, []
    # Forward terms depend on lower links, backward ones on higher links: evaluate the first
    # five terms from link 0 up, then the last three from the last link down.
    order = [(link, term) for link in range(links) for term in _FIRST_FIVE] + \
            [(link, term) for link in reversed(range(links)) for term in _LAST_THREE]
    free = [0] * links
    for link, term in order:
        start, waited = free[link], None
        if term in waits:
            offset, needed = waits[term]
            neighbour = link + offset
            if 0 <= neighbour < links:
                waited = (neighbour, needed)
                start = max(start, end[waited])
        end[link, term] = free[link] = start + term_cycles[term]
        slots.append(Slot(link, term, start, end[link, term], waited))
    return Schedule(scheme, links, tuple(slots))
