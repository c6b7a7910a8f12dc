"""How nextpnr places and routes a design: the options ``robohw synth`` passes it, and each
design's defaults (:attr:`robohw.sim.design.Design.place_and_route`), chosen by measurement
and stated in ``docs/synthesis.md``, so that a bare ``robohw synth --designs NAME`` and ``make
synth`` reproduce the documented figures."""

import dataclasses

from robohw.hw.checks import check_choice, check_integer, check_number

__all__ = ["PLACERS", "ROUTERS", "MAX_TARGET_MHZ", "DEFAULT_SEEDS", "DEFAULT_TIME_LIMIT_MIN",
           "PlaceAndRoute", "check_nextpnr_options"]

# nextpnr's routers: router1 (its default) and router2, which finishes congested designs
# (dynamics-array's) where router1 stalls.
ROUTERS = ("router1", "router2")
# nextpnr's analytic placer (its default) and its electrostatic one, whose placement of the
# large folded designs has shorter wires (inertia-linear's routes where HeAP's does not:
# docs/synthesis.md). Simulated annealing ("sa") is left out: hours at these sizes.
PLACERS = ("heap", "static")
# Targets are checked below this (10 GHz): far beyond any FPGA, so a typo, not a wish.
MAX_TARGET_MHZ = 10_000
# The placement seed alone moves Fmax by several percent: a documented figure is the worst of
# these three.
DEFAULT_SEEDS = (1, 2, 3)
# A place-and-route run that takes more CPU time than this stops (minutes): the large designs
# take 10-40 minutes on the project's machine, and a placement that cannot route runs for hours.
DEFAULT_TIME_LIMIT_MIN = 45


def check_nextpnr_options(placer, router):
    """Raise ``ValueError`` unless ``placer`` is one of :data:`PLACERS` and ``router`` one of
    :data:`ROUTERS`."""
    check_choice("placer", placer, PLACERS)
    check_choice("router", router, ROUTERS)


@dataclasses.dataclass(frozen=True)
class PlaceAndRoute:
    """nextpnr's options for one design.

    Parameters
    ----------
    placer : str
        One of :data:`PLACERS`.
    router : str
        One of :data:`ROUTERS`.
    target_mhz : float or None
        A clock to route for (nextpnr's ``--freq`` with its timing-driven rip-up), or
        ``None``: nextpnr's 12 MHz, which every path meets, so nothing is rerouted for timing.
    seeds : tuple of int
        Placement seeds; a figure is the worst of them.
    reason : str
        Why these options: the measurement that chose them.
    """
    placer: str = "heap"
    router: str = "router1"
    target_mhz: float | None = None
    seeds: tuple = DEFAULT_SEEDS
    reason: str = "nextpnr's defaults"

    def __post_init__(self):
        check_nextpnr_options(self.placer, self.router)
        if self.target_mhz is not None:
            check_number("target_mhz", self.target_mhz, above=0, below=MAX_TARGET_MHZ,
                         unit="MHz")
        if not isinstance(self.seeds, tuple):
            raise TypeError(f"seeds must be a tuple, not {type(self.seeds).__name__}")
        if not self.seeds or len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"seeds must be distinct and at least one, not {self.seeds}")
        for seed in self.seeds:
            check_integer("seed", seed, minimum=0)
        if not isinstance(self.reason, str):
            raise TypeError(f"reason must be a str, not {type(self.reason).__name__}")

    def overridden(self, placer=None, router=None, target_mhz=None, no_target=False,
                   seeds=None):
        """These options with those a user gave in their place (``None``: keep this one's);
        ``no_target``: route for no clock, whatever the target."""
        if no_target and target_mhz is not None:
            raise ValueError("no_target and a target_mhz contradict each other")
        target = None if no_target else (self.target_mhz if target_mhz is None else target_mhz)
        return dataclasses.replace(self, placer=placer or self.placer,
                                   router=router or self.router, target_mhz=target,
                                   seeds=self.seeds if seeds is None else tuple(seeds))

    def options(self):
        """The options as ``robohw synth`` names them: one line."""
        target = f"--target-mhz {self.target_mhz:g}" if self.target_mhz else "no target"
        return (f"--placer {self.placer} --router {self.router}, {target}, seeds "
                f"{','.join(map(str, self.seeds))}")
