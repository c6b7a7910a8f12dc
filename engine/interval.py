"""An engine's default interval, one search for every traced graph: the smallest interval whose
engine is estimated (:func:`~robohw.engine.estimate.engine_resources`) within a
:class:`Budget` on a device, searched once for a plan and cached
(:func:`~robohw.sim.measured_default.measured_default`). A family states its budget (what its
engines placed and routed took) and where its search starts; the search is the same."""

from dataclasses import dataclass

from robohw.engine.estimate import engine_resources
from robohw.engine.machine import MAX_INTERVAL
from robohw.engine.plan import compile_plan
from robohw.hw.checks import check_integer
from robohw.hw.devices import DEVICES
from robohw.sim.measured_default import measured_default

__all__ = ["Budget", "fitting_interval", "ROUTED_LUT_BUDGET", "INTERVAL_STEP"]

# The estimated LUTs (engine_resources) a default engine of a large traced plan may take. The
# PUMA 560's articulated-body engine at II 144, estimated at 51,454, took 62,652 TRELLIS_COMB
# (74 %) and did not place within robohw synth's 45-minute limit; at that ratio (1.22) an engine
# within this budget takes about 48,700 (58 %), near the 45,067 of the largest inverse-dynamics
# engine placed and routed (the UR5's at II 5; docs/synth.json). The UR5's solved forward engine
# by locality at II 40, estimated at 40,465, routed at 56 % of TRELLIS_COMB
# (docs/notes/2026-12-forward-engine-solved.md).
ROUTED_LUT_BUDGET = 41_000
# The default intervals of the engines under that budget are multiples of this.
INTERVAL_STEP = 8


@dataclass(frozen=True)
class Budget:
    """What a default engine may take on ``device`` (a :data:`~robohw.hw.devices.DEVICES`
    name): ``luts`` estimated LUTs, and the device's DSP tiles."""
    luts: int
    device: str = "ecp5-85k"

    def __post_init__(self):
        check_integer("luts", self.luts, minimum=1)
        if self.device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, not "
                             f"{self.device!r}")

    @property
    def dsp_tiles(self):
        """The device's DSP tiles."""
        return DEVICES[self.device].dsp

    def fits(self, estimate):
        """Whether an :func:`~robohw.engine.estimate.engine_resources` ``estimate`` is within
        the budget."""
        return estimate["luts"] <= self.luts and estimate["dsp_tiles"] <= self.dsp_tiles


def fitting_interval(plan, budget, key, *, start, step=1, partition=None):
    """The smallest interval from ``start`` in steps of ``step`` whose engine of ``plan`` (a
    traced plan; by locality with ``partition``,
    :func:`~robohw.engine.plan.compile_plan`'s) is estimated within ``budget``
    (:data:`~robohw.engine.machine.MAX_INTERVAL` if none), searched once for ``key`` (a string
    naming what determines the plan and its partition: the design, the robot's digest, the
    width) and cached."""
    check_integer("start", start, minimum=2, maximum=MAX_INTERVAL)
    check_integer("step", step, minimum=1)

    def search():
        for interval in range(start, MAX_INTERVAL + 1, step):
            program = compile_plan(plan, interval, partition=partition)
            if budget.fits(engine_resources(plan, program)):
                return interval
        return MAX_INTERVAL

    return measured_default("intervals", f"{key} {budget} {start} {step}", search, int)
