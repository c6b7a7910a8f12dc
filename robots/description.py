"""Robot descriptions: standard Denavit-Hartenberg parameters and inertial data, in TOML.

:func:`load_dh_robot` reads a file (or a shipped robot by name: ``"puma560"``, the default, and
``"puma560_fgl"``) into a :class:`Robot`; a bad file raises :class:`RobotFileError` naming
the file, the joint and the field.

File format::

    name = "..."                       # required
    source = "..."                     # optional: where the numbers come from
    gravity = [0.0, 0.0, -9.81]        # optional: gravitational acceleration, base frame
    [[joint]]                          # one table per joint, base to tip
    type = "revolute"                  # required: "revolute" or "prismatic"
    a = 0.4318                         # required, m
    alpha = 0.0                        # required, rad
    d = 0.0                            # required for a revolute joint, m (a prismatic
                                       #   joint: absent or 0, q is d)
    theta = 0.0                        # rad, prismatic only: the fixed joint angle
    offset = 0.0                       # required: rad (revolute) or m (prismatic), added to q
    limits = [-0.785, 3.927]           # optional: q range
    velocity_limit = 2.0               # optional: |qdot| bound, per second
    acceleration_limit = 5.0           # optional: |qddot| bound, per second squared
    torque_limit = 150.0               # optional: |tau| the joint's drive gives, N m (N)
    armature = 0.0                     # optional: rotor inertia at the joint, kg m^2 (kg)
    damping = 0.0                      # optional: viscous, N m s/rad (N s/m)
    friction = 0.0                     # optional: Coulomb, N m (N); tau adds
                                       #   armature qdd + damping qd + friction sign(qd)
    mass = 17.4                        # optional, kg; mass, com and inertia go together
    com = [-0.3638, 0.006, 0.2275]     # m, in the link frame
    inertia = [0.13, 0.524, 0.539, 0.0, 0.0, 0.0]  # Ixx Iyy Izz Ixy Iyz Ixz about the com

Physics is checked at load: a negative mass, an inertia that is not positive semidefinite, a
twist beyond 2 pi (degrees?) or a non-zero ``d`` of a prismatic joint are errors; principal
moments that violate the triangle inequality, and limits beyond 2 pi, are a one-line
:class:`RobotFileWarning`. Published data does the first (the PUMA's link 1 in Corke's file is
an axis-only inertia): a joint that names the source of such moments in
``published_inertia = "..."`` loads them without the warning, as the shipped files do.
"""

import math
import warnings
from dataclasses import dataclass, field

from robohw.robots.joint_type import JointType
from robohw.robots.toml_file import (
    TOLERANCE,
    inertia_tensor,
    known_fields,
    number,
    numbers,
    read_toml,
)

__all__ = ["Joint", "Robot", "RobotFileError", "RobotFileWarning", "load_dh_robot",
           "SHIPPED_ROBOTS", "DEFAULT_ROBOT", "DEFAULT_GRAVITY"]

SHIPPED_ROBOTS = ("puma560", "puma560_fgl", "stanford", "stanford_thesis")
DEFAULT_ROBOT = "puma560"
DEFAULT_GRAVITY = (0.0, 0.0, -9.81)


class RobotFileError(ValueError):
    """A robot file that cannot be used; the message names the file, joint and field."""


class RobotFileWarning(UserWarning):
    """Data that published robot files do contain but that deserve a look; the message names
    the file, joint and field."""


@dataclass(frozen=True)
class Joint:
    """One joint and the link after it (standard DH).

    ``torque_limit`` (the largest ``|tau|`` its drive gives) is left out of the joint's
    ``repr``, and so of :func:`~robohw.robots.toml_file.description_identity`: no hardware is
    built from it (it caps the arm's torque scale,
    :func:`robohw.dynamics.inverse.accuracy.torque_scale`,
    which only refuses)."""
    type: str
    a: float
    alpha: float
    d: float
    offset: float
    limits: "tuple | None" = None
    mass: "float | None" = None
    com: "tuple | None" = None
    inertia: "tuple | None" = None
    theta: float = 0.0                 # prismatic: the fixed joint angle
    velocity_limit: "float | None" = None
    acceleration_limit: "float | None" = None
    armature: float = 0.0              # the joint terms (robohw.robots.chain.JOINT_TERMS)
    damping: float = 0.0
    friction: float = 0.0
    torque_limit: "float | None" = field(default=None, repr=False)
    # A URDF joint's name, in the DH form converted from its chain (errors name it); not part
    # of what the joint is (its repr, equality and the description's identity).
    name: str = field(default="", repr=False, compare=False)


@dataclass(frozen=True)
class Robot:
    name: str
    joints: tuple
    source: str = ""
    gravity: tuple = DEFAULT_GRAVITY

    @property
    def dof(self):
        return len(self.joints)

    @property
    def has_dynamics(self):
        return all(j.mass is not None for j in self.joints)


def _number(value, where, field):
    return number(value, where, field, RobotFileError)


def _numbers(value, count, where, field):
    return numbers(value, count, where, field, RobotFileError)


_KNOWN = {"type", "a", "alpha", "d", "theta", "offset", "limits", "velocity_limit",
          "acceleration_limit", "mass", "com", "inertia", "published_inertia", "armature",
          "damping", "friction", "torque_limit"}


def _positive(table, field, where):
    if field not in table:
        return None
    value = _number(table[field], where, field)
    if value <= 0:
        raise RobotFileError(f"{where}: {field}: must be positive, not {value:g}")
    return value


def _joint(table, where):
    if not isinstance(table, dict):
        raise RobotFileError(f"{where}: expected a [[joint]] table")
    known_fields(table, _KNOWN, where, RobotFileError)
    kind = table.get("type")
    if kind not in tuple(JointType):
        raise RobotFileError(f"{where}: type: expected \"revolute\" or \"prismatic\", not {kind!r}")
    needed = ("a", "alpha", "offset") + (("d",) if kind == JointType.REVOLUTE else ())
    for name in needed:
        if name not in table:
            raise RobotFileError(f"{where}: {name}: missing")
    a, alpha, offset = (_number(table[f], where, f) for f in ("a", "alpha", "offset"))
    if abs(alpha) > 2 * math.pi + TOLERANCE:
        raise RobotFileError(f"{where}: alpha: {alpha:g} is beyond 2 pi: radians are needed "
                             f"(degrees?)")
    d = _number(table.get("d", 0.0), where, "d")
    theta = 0.0
    if kind == JointType.PRISMATIC:
        if d != 0:
            raise RobotFileError(f"{where}: d: a prismatic joint's d is its variable q; give "
                                 f"0 or leave it out (a fixed angle goes in theta)")
        theta = _number(table.get("theta", 0.0), where, "theta")
    elif "theta" in table:
        raise RobotFileError(f"{where}: theta: only a prismatic joint has a fixed theta (a "
                             f"revolute joint's angle is q + offset)")
    limits = None
    if "limits" in table:
        limits = _numbers(table["limits"], 2, where, "limits")
        if not limits[0] < limits[1]:
            raise RobotFileError(f"{where}: limits: lower bound must be below upper bound")
        if kind == JointType.REVOLUTE and max(abs(v) for v in limits) > 2 * math.pi + TOLERANCE:
            warnings.warn(f"{where}: limits: {list(limits)} reach beyond 2 pi (degrees?)",
                          RobotFileWarning, stacklevel=3)
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
        inertia_tensor(inertia, where, "inertia", RobotFileError,
                       None if _published(table, where) else RobotFileWarning)
    elif "published_inertia" in table:
        raise RobotFileError(f"{where}: published_inertia: needs mass, com and inertia")
    terms = {}
    for term in ("armature", "damping", "friction"):
        terms[term] = _number(table.get(term, 0.0), where, term)
        if terms[term] < 0:
            raise RobotFileError(f"{where}: {term}: must not be negative, not {terms[term]:g}")
    return Joint(kind, a, alpha, d, offset, limits=limits, mass=mass, com=com, inertia=inertia,
                 theta=theta, velocity_limit=_positive(table, "velocity_limit", where),
                 acceleration_limit=_positive(table, "acceleration_limit", where),
                 torque_limit=_positive(table, "torque_limit", where), **terms)


def _published(table, where):
    """Whether the joint declares its inertia as published (``published_inertia``: the
    source, a non-empty string): its principal moments then load without the triangle
    inequality's warning."""
    if "published_inertia" not in table:
        return False
    source = table["published_inertia"]
    if not isinstance(source, str) or not source.strip():
        raise RobotFileError(f"{where}: published_inertia: the source the moments are "
                             f"published in, as text, not {source!r}")
    return True


def load_dh_robot(path=DEFAULT_ROBOT):
    """Read a standard-DH robot file, or a shipped one by name (see :data:`SHIPPED_ROBOTS`);
    :func:`robohw.robots.load_robot` takes URDF files too."""
    path, data = read_toml(path, SHIPPED_ROBOTS, RobotFileError, "robots")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise RobotFileError(f"{path}: name: missing")
    tables = data.get("joint")
    if not isinstance(tables, list) or not tables:
        raise RobotFileError(f"{path}: joint: no [[joint]] tables")
    joints = tuple(_joint(t, f"{path}: joint {k}") for k, t in enumerate(tables, start=1))
    gravity = _numbers(data["gravity"], 3, path, "gravity") if "gravity" in data \
        else DEFAULT_GRAVITY
    return Robot(name=name, joints=joints, source=str(path), gravity=gravity)
