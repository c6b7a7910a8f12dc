"""The space a sweep walks: its points (design x width x fold x device) and the measurement
tasks that evaluate them, each task shared by every point that needs it.
"""

import hashlib
from dataclasses import dataclass, field

from robohw.hw.checks import check_choice
from robohw.hw.devices import DEVICES
from robohw.registry import DESIGNS

__all__ = ["MEASUREMENTS", "SweepPoint", "Task", "sweep_points", "point_seed", "tasks_for"]

# What a point can be measured for: its error against float64 over seeded vectors in the
# bit-exact model, its latency and interval in a cycle-accurate simulation, and its resources
# and clock after synthesis, placement and routing.
MEASUREMENTS = ("accuracy", "cycles", "synth")


@dataclass(frozen=True, order=True)
class SweepPoint:
    """One design at one width and fold, on one device. ``fold`` is 1 for a design without
    one (its only value); ``robot``: the label of the robot it is generated for
    (:func:`robohw.robots.loading.robot_label`), ``None`` for the design's own."""
    design: str
    width: int
    fold: int
    device: str
    robot: str = None

    @property
    def key(self):
        """The point as the strings ``results.csv`` writes for it (the robot after the design,
        in a sweep for a robot)."""
        robot = () if self.robot is None else (self.robot,)
        return (self.design, *robot, str(self.width), str(self.fold), self.device)


@dataclass(frozen=True)
class Task:
    """One measurement of one design at one width and fold: what a worker evaluates and the
    cache keeps. ``device`` only for ``"synth"`` (the bit-exact model and the simulation do not
    depend on it, so one accuracy task serves every device); ``settings``: the measurement's
    options as sorted ``(name, value)`` pairs; ``robot``: ``()`` for the design's own robot,
    else ``(file, base, tip, digest)`` (:func:`robohw.registry.design`'s arguments and the
    loaded robot's digest, which keys the cache)."""
    measurement: str
    design: str
    width: int
    fold: int
    device: str = None
    settings: tuple = field(default=())
    robot: tuple = field(default=())

    def __post_init__(self):
        check_choice("measurement", self.measurement, MEASUREMENTS)

    @property
    def options(self):
        """:attr:`settings` as a dict."""
        return dict(self.settings)

    @property
    def label(self):
        """``inertia-linear w18 f6 synth ecp5-85k``: for progress lines and messages."""
        device = f" {self.device}" if self.device else ""
        robot = f" --robot {self.robot[0]}" if self.robot else ""
        return f"{self.design}{robot} w{self.width} f{self.fold} {self.measurement}{device}"


def sweep_points(designs, widths=None, folds=None, devices=("ecp5-85k",), found=None):
    """Every point of the sweep, in a fixed order (design as given, then width, fold, device).

    ``widths`` and ``folds``: lists (a value given twice counts once), or ``None`` for each
    design's default; a design without a fold ignores ``folds`` (its fold is 1). ``found``:
    ``{name: Design}`` for designs generated for a robot (default the registry's own)."""
    found = found or {}
    for name in designs:
        if name not in DESIGNS:
            raise ValueError(f"unknown design {name!r}; known: {', '.join(DESIGNS)}")
    for device in devices:
        check_choice("device", device, DEVICES)
    points = []
    for name in dict.fromkeys(designs):
        design = found.get(name, DESIGNS[name])
        design_folds = [1] if design.default_fold is None else \
            dict.fromkeys(folds or [design.default_fold])
        for width in dict.fromkeys(widths or [design.default_width]):
            for fold in design_folds:
                points += [SweepPoint(name, width, fold, device, design.robot_label)
                           for device in dict.fromkeys(devices)]
    return points


def point_seed(design, width, fold):
    """The workload seed of a design at a width and fold: from the point itself (not Python's
    salted ``hash``), so every run and every worker draws the same vectors."""
    digest = hashlib.sha256(f"{design}/w{width}/f{fold}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def tasks_for(point, measurements, settings, robot=()):
    """The tasks ``point`` needs, in ``measurements``' order; ``settings``:
    ``{measurement: {option: value}}``; ``robot``: see :class:`Task`."""
    return [Task(m, point.design, point.width, point.fold,
                 point.device if m == "synth" else None,
                 tuple(sorted(settings.get(m, {}).items())), tuple(robot))
            for m in measurements]
