"""A sweep from start to end: its plan (points, cached tasks, an estimate), then its tasks on
an executor, each point's row appended to ``results.csv`` as soon as its last measurement
arrives, then the Pareto report.
"""

import functools
import pathlib
import statistics
from dataclasses import dataclass, field

from robohw.flows.synth import check_nextpnr_options
from robohw.hw.checks import check_bool, check_positive_integer
from robohw.registry import designs as find_designs
from robohw.sim.place_and_route import PLACERS, ROUTERS
from robohw.support.progress import Progress
from robohw.sweep.cache import ResultCache
from robohw.sweep.evaluate import evaluate
from robohw.sweep.executors import run_tasks, worker_count
from robohw.sweep.pareto import write_sweep_report
from robohw.sweep.space import MEASUREMENTS, sweep_points, tasks_for
from robohw.sweep.table import ResultsTable, columns, point_row

__all__ = ["SweepSpec", "SweepPlan", "plan_sweep", "format_plan", "run_sweep",
           "TYPICAL_SECONDS"]

# Seconds a task takes when the cache has no time of the same design's measurement yet, for
# the plan's estimate: inertia-linear at 18 bits, fold 6, on this project's 2-core machine
# (accuracy per 100,000 vectors: 12 s; the 8-result simulation: 3 s; synthesis, placement and
# routing with router1: 10-40 minutes for the large designs, docs/synthesis.md).
TYPICAL_SECONDS = {"accuracy": 12.0, "cycles": 5.0, "synth": 1500.0}


@dataclass(frozen=True)
class SweepSpec:
    """What to sweep and measure, and where the results go.

    ``designs``: names; ``widths``, ``folds``: lists, or ``None`` for each design's default;
    ``devices``: device names; ``measurements``: some of
    :data:`~robohw.sweep.space.MEASUREMENTS`; ``vectors``: the accuracy's seeded vectors;
    ``results``: the simulation's results for the cycles (a design that holds one input for
    thousands of cycles runs three); ``placer``, ``router``, ``target_mhz``: nextpnr's
    (:func:`robohw.flows.synth.synthesize`), ``None`` for each design's own
    (:attr:`~robohw.sim.design.Design.place_and_route`), and ``no_target``: no clock whatever
    the design's (a synthesis point is placed at seed 1 only); ``out``: the folder of
    ``results.csv``; ``cache``: the cache folder (default ``out/cache``); ``report``: the folder of
    ``sweep.md`` and the plots (default ``out``); ``reasons``: a ``reason`` column;
    ``robot``, ``base``, ``tip``: the robot file (or shipped name) and a URDF's links the
    designs are generated for (``None``: each design's own), a ``robot`` column then naming
    it in ``results.csv``."""
    designs: tuple
    out: pathlib.Path
    widths: tuple = None
    folds: tuple = None
    devices: tuple = ("ecp5-85k",)
    measurements: tuple = ("accuracy", "cycles")
    vectors: int = 100_000
    results: int = 8
    placer: str = None
    router: str = None
    target_mhz: float = None
    no_target: bool = False
    cache: pathlib.Path = None
    report: pathlib.Path = None
    reasons: bool = False
    robot: str = None
    base: str = None
    tip: str = None

    def __post_init__(self):
        unknown = [m for m in self.measurements if m not in MEASUREMENTS]
        if unknown or not self.measurements:
            raise ValueError(f"measurements must be some of {', '.join(MEASUREMENTS)}, not "
                             f"{','.join(self.measurements)!r}")
        check_nextpnr_options(self.placer or PLACERS[0], self.router or ROUTERS[0])
        check_bool("no_target", self.no_target)
        if self.no_target and self.target_mhz is not None:
            raise ValueError("no_target and a target_mhz contradict each other")
        check_positive_integer("vectors", self.vectors)
        check_positive_integer("results", self.results)
        object.__setattr__(self, "out", pathlib.Path(self.out))
        object.__setattr__(self, "cache", pathlib.Path(self.cache) if self.cache
                           else self.out / "cache")
        object.__setattr__(self, "report", pathlib.Path(self.report) if self.report
                           else self.out)

    @property
    def results_path(self):
        return self.out / "results.csv"

    @functools.cached_property
    def found(self):
        """``{name: Design}``: the designs as the sweep builds them (for its robot, if any)."""
        return find_designs(list(dict.fromkeys(self.designs)), self.robot, base=self.base,
                            tip=self.tip)

    def robot_task(self, design):
        """The :attr:`~robohw.sweep.space.Task.robot` of ``design``'s tasks."""
        found = self.found[design]
        return () if found.robot_digest is None else \
            (str(self.robot), self.base, self.tip, found.robot_digest)

    def settings(self, design):
        """``{measurement: options}`` as the tasks of ``design`` (a name) carry them: nextpnr's
        options those the spec names, the others the design's own."""
        chosen = self.found[design].place_and_route.overridden(
            self.placer, self.router, self.target_mhz, self.no_target)
        synth = {"router": chosen.router, "target_mhz": chosen.target_mhz,
                 "work": str((self.cache / "synth").resolve())}
        if chosen.placer != "heap":  # HeAP's results, cached before the option, keep their keys
            synth["placer"] = chosen.placer
        return {"accuracy": {"vectors": self.vectors},
                "cycles": {"results": self.results},
                "synth": synth}


@dataclass
class SweepPlan:
    """The points, the tasks still to run and those the cache holds, and the estimate."""
    points: list
    done: list              # points already in results.csv
    tasks: dict             # point: its tasks
    cached: dict            # task: cached outcome
    to_run: list            # tasks to evaluate, each once
    workers: int
    seconds: float = field(default=0.0)


def plan_sweep(spec, jobs=1, client=None):
    """The :class:`SweepPlan` of ``spec`` on ``jobs`` local processes or a Dask ``client``:
    nothing is measured."""
    points = sweep_points(spec.designs, spec.widths, spec.folds, spec.devices, spec.found)
    tabled = ResultsTable.peek(spec.results_path, _header(spec))
    cache = ResultCache(spec.cache)
    done = [p for p in points if p.key in tabled]
    tasks = {p: tasks_for(p, spec.measurements, spec.settings(p.design),
                          spec.robot_task(p.design))
             for p in points if p.key not in tabled}
    cached, to_run = {}, []
    for task in dict.fromkeys(t for ts in tasks.values() for t in ts):
        outcome = cache.get(task)
        if outcome is not None:
            cached[task] = outcome
        else:
            to_run.append(task)
    # Synthesis first: the longest tasks start while the short ones fill the other workers.
    to_run.sort(key=lambda t: t.measurement != "synth")
    workers = worker_count(jobs, client)
    # The cache's times read once per design and measurement, not once per task.
    estimates = {key: _estimate(cache, *key, spec)
                 for key in dict.fromkeys((t.measurement, t.design) for t in to_run)}
    seconds = [estimates[t.measurement, t.design] for t in to_run]
    total = max(sum(seconds) / workers, max(seconds, default=0.0))
    return SweepPlan(points, done, tasks, cached, to_run, workers, total)


def _header(spec):
    return columns(spec.measurements, spec.reasons, robot=spec.robot is not None)


def _estimate(cache, measurement, design, spec):
    times = cache.seconds(measurement, design)
    if times:
        return statistics.median(times)
    typical = TYPICAL_SECONDS[measurement]
    return typical * spec.vectors / 100_000 if measurement == "accuracy" else typical


def format_plan(plan):
    """The plan in a few lines, for ``robohw sweep --plan``."""
    measured = len({t for ts in plan.tasks.values() for t in ts})
    return "\n".join([
        f"{len(plan.points)} points, {len(plan.done)} already in results.csv",
        f"{measured} measurements for the others: {len(plan.cached)} cached, "
        f"{len(plan.to_run)} to run",
        f"estimate: {_duration(plan.seconds)} on {plan.workers} worker"
        f"{'s' if plan.workers > 1 else ''} (cached times of the same design's measurement, "
        f"else typical ones)"])


def _duration(seconds):
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def run_sweep(spec, jobs=1, client=None, stream=None):
    """Measure every point of ``spec`` not yet in its ``results.csv`` (cached measurements are
    not run again), appending each row as it completes; then rewrite the table in its fixed
    order and write the Pareto report. Returns the rows (dicts of strings)."""
    spec.out.mkdir(parents=True, exist_ok=True)
    plan = plan_sweep(spec, jobs, client)
    header = _header(spec)
    table = ResultsTable(spec.results_path, header)
    cache = ResultCache(spec.cache)
    outcomes = dict(plan.cached)
    waiting = dict(plan.tasks)

    def complete(points):
        for point in points:
            if all(t in outcomes for t in waiting[point]):
                table.append(point, point_row(
                    point, {t.measurement: outcomes[t] for t in waiting.pop(point)}, header))

    complete(list(waiting))
    progress = Progress(len(plan.to_run), stream)

    def arrived(task, outcome):
        cache.put(task, outcome)
        outcomes[task] = outcome
        complete([p for p, ts in waiting.items() if task in ts])
        progress.step(task.label)

    run_tasks(plan.to_run, evaluate, arrived, jobs=jobs, client=client)
    rows = table.finish()
    write_sweep_report(rows, spec.report, spec.measurements, spec.found)
    return rows
