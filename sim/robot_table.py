"""Per-robot defaults measured on the shipped robots, kept as data: a TOML file beside the design
that reads it, one table a shipped robot, each with the digest of the robot it was measured on.

A row is found by the robot's digest now (a user's copy of a shipped file finds it too); a row
whose recorded digest is no longer its shipped robot's (the file changed since the
measurement) warns once (:class:`MeasuredTableWarning`) and is left out, so the design measures
or estimates again rather than take a figure of another robot.
"""

import functools
import pathlib
import tomllib
import warnings

from robohw.robots.loading import load_robot

__all__ = ["MeasuredTableWarning", "measured_table"]


class MeasuredTableWarning(UserWarning):
    """A row of a measured table no longer matches its robot's file."""


@functools.cache
def measured_table(path, digest_of):
    """``{digest: {name: value}}``: the rows of the TOML file ``path`` (``[robot]`` tables, each
    with ``digest`` and the measured values), keyed by ``digest_of`` (a function of a loaded
    robot) of the shipped robot the table names, today's file; a row whose ``digest`` is not
    that is left out with a :class:`MeasuredTableWarning`. ``ValueError`` for a row without a
    ``digest`` or of an unknown robot."""
    path = pathlib.Path(path)
    rows = tomllib.loads(path.read_text())
    out = {}
    for name, row in rows.items():
        if not isinstance(row, dict) or not isinstance(row.get("digest"), str):
            raise ValueError(f"{path.name}: [{name}] needs a digest")
        now = digest_of(load_robot(name))
        values = {key: value for key, value in row.items() if key != "digest"}
        if row["digest"] != now:
            warnings.warn(f"{path.name}: {name}'s defaults were measured on another version of "
                          f"its file (digest {row['digest']}, now {now}): not used",
                          MeasuredTableWarning, stacklevel=2)
            continue
        out[now] = values
    return out
