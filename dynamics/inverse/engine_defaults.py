"""The inverse-dynamics engine's defaults for the shipped arms: their widths and the intervals
placed and routed, the robot digest that keys them, and the LUT budget (the least estimated
LUTs of a routed engine) by which another robot's engine, and forward dynamics' engine, take
their default interval."""

import functools
import hashlib

from robohw.dynamics.inverse.engine import EnginePlan
from robohw.engine.estimate import engine_resources
from robohw.robots.description import SHIPPED_ROBOTS
from robohw.robots.loading import SHIPPED_URDF, load_robot
from robohw.robots.toml_file import description_identity

__all__ = ["ENGINE_WIDTH", "ENGINE_ROBOT_WIDTHS", "ENGINE_ROBOT_INTERVALS", "engine_lut_budget",
           "robot_digest", "shipped_digest"]

# The engine at 18 bits: one DSP tile a product, and the narrowest whose model is within 1e-4 of
# max |tau| on the PUMA 560 over 100,000 states within its limits (tests/dynamics/
# test_link_frames.py measures it again; the table by width: docs/dynamics.md).
ENGINE_WIDTH = 18
# Each other shipped arm's engine width (by robot_digest): the narrowest at which the engine's
# model is within 1e-4 of max |tau| over 100,000 states within the limits (measured again by
# tests/dynamics/test_link_frames.py); the proven bound's rule may take a wider one.
ENGINE_ROBOT_WIDTHS = {
    "7efe057ccc8c29c5": 20,     # ur5
    "08b0b60311048a4e": 21,     # panda (tip panda_hand)
}
# The shipped arms' engines placed and routed at 100 MHz or more on seeds 1-3 at their default
# width (docs/results.md), by robot_digest: their default intervals. Another robot's (the
# Panda's too: no interval tried routes, docs/dynamics.md) is the smallest from ENGINE_INTERVAL
# up whose engine is estimated (robohw.engine.estimate) at no more LUTs than the least of these
# (engine_lut_budget): unmeasured until robohw synth places it.
ENGINE_ROBOT_INTERVALS = {
    "e94d90654977c325": 5,      # puma560
    "7efe057ccc8c29c5": 5,      # ur5
}


@functools.cache
def engine_lut_budget():
    """The least estimated LUTs (:func:`~robohw.engine.estimate.engine_resources`) of the
    shipped arms' engines at their placed defaults (:data:`ENGINE_ROBOT_INTERVALS`)."""
    luts = []
    for name in (*SHIPPED_ROBOTS, *SHIPPED_URDF):
        robot = load_robot(name)
        digest = robot_digest(robot)
        if digest in ENGINE_ROBOT_INTERVALS:
            plan = EnginePlan(robot, width=ENGINE_ROBOT_WIDTHS.get(digest, ENGINE_WIDTH),
                              interval=ENGINE_ROBOT_INTERVALS[digest], bound_fraction=None)
            luts.append(engine_resources(plan, plan.program)["luts"])
    return min(luts)


@functools.cache
def shipped_digest(name):
    """The :func:`robot_digest` of a shipped robot called ``name``."""
    return robot_digest(load_robot(name))


def robot_digest(robot):
    """16 hex digits of SHA-256 over ``robot``'s description
    (:func:`robohw.robots.toml_file.description_identity`): limits included, its file's place
    not."""
    return hashlib.sha256(description_identity(robot).encode()).hexdigest()[:16]
