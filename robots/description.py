"""Robot descriptions: standard Denavit-Hartenberg parameters and inertial data, in TOML.

:func:`load_robot` reads a file (or a shipped robot by name: ``"puma560"``, the default, and
``"puma560_fgl"``) into a :class:`Robot`; a bad file raises :class:`RobotFileError` naming
the file, the joint and the field.

File format::

    name = "..."                       # required
    [[joint]]                          # one table per joint, base to tip
    type = "revolute"                  # or "prismatic"
    a = 0.4318                         # m
    alpha = 0.0                        # rad
    d = 0.0                            # m
    offset = 0.0                       # rad (revolute) or m (prismatic), added to q
    limits = [-0.785, 3.927]           # optional: q range
    mass = 17.4                        # optional, kg; mass, com and inertia go together
    com = [-0.3638, 0.006, 0.2275]     # m, in the link frame
    inertia = [0.13, 0.524, 0.539, 0.0, 0.0, 0.0]  # Ixx Iyy Izz Ixy Iyz Ixz about the com
"""

import math
import pathlib
import tomllib
from dataclasses import dataclass

__all__ = ["Joint", "Robot", "RobotFileError", "load_robot", "SHIPPED_ROBOTS", "DEFAULT_ROBOT"]

ROBOTS_DIR = pathlib.Path(__file__).parent
SHIPPED_ROBOTS = ("puma560", "puma560_fgl")
DEFAULT_ROBOT = "puma560"


class RobotFileError(ValueError):
    """A robot file that cannot be used; the message names the file, joint and field."""


@dataclass(frozen=True)
class Joint:
    """One joint and the link after it (standard DH)."""
    type: str
    a: float
    alpha: float
    d: float
    offset: float
    limits: "tuple | None" = None
    mass: "float | None" = None
    com: "tuple | None" = None
    inertia: "tuple | None" = None


@dataclass(frozen=True)
class Robot:
    name: str
    joints: tuple
    source: str = ""

    @property
    def dof(self):
        return len(self.joints)

    @property
    def has_dynamics(self):
        return all(j.mass is not None for j in self.joints)


def _number(value, where, field):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise RobotFileError(f"{where}: {field}: expected a finite number, not {value!r}")
    return float(value)


def _numbers(value, count, where, field):
    if not isinstance(value, list) or len(value) != count:
        raise RobotFileError(f"{where}: {field}: expected a list of {count} numbers, not {value!r}")
    return tuple(_number(v, where, field) for v in value)


_KNOWN = {"type", "a", "alpha", "d", "offset", "limits", "mass", "com", "inertia"}


def _joint(table, where):
    if not isinstance(table, dict):
        raise RobotFileError(f"{where}: expected a [[joint]] table")
    unknown = set(table) - _KNOWN
    if unknown:
        raise RobotFileError(f"{where}: {sorted(unknown)[0]}: unknown field; known: "
                             f"{', '.join(sorted(_KNOWN))}")
    kind = table.get("type")
    if kind not in ("revolute", "prismatic"):
        raise RobotFileError(f"{where}: type: expected \"revolute\" or \"prismatic\", not {kind!r}")
    for field in ("a", "alpha", "d", "offset"):
        if field not in table:
            raise RobotFileError(f"{where}: {field}: missing")
    limits = None
    if "limits" in table:
        limits = _numbers(table["limits"], 2, where, "limits")
        if not limits[0] < limits[1]:
            raise RobotFileError(f"{where}: limits: lower bound must be below upper bound")
    inertial = [f for f in ("mass", "com", "inertia") if f in table]
    if inertial and len(inertial) != 3:
        missing = sorted({"mass", "com", "inertia"} - set(inertial))[0]
        raise RobotFileError(f"{where}: {missing}: missing (mass, com and inertia go together)")
    mass = com = inertia = None
    if inertial:
        mass = _number(table["mass"], where, "mass")
        if mass < 0:
            raise RobotFileError(f"{where}: mass: must not be negative")
        com = _numbers(table["com"], 3, where, "com")
        inertia = _numbers(table["inertia"], 6, where, "inertia")
    return Joint(kind, *(_number(table[f], where, f) for f in ("a", "alpha", "d", "offset")),
                 limits=limits, mass=mass, com=com, inertia=inertia)


def load_robot(path=DEFAULT_ROBOT):
    """Read a robot file, or a shipped robot by name (see :data:`SHIPPED_ROBOTS`)."""
    path = pathlib.Path(path)
    if path.suffix != ".toml" and str(path) in SHIPPED_ROBOTS:
        path = ROBOTS_DIR / f"{path}.toml"
    try:
        with open(path, "rb") as file:
            data = tomllib.load(file)
    except FileNotFoundError:
        raise RobotFileError(f"{path}: no such file (shipped robots: "
                             f"{', '.join(SHIPPED_ROBOTS)})") from None
    except tomllib.TOMLDecodeError as error:
        raise RobotFileError(f"{path}: not valid TOML: {error}") from None
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise RobotFileError(f"{path}: name: missing")
    tables = data.get("joint")
    if not isinstance(tables, list) or not tables:
        raise RobotFileError(f"{path}: joint: no [[joint]] tables")
    joints = tuple(_joint(t, f"{path}: joint {k}") for k, t in enumerate(tables, start=1))
    return Robot(name=name, joints=joints, source=str(path))
