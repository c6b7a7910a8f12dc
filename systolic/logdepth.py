"""The O(log2 N) recursive-doubling array for the inertia matrix (Amin-Javaheri & Orin,
Table 2 and Figure 3)."""

from robohw.systolic.array import InertiaArray, InertiaPlan
from robohw.systolic.reference import log2_levels, table2

__all__ = ["LogDepthPlan", "LogDepthInertiaArray"]


class LogDepthPlan(InertiaPlan):
    """The plan of :class:`LogDepthInertiaArray` (its algorithm, windows and latency formula)."""
    kinds = ("T", "A", "D", "B")
    algorithm = staticmethod(table2)

    def _first_cycle(self, cell, head):
        lengths = self._lengths
        diagonal = head + log2_levels(self._n) * lengths["A"]
        if cell[0] == "A":  # Stage A, level l
            return head + (cell[1] - 1) * lengths["A"]
        if cell[0] == "D":
            return diagonal
        return diagonal + lengths["D"] + (cell[1] - 1) * lengths["B"]  # Stage B, level l

    @property
    def window_latency(self):
        """Cycles from an input transfer to its result being valid, unfolded:
        ``L_in + L_T + ceil(log2 N) * (L_A + L_B) + L_D``."""
        lengths, levels = self._lengths, log2_levels(self._n)
        return (lengths["in"] + lengths["T"] + lengths["D"] +
                levels * (lengths["A"] + lengths["B"]))


class LogDepthInertiaArray(InertiaArray):
    """H(q) by recursive doubling: ``ceil(log2 N)`` levels of processing elements, one
    configuration per clock.

    One processing element per box of the paper's Figure 3:

    - level 0, ``T``: the transform across each link from the CORDIC's cos and sin
      (``L_T`` cycles);
    - Stage A, level ``l`` (``A``): the composite body of links ``a .. k`` from two halves, and
      the transform across it, for every suffix of every block of ``2**l`` links (``L_A``);
    - diagonal (``D``): ``f_ii``, ``n_ii``, ``H_ii`` (``L_D``);
    - Stage B, level ``l`` (``B``): column ``x``'s force and moment moved ``2**(l-1)`` joints at
      once through Stage A's transforms, only where ``x`` lies in the upper half (Figure 3's
      dashed boxes are not built) (``L_B``).

    Latency: ``L_in + L_T + ceil(log2 N) * (L_A + L_B) + L_D`` cycles (:attr:`window_lengths`);
    one configuration per clock.
    """
    plan_class = LogDepthPlan
