"""A design on a board (robohw.board.top, robohw.board.boards): the clock plan (the PLL's clock,
the UART's divisor, the rate's error checked), each board's target against its Amaranth
platform, and the top as the platform prepares it: the PLL's dividers, the pins."""

from fractions import Fraction

import pytest
from affine_design import AffineDesign

from robohw.board.boards import BOARDS, BoardTarget, board_target
from robohw.board.top import DEFAULT_BAUD, DEFAULT_CLOCK_MHZ, MAX_BAUD_ERROR, BoardTop, clock_plan

ULX3S = board_target("ulx3s-85f")
DIGEST = "0123456789abcdef"


def test_the_default_clock_divides_the_default_rate_exactly():
    plan = clock_plan(ULX3S)
    assert plan.clock_mhz == DEFAULT_CLOCK_MHZ == 75
    assert plan.divisor == 25 and plan.uart_baud == DEFAULT_BAUD and plan.baud_error == 0


def test_the_target_clock_is_the_pll_s_nearest_above_96_mhz():
    plan = clock_plan(ULX3S, 96.43)
    assert plan.clock_mhz == Fraction(25 * 27, 7)
    assert (plan.pll.clki_div, plan.pll.clkfb_div) == (7, 27)
    assert plan.divisor == 32
    assert plan.baud_error == pytest.approx(25 * 27 / 7 / 96 - 1)      # +0.45 %
    # The PLL's nearest to 96 MHz is below it (95.83 MHz); a little above, the target.
    assert clock_plan(ULX3S, 96).clock_mhz < 96 < plan.clock_mhz
    assert clock_plan(ULX3S, 96.2).clock_mhz == plan.clock_mhz


def test_100_mhz_is_refused_at_3_mbaud():
    with pytest.raises(ValueError, match=r"3000000 baud from a 100 MHz clock is 3030303 baud "
                                         r"\(\+1.01%\)"):
        clock_plan(ULX3S, 100)


def test_a_clock_the_pll_only_approaches_keeps_its_rate_within_the_limit():
    plan = clock_plan(ULX3S, 96)
    assert plan.clock_mhz == Fraction(575, 6)           # 25 * 23 / 6: ecppll's too
    assert plan.divisor == 32
    assert plan.uart_baud == Fraction(575, 6) * 10**6 / 32
    assert plan.baud_error == pytest.approx(-1 / 576)   # 95.833 / 96 - 1


def test_a_rate_the_clock_cannot_keep_is_refused():
    with pytest.raises(ValueError, match=r"3000000 baud from a 80 MHz clock is 2962963 baud "
                                         r"\(-1.23%\); pick a clock within 1% of a multiple "
                                         r"of the rate"):
        clock_plan(ULX3S, 80)
    with pytest.raises(ValueError, match="3000000 baud from a 10 MHz clock is 3 cycles a bit; "
                                         "the UART takes at least 4"):
        clock_plan(ULX3S, 10)
    with pytest.raises(TypeError, match="target must be a BoardTarget"):
        clock_plan("ulx3s-85f")
    with pytest.raises(ValueError, match="baud must be"):
        clock_plan(ULX3S, 75, 0)
    assert MAX_BAUD_ERROR == 0.01


def test_boards_are_named():
    with pytest.raises(ValueError, match="board must be one of ulx3s-85f, not 'ulx3s'"):
        board_target("ulx3s")
    with pytest.raises(TypeError, match="board must be a board's name"):
        board_target(85)


@pytest.mark.parametrize("name", sorted(BOARDS))
def test_each_target_is_its_platforms(name):
    target = BOARDS[name]
    platform = target.platform_class()()
    assert isinstance(target, BoardTarget) and target.name == name
    assert (platform.device, platform.package, platform.speed) == \
        (target.device, target.package, target.speed)
    assert platform.default_clk == target.clock
    clock = platform.lookup(target.clock, 0)
    assert clock.clock.frequency == target.clock_mhz * 1e6
    assert {s.name for s in platform.lookup(target.uart, 0).ios} >= {"rx", "tx"}
    platform.lookup(target.led, 0)
    # The 85F's nextpnr options, as the platform's own build script gives them.
    script = platform.prepare(AffineDesign(), name="plain").files["build_plain.sh"]
    assert " ".join(target.nextpnr) in script


def test_the_top_holds_the_pll_the_core_and_the_pins():
    plan = clock_plan(ULX3S, 96)
    top = BoardTop(ULX3S, AffineDesign(), DIGEST, plan)
    assert top.core.divisor == 32
    files = ULX3S.platform_class()().prepare(top, name="top").files
    rtlil, lpf = files["top.il"], files["top.lpf"]
    assert "EHXPLLL" in rtlil
    # The synchronized reset reaches the design through a clock buffer, not the fabric.
    assert "DCCA" in rtlil and "reset_global" in rtlil
    for parameter, value in (("CLKI_DIV", 6), ("CLKFB_DIV", 23), ("CLKOP_DIV", 6)):
        assert f"parameter \\{parameter} {value}" in rtlil
    # The oscillator, the FT231X's lines, the first LED (the ULX3S's schematic's pins).
    for pin in ("G2", "M1", "L4", "B2"):
        assert f'SITE "{pin}"' in lpf
    assert 'FREQUENCY PORT "clk25_0__io" 25000000.0 HZ' in lpf
    with pytest.raises(TypeError, match="plan must be a ClockPlan"):
        BoardTop(ULX3S, AffineDesign(), DIGEST, (75, 25))
