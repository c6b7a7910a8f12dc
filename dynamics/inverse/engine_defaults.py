"""The inverse-dynamics engine's defaults for the shipped arms: their widths and the intervals
placed and routed (measured, in :data:`DEFAULTS_FILE`), the robot digest that keys them, and
the LUT budget (the least estimated LUTs of a routed engine) by which another robot's engine
(:func:`engine_interval`), and forward dynamics' engine, take their default interval."""

import functools
import pathlib

from robohw.dynamics.inverse.engine import ENGINE_INTERVAL, LinkFramePlan
from robohw.engine.estimate import engine_resources
from robohw.engine.interval import Budget, fitting_interval
from robohw.engine.partition import cell_partition
from robohw.engine.plan import compile_plan
from robohw.robots.description import SHIPPED_ROBOTS
from robohw.robots.loading import SHIPPED_URDF, load_robot
from robohw.robots.toml_file import robot_digest
from robohw.sim.robot_table import measured_table

__all__ = ["ENGINE_WIDTH", "DEFAULTS_FILE", "CLUSTERED_JOINTS", "engine_robot_widths",
           "engine_robot_intervals", "engine_lut_budget", "engine_budget", "engine_interval",
           "engine_clustered", "engine_narrowed", "robot_digest", "shipped_digest"]

# The engine at 18 bits: one DSP tile a product, and the narrowest whose model is within 1e-4 of
# max |tau| on the PUMA 560 over 100,000 states within its limits (tests/dynamics/
# test_link_frames.py measures it again; the table by width: docs/dynamics.md).
ENGINE_WIDTH = 18
# The shipped arms' measured widths and placed intervals, each row with the digest of the robot
# it was measured on (robohw.sim.robot_table: a row whose robot's file changed is not used).
DEFAULTS_FILE = pathlib.Path(__file__).with_name("engine_defaults.toml")
# An arm of this many joints or more runs on the engine by locality (a cluster a link,
# docs/dynamics.md) unless its row says otherwise: the flat engine's network does not route
# for the seven-joint arms at any interval tried (docs/notes/2026-12-link-frame-engine.md),
# and routes the six-joint ones at II 5.
CLUSTERED_JOINTS = 7


def engine_robot_widths():
    """``{robot_digest: width}``: each shipped arm's engine width where :data:`DEFAULTS_FILE`
    holds one, the narrowest at which the engine's model is within 1e-4 of max |tau| over
    100,000 states within the limits (the proven bound's rule may take a wider one)."""
    return {digest: row["width"] for digest, row in
            measured_table(DEFAULTS_FILE, robot_digest).items() if "width" in row}


def engine_robot_intervals():
    """``{robot_digest: interval}``: the shipped arms' engines placed and routed at 100 MHz or
    more on seeds 1-3 at their default width (:data:`DEFAULTS_FILE`), their default intervals.
    Another robot's (the Panda's too: no interval tried routes, docs/dynamics.md) is the
    smallest from ENGINE_INTERVAL up whose engine is estimated (robohw.engine.estimate) at no
    more LUTs than the least of these (:func:`engine_lut_budget`)."""
    return {digest: row["interval"] for digest, row in
            measured_table(DEFAULTS_FILE, robot_digest).items() if "interval" in row}


@functools.cache
def engine_lut_budget():
    """The least estimated LUTs (:func:`~robohw.engine.estimate.engine_resources`) of the
    shipped arms' engines at their placed defaults (:func:`engine_robot_intervals`), each
    flat or by locality, narrowed or not, as it was placed (:func:`engine_clustered`,
    :func:`engine_narrowed`)."""
    luts = []
    intervals, widths = engine_robot_intervals(), engine_robot_widths()
    for name in (*SHIPPED_ROBOTS, *SHIPPED_URDF):
        robot = load_robot(name)
        digest = robot_digest(robot)
        if digest in intervals:
            plan = LinkFramePlan(robot, width=widths.get(digest, ENGINE_WIDTH),
                                 bound_fraction=None, narrowed=engine_narrowed(robot, digest))
            partition = cell_partition(plan) if engine_clustered(robot, digest) else None
            program = compile_plan(plan, intervals[digest], partition=partition)
            luts.append(engine_resources(plan, program)["luts"])
    return min(luts)


def engine_clustered(robot, digest=None):
    """Whether ``robot``'s engine (its hardware form; ``digest`` its :func:`robot_digest`,
    computed if not given) runs by locality: its row's ``clustered`` in :data:`DEFAULTS_FILE`,
    else whether it has :data:`CLUSTERED_JOINTS` joints or more."""
    digest = robot_digest(robot) if digest is None else digest
    row = measured_table(DEFAULTS_FILE, robot_digest).get(digest, {})
    return row.get("clustered", robot.dof >= CLUSTERED_JOINTS)


def engine_narrowed(robot, digest=None):
    """Whether ``robot``'s engine takes narrowed operands where its bound allows
    (:class:`~robohw.dynamics.inverse.engine.LinkFramePlan`'s ``narrowed``): its row's
    ``narrowed`` in :data:`DEFAULTS_FILE`, else whether it runs by locality
    (:func:`engine_clustered`: the six-joint arms stay as they were placed)."""
    digest = robot_digest(robot) if digest is None else digest
    row = measured_table(DEFAULTS_FILE, robot_digest).get(digest, {})
    return row.get("narrowed", engine_clustered(robot, digest))


def engine_interval(robot, width, digest):
    """The engine's default interval for ``robot`` (its hardware form, ``digest`` its
    :func:`robot_digest`) at ``width`` bits: a shipped arm's placed interval
    (:func:`engine_robot_intervals`), else the smallest from
    :data:`~robohw.dynamics.inverse.engine.ENGINE_INTERVAL` whose engine (by locality where
    :func:`engine_clustered`) is estimated within :func:`engine_budget`
    (:func:`~robohw.engine.interval.fitting_interval`: searched once and cached)."""
    intervals = engine_robot_intervals()
    if digest in intervals:
        return intervals[digest]
    narrowed = engine_narrowed(robot, digest)
    plan = LinkFramePlan(robot, width=width, bound_fraction=None, narrowed=narrowed)
    clustered = engine_clustered(robot, digest)
    return fitting_interval(plan, engine_budget(),
                            f"dynamics-engine {digest} {width}{' clustered' * clustered}"
                            f"{' narrowed' * narrowed}",
                            start=ENGINE_INTERVAL,
                            partition=cell_partition(plan) if clustered else None)


def engine_budget():
    """The :class:`~robohw.engine.interval.Budget` of a default inverse-dynamics engine on the
    ECP5-85F: :func:`engine_lut_budget` LUTs and the device's DSP tiles."""
    return Budget(engine_lut_budget())


@functools.cache
def shipped_digest(name):
    """The :func:`robot_digest` of a shipped robot called ``name``."""
    return robot_digest(load_robot(name))
