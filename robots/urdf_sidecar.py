"""A URDF's sidecar, ``NAME.urdf.toml`` beside it (:func:`sidecar_path`): what a URDF cannot
say or says too loosely, checked (:func:`read_sidecar`): acceleration limits, tighter velocity
and torque limits (:func:`tightened_limit`), armature, locked positions of joints off the
chain, gravity, and the chain's base and tip links. docs/robots.md has its format."""

import pathlib
import tomllib

from robohw.robots.description import RobotFileError
from robohw.robots.toml_file import TOLERANCE, known_fields, number, numbers

__all__ = ["sidecar_path", "read_sidecar", "sidecar_value", "tightened_limit"]

_SIDECAR_JOINT = {"acceleration_limit", "velocity_limit", "torque_limit", "armature",
                  "position"}
_SIDECAR_TOP = {"acceleration_limit", "velocity_limit", "torque_limit", "armature", "gravity",
                "joint", "base", "tip"}


def sidecar_path(path):
    """The sidecar of the robot file ``path``: ``NAME.urdf.toml`` for ``NAME.urdf`` and
    ``NAME.urdf.xacro`` (``NAME.xacro``: ``NAME.urdf.toml`` too)."""
    path = pathlib.Path(path)
    name = path.name[:-len(".xacro")] if path.name.lower().endswith(".xacro") else path.name
    if not name.lower().endswith(".urdf"):
        name += ".urdf"
    return path.with_name(name + ".toml")


def read_sidecar(path, joints):
    """The sidecar's tables, checked: ``(top, per_joint)``."""
    side = sidecar_path(path)
    if not side.exists():
        return {}, {}
    try:
        with open(side, "rb") as file:
            data = tomllib.load(file)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as failure:
        raise RobotFileError(f"{side}: not valid TOML: {failure}") from None
    known_fields(data, _SIDECAR_TOP, side, RobotFileError)
    tables = data.get("joint", {})
    if not isinstance(tables, dict):
        raise RobotFileError(f"{side}: joint: expected [joint.NAME] tables")
    per_joint = {}
    for name, table in tables.items():
        where = f"{side}: joint {name}"
        if name not in joints:
            raise RobotFileError(f"{where}: no such joint in {path.name}")
        if not isinstance(table, dict):
            raise RobotFileError(f"{where}: expected a table")
        known_fields(table, _SIDECAR_JOINT, where, RobotFileError)
        per_joint[name] = {k: sidecar_value(v, where, k) for k, v in table.items()}
    top = {k: sidecar_value(v, str(side), k) for k, v in data.items() if k != "joint"}
    return top, per_joint


def sidecar_value(value, where, field):
    if field in ("base", "tip"):
        if not isinstance(value, str) or not value:
            raise RobotFileError(f"{where}: {field}: expected a link's name, not {value!r}")
        return value
    if field == "gravity":
        return numbers(value, 3, where, field, RobotFileError)
    value = number(value, where, field, RobotFileError)
    if field in ("acceleration_limit", "velocity_limit", "torque_limit") and value <= 0:
        raise RobotFileError(f"{where}: {field}: must be positive, not {value:g}")
    if field == "armature" and value < 0:
        raise RobotFileError(f"{where}: {field}: must not be negative, not {value:g}")
    return value


def tightened_limit(path, joint, field, settings, urdf):
    """Joint ``joint``'s ``field`` (``velocity_limit``, ``torque_limit``): the sidecar's
    ``settings`` value, which may only tighten the URDF's ``urdf``, else ``urdf``."""
    if field not in settings:
        return urdf
    if urdf is not None and settings[field] > urdf * (1 + TOLERANCE):
        raise RobotFileError(f"{sidecar_path(path)}: joint {joint}: {field}: "
                             f"{settings[field]:g} exceeds the URDF's {urdf:g} (a sidecar may "
                             f"only tighten it)")
    return settings[field]
