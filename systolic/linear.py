"""The O(N) linear systolic array for the inertia matrix (Amin-Javaheri & Orin, Table 1)."""

from robohw.systolic.array import InertiaArray, InertiaPlan
from robohw.systolic.reference import table1

__all__ = ["LinearPlan", "LinearInertiaArray"]


class LinearPlan(InertiaPlan):
    """The plan of :class:`LinearInertiaArray` (its algorithm, windows and latency formula)."""
    kinds = ("T", "A", "B")
    algorithm = staticmethod(table1)

    def _first_cycle(self, cell, head):
        n, lengths = self._n, self._lengths
        if cell[0] == "A":  # element i takes the composite body after elements N .. i+1
            return head + (n - cell[1]) * lengths["A"]
        j, i = cell[1:]     # column i's wavefront reaches element j after i - j - 1 steps
        return head + (n - i + 1) * lengths["A"] + (i - j - 1) * lengths["B"]

    def _processor(self, cell):
        return cell[1]  # T_i, A_i and B_{i,x} all live in element i

    @property
    def window_latency(self):
        """Cycles from an input transfer to its result being valid, unfolded:
        ``L_in + L_T + max(N * L_A, L_A + (N - 1) * L_B)``."""
        n, lengths = self._n, self._lengths
        return (lengths["in"] + lengths["T"] +
                max(n * lengths["A"], lengths["A"] + (n - 1) * lengths["B"]))


class LinearInertiaArray(InertiaArray):
    """H(q) by a linear systolic array: one processing element per link, one configuration per
    clock.

    Processing element ``i`` holds link ``i``'s constants (mass, centre of mass, inertia, twist;
    products of constants are folded at elaboration and no composite mass is divided by at run
    time: ``1/M_i`` is a constant). Its cells:

    - ``T``: the transform across the link, ``^iU_{i+1}`` and ``^ip*_{i+1}``, from the CORDIC's
      cos and sin of joint ``i + 1`` (``L_T`` cycles);
    - ``A``: folds link ``i`` into the composite body ``i+1 .. N`` that element ``i + 1``
      hands over (mass, centre of mass, inertia flow from the tip towards the base), then
      ``f_ii``, ``n_ii`` and ``H_ii`` (``L_A`` cycles);
    - ``B``, one per column ``x > i``: turns column ``x``'s force and moment from joint
      ``i + 1`` into joint ``i`` and gives ``H_ix`` (``L_B`` cycles); these wavefronts flow
      down the array from element ``x`` to element 1.

    Latency: ``L_in + L_T + max(N * L_A, L_A + (N - 1) * L_B)`` cycles, ``L_in`` the pipelined
    CORDIC's (:attr:`window_lengths` holds them all); one configuration per clock.
    """
    plan_class = LinearPlan
