"""A design on a board (:class:`BoardTop`): the board's oscillator through a PLL to the design's
clock (:class:`ClockPlan`), the design held in reset until the PLL locks, and a
:class:`~robohw.board.core.BoardCore` on the board's serial pins.
"""

import dataclasses
from fractions import Fraction

from amaranth.hdl import ClockDomain, ClockSignal, Elaboratable, Module, ResetSignal
from amaranth.lib import io
from amaranth.lib.cdc import ResetSynchronizer

from robohw.board.boards import BoardTarget
from robohw.board.core import BoardCore
from robohw.board.pll import PLLPlan, ecp5_pll, ecp5_pll_plan
from robohw.board.uart import MIN_DIVISOR
from robohw.hw.checks import check_integer
from robohw.hw.global_buffer import global_buffer

__all__ = ["ClockPlan", "clock_plan", "BoardTop", "MAX_BAUD_ERROR", "DEFAULT_BAUD",
           "DEFAULT_CLOCK_MHZ"]

# The FT231X bridge's fastest rate (FTDI DS_FT231X: 3 Mbaud), the build's default.
DEFAULT_BAUD = 3_000_000
# The design clock the build asks the PLL for by default: 25 times 3 Mbaud, from 25 MHz
# exactly (25 * 3 / 1), the clock of the UR5's engine's last board build (docs/board.md). The
# engine's own clock out of context is 100 MHz; the board's target is 25 MHz * 27 / 7 =
# 96.43 MHz (`--clock-mhz 96.43`), the PLL's nearest to 96 MHz from above, 32 cycles a bit at
# 3 Mbaud, 0.45 % fast (100 MHz would be 33 cycles a bit, 1.01 % fast: over MAX_BAUD_ERROR),
# not yet met on every seed (docs/notes/2026-12-every-design-at-100-mhz.md).
DEFAULT_CLOCK_MHZ = 75
# The largest difference between the UART's rate and the host's: a receiver samples each bit
# at its middle, so over ten bits a byte stays readable up to about 5 %; both ends' errors add.
MAX_BAUD_ERROR = 0.01


@dataclasses.dataclass(frozen=True)
class ClockPlan:
    """The design's clock and the UART's divisor on a board.

    Attributes
    ----------
    pll : PLLPlan
        The PLL from the board's oscillator.
    baud : int
        The host's rate.
    divisor : int
        Clock cycles a bit of the UART.
    """
    pll: PLLPlan
    baud: int
    divisor: int

    @property
    def clock_mhz(self):
        return self.pll.output_mhz

    @property
    def uart_baud(self):
        """The UART's rate: the clock over the divisor (exact)."""
        return self.pll.output_mhz * 10**6 / self.divisor

    @property
    def baud_error(self):
        """The UART's rate relative to the host's, less one."""
        return float(self.uart_baud / self.baud - 1)


def clock_plan(target, clock_mhz=DEFAULT_CLOCK_MHZ, baud=DEFAULT_BAUD):
    """The :class:`ClockPlan` of ``target`` (a :class:`~robohw.board.boards.BoardTarget`) for
    ``clock_mhz`` (the PLL's nearest) and ``baud``. ``ValueError`` where the UART's rate would
    differ from ``baud`` by more than :data:`MAX_BAUD_ERROR`, or its divisor be under
    :data:`~robohw.board.uart.MIN_DIVISOR`."""
    if not isinstance(target, BoardTarget):
        raise TypeError(f"target must be a BoardTarget, not {target!r}")
    check_integer("baud", baud, minimum=1)
    pll = ecp5_pll_plan(target.clock_mhz, clock_mhz)
    divisor = round(pll.output_mhz * 10**6 / Fraction(baud))
    if divisor < MIN_DIVISOR:
        raise ValueError(f"{baud} baud from a {float(pll.output_mhz):g} MHz clock is "
                         f"{divisor} cycles a bit; the UART takes at least {MIN_DIVISOR}")
    plan = ClockPlan(pll, baud, divisor)
    if abs(plan.baud_error) > MAX_BAUD_ERROR:
        raise ValueError(f"{baud} baud from a {float(pll.output_mhz):g} MHz clock is "
                         f"{float(plan.uart_baud):.0f} baud ({plan.baud_error:+.2%}); pick a "
                         f"clock within {MAX_BAUD_ERROR:.0%} of a multiple of the rate")
    return plan


class BoardTop(Elaboratable):
    """``design`` on the board ``target``, one serial port to the host.

    Parameters
    ----------
    target : BoardTarget
        The board.
    design : StreamPipeline
        A design with a tag of :data:`~robohw.board.frame_decoder.TAG_BITS` bits.
    digest : str
        The design's digest (its identity reply's).
    plan : ClockPlan
        The clock and the UART's divisor (:func:`clock_plan`).

    The PLL's output drives the ``sync`` domain (nextpnr derives its frequency from the
    oscillator's, which the platform constrains); the domain's reset is held until the PLL
    locks and released synchronously (``ResetSynchronizer``), on a clock network of the ECP5
    (:func:`~robohw.hw.global_buffer.global_buffer`). The target's first LED lights once the
    PLL has locked.
    """

    def __init__(self, target, design, digest, plan):
        if not isinstance(target, BoardTarget):
            raise TypeError(f"target must be a BoardTarget, not {target!r}")
        if not isinstance(plan, ClockPlan):
            raise TypeError(f"plan must be a ClockPlan, not {plan!r}")
        self.target, self.plan = target, plan
        self.core = BoardCore(design, plan.divisor, digest)

    def elaborate(self, platform):
        m = Module()
        # Each pin through its platform's buffer (Amaranth's io.Buffer), the lines unchanged.
        oscillator = io.Buffer("i", platform.request(self.target.clock, 0, dir="-"))
        uart = platform.request(self.target.uart, 0, dir="-")
        rx, tx = io.Buffer("i", uart.rx), io.Buffer("o", uart.tx)
        led = io.Buffer("o", platform.request(self.target.led, 0, dir="-"))
        m.submodules.oscillator, m.submodules.rx, m.submodules.tx = oscillator, rx, tx
        m.submodules.led = led
        clock, locked = ecp5_pll(m, self.plan.pll, oscillator.i)
        m.domains.sync = ClockDomain("sync")
        # The reset synchronized in a domain of its own on the same clock, then on a clock
        # network to every register that resets: through the fabric the net from the
        # synchronizer to the valid bits across the chip set the board's clock (11.4 of its
        # 12.6 ns in routing; docs/board.md).
        m.domains.reset = ClockDomain("reset", local=True)
        m.d.comb += [ClockSignal("sync").eq(clock), ClockSignal("reset").eq(clock)]
        m.submodules.reset = ResetSynchronizer(~locked, domain="reset")
        m.d.comb += ResetSignal("sync").eq(
            global_buffer(m, ResetSignal("reset"), "reset_global", platform))
        m.submodules.core = core = self.core
        m.d.comb += [core.rx.eq(rx.i), tx.o.eq(core.tx), led.o.eq(locked)]
        return m
