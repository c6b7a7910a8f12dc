"""The boards a design can be built for (:data:`BOARDS`): each an Amaranth platform from
``amaranth-boards`` and what the build takes from it: the oscillator, the serial port, a LED,
nextpnr's device options and openFPGALoader's name for the board.

Another ECP5 board of ``amaranth-boards`` is one more :class:`BoardTarget`: its platform's
class, the names of its clock, UART and LED resources, its oscillator's frequency and its
FPGA's nextpnr options (``tests/board/test_boards.py`` checks them against the platform).
"""

import dataclasses
import importlib

__all__ = ["BoardTarget", "BOARDS", "board_target", "BoardSetupError"]


class BoardSetupError(RuntimeError):
    """A board's platform cannot be loaded: ``amaranth-boards`` is not installed."""


@dataclasses.dataclass(frozen=True)
class BoardTarget:
    """A board a design is built for.

    Attributes
    ----------
    name : str
        The board's name on the command line (``ulx3s-85f``).
    platform : str
        ``module:Class`` of its Amaranth platform.
    clock, uart, led : str
        Its resources: the oscillator, the serial port to the host (``rx`` and ``tx``), a LED
        lit once the PLL has locked.
    clock_mhz : int
        The oscillator's frequency.
    device, package, speed : str
        The platform's FPGA, as its class names them (checked against it).
    nextpnr : tuple of str
        nextpnr-ecp5's options for that FPGA.
    loader_board : str
        openFPGALoader's ``-b`` name of the board.
    """
    name: str
    platform: str
    clock: str
    clock_mhz: int
    uart: str
    led: str
    device: str
    package: str
    speed: str
    nextpnr: tuple
    loader_board: str

    def platform_class(self):
        """The platform's class (``amaranth-boards``, the ``board`` extra)."""
        module, name = self.platform.split(":")
        try:
            return getattr(importlib.import_module(module), name)
        except ImportError:
            raise BoardSetupError(f"building for the {self.name} needs amaranth-boards: "
                                  f"pip install 'robohw[board]'") from None


BOARDS = {
    # Radiona ULX3S with an LFE5U-85F: a 25 MHz oscillator, an FT231X USB serial bridge
    # (up to 3 Mbaud), eight LEDs.
    "ulx3s-85f": BoardTarget(
        name="ulx3s-85f", platform="amaranth_boards.ulx3s:ULX3S_85F_Platform",
        clock="clk25", clock_mhz=25, uart="uart", led="led",
        device="LFE5U-85F", package="BG381", speed="6",
        nextpnr=("--85k", "--package", "CABGA381", "--speed", "6"), loader_board="ulx3s"),
}


def board_target(name):
    """The :class:`BoardTarget` named ``name``; ``ValueError`` naming the boards otherwise."""
    if not isinstance(name, str):
        raise TypeError(f"board must be a board's name, not {name!r}")
    if name not in BOARDS:
        raise ValueError(f"board must be one of {', '.join(BOARDS)}, not {name!r}")
    return BOARDS[name]
