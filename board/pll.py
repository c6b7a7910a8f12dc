"""An ECP5 PLL (EHXPLLL) from a board's oscillator to the design's clock: the dividers for a
wanted frequency (:func:`ecp5_pll_plan`, a :class:`PLLPlan`) and the primitive that applies
them (:func:`ecp5_pll`).

With the feedback taken from the primary output (``FEEDBK_PATH = "CLKOP"``), the phase
detector compares ``f_in / CLKI_DIV`` with ``f_out / CLKFB_DIV``, and the VCO runs at
``f_out * CLKOP_DIV``; so ``f_out = f_in * CLKFB_DIV / CLKI_DIV``. The limits are those of
Project Trellis's ``ecppll`` (the phase detector 3.125 to 400 MHz, the VCO 400 to 800 MHz,
CLKI_DIV and CLKOP_DIV 1 to 128, CLKFB_DIV 1 to 80), and so is the choice of
:func:`ecp5_pll_plan`: the nearest frequency, then the VCO nearest 600 MHz, then the smallest
dividers, in exact arithmetic. The tests hold it to ``ecppll``'s frequency and dividers
(``ecppll`` computes in single precision, which can split two output dividers that tie).
"""

import dataclasses
from fractions import Fraction
from numbers import Real

from amaranth.hdl import Const, Instance, Signal

__all__ = ["PLLPlan", "ecp5_pll_plan", "ecp5_pll", "PFD_MHZ", "VCO_MHZ", "OUTPUT_MHZ"]

# The ranges ecppll (Project Trellis, libtrellis/tools/ecppll.cpp) keeps to, in MHz.
PFD_MHZ = (Fraction(3125, 1000), Fraction(400))
VCO_MHZ = (Fraction(400), Fraction(800))
OUTPUT_MHZ = (Fraction(10), Fraction(400))
_MAX_CLKI_DIV, _MAX_CLKFB_DIV, _MAX_CLKOP_DIV = 128, 80, 128
# ecppll prefers, of two equally near frequencies, the VCO nearest this.
_VCO_PREFERRED_MHZ = 600


def _mhz(name, value):
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a number of MHz, not {value!r}")
    value = Fraction(value).limit_denominator(10**6)
    if not OUTPUT_MHZ[0] <= value <= OUTPUT_MHZ[1]:
        raise ValueError(f"{name} must be {float(OUTPUT_MHZ[0]):g} to "
                         f"{float(OUTPUT_MHZ[1]):g} MHz, not {float(value):g}")
    return value


@dataclasses.dataclass(frozen=True)
class PLLPlan:
    """The dividers of an EHXPLLL with its feedback from CLKOP.

    Attributes
    ----------
    input_mhz : Fraction
        The reference clock.
    clki_div, clkfb_div, clkop_div : int
        The reference, feedback and output dividers.
    """
    input_mhz: Fraction
    clki_div: int
    clkfb_div: int
    clkop_div: int

    @property
    def output_mhz(self):
        """The clock it gives: ``input_mhz * clkfb_div / clki_div`` (exact)."""
        return self.input_mhz * self.clkfb_div / self.clki_div

    @property
    def vco_mhz(self):
        return self.output_mhz * self.clkop_div

    @property
    def clkop_cphase(self):
        """The output's coarse phase, in VCO cycles: half its period (ecppll's choice,
        Lattice's too: a 180-degree shift; with the feedback from CLKOP it leaves the
        frequency and the output's phase to the input as they are)."""
        return self.clkop_div // 2

    def parameters(self):
        """The EHXPLLL parameters and attributes, as ``Instance`` keywords."""
        return {
            "p_PLLRST_ENA": "DISABLED", "p_INTFB_WAKE": "DISABLED",
            "p_STDBY_ENABLE": "DISABLED", "p_DPHASE_SOURCE": "DISABLED",
            "p_OUTDIVIDER_MUXA": "DIVA", "p_CLKOP_ENABLE": "ENABLED",
            "p_CLKI_DIV": self.clki_div, "p_CLKFB_DIV": self.clkfb_div,
            "p_CLKOP_DIV": self.clkop_div, "p_CLKOP_CPHASE": self.clkop_cphase,
            "p_CLKOP_FPHASE": 0, "p_FEEDBK_PATH": "CLKOP",
            # The loop filter's settings ecppll writes (they are Diamond's for these PLLs);
            # the frequencies tell nextpnr the clocks it times.
            "a_ICP_CURRENT": "12", "a_LPF_RESISTOR": "8", "a_MFG_ENABLE_FILTEROPAMP": "1",
            "a_MFG_GMCREF_SEL": "2",
            "a_FREQUENCY_PIN_CLKI": f"{float(self.input_mhz):g}",
            "a_FREQUENCY_PIN_CLKOP": f"{float(self.output_mhz):.6g}",
        }


def ecp5_pll_plan(input_mhz, output_mhz):
    """The :class:`PLLPlan` whose output is nearest ``output_mhz`` from ``input_mhz``.

    Raises ``ValueError`` for a frequency outside 10 to 400 MHz (either), or when no divider
    keeps the phase detector and the VCO in their ranges."""
    input_mhz, wanted = _mhz("input_mhz", input_mhz), _mhz("output_mhz", output_mhz)
    best, best_key = None, None
    for clki_div in range(1, _MAX_CLKI_DIV + 1):
        pfd = input_mhz / clki_div
        if not PFD_MHZ[0] <= pfd <= PFD_MHZ[1]:
            continue
        for clkfb_div in range(1, _MAX_CLKFB_DIV + 1):
            output = pfd * clkfb_div
            for clkop_div in range(1, _MAX_CLKOP_DIV + 1):
                vco = output * clkop_div
                if not VCO_MHZ[0] <= vco <= VCO_MHZ[1]:
                    continue
                key = (abs(output - wanted), abs(vco - _VCO_PREFERRED_MHZ))
                if best_key is None or key < best_key:
                    best, best_key = PLLPlan(input_mhz, clki_div, clkfb_div, clkop_div), key
    if best is None:
        raise ValueError(f"no ECP5 PLL gives {float(wanted):g} MHz from "
                         f"{float(input_mhz):g} MHz")
    return best


def ecp5_pll(m, plan, clock_in, name="pll"):
    """An EHXPLLL in ``m`` applying ``plan`` to ``clock_in`` (the reference clock's signal).

    Returns ``(clock, locked)``: the output clock's signal and the lock flag."""
    if not isinstance(plan, PLLPlan):
        raise TypeError(f"plan must be a PLLPlan, not {plan!r}")
    clock, locked = Signal(name=f"{name}_clock"), Signal(name=f"{name}_locked")
    m.submodules[name] = Instance(
        "EHXPLLL", **plan.parameters(),
        i_CLKI=clock_in, i_CLKFB=clock, o_CLKOP=clock, o_LOCK=locked,
        i_RST=Const(0), i_STDBY=Const(0), i_PHASESEL0=Const(0), i_PHASESEL1=Const(0),
        i_PHASEDIR=Const(1), i_PHASESTEP=Const(1), i_PHASELOADREG=Const(1),
        i_PLLWAKESYNC=Const(0), i_ENCLKOP=Const(0))
    return clock, locked

