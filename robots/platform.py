"""Parallel-manipulator descriptions in TOML: a platform on legs, each leg a base joint, a
prismatic actuator and a platform joint (Gosselin 1996). Shipped beside the robots.

:func:`load_platform` reads a file (or a shipped platform by name: ``"hexapod"``, the default,
and ``"planar_3rpr"``) into a :class:`Platform`; a bad file raises :class:`PlatformFileError`
naming the file, the leg and the field.

File format::

    name = "..."                       # required
    source = "..."                     # optional: where the numbers come from
    kind = "spatial"                   # 6 legs, poses x, y, z, roll, pitch, yaw
                                       # or "planar": 3 legs, poses x, y, phi
    gravity = [0.0, 0.0, -9.81]        # optional, base frame (planar: [gx, gy], default 0)
    home = [0.0, 0.0, 0.6, 0.0, 0.0, 0.0]  # a pose inside the workspace: where the forward
                                       # kinematics starts
    [[leg]]                            # one table per leg
    base = [0.49, -0.087, 0.0]         # base joint A_i, base frame (m; planar: 2 numbers)
    platform = [0.23, -0.19, 0.0]      # platform joint B_i, platform frame
    stroke = [0.45, 0.85]              # the actuator's shortest and longest length A_i B_i
    [leg.lower]                        # the part fixed to the base joint (cylinder)
    mass = 2.0                         # kg
    com_distance = 0.2                 # m along the leg from A_i
    inertia = 0.03                     # about the com across the leg, kg m^2 (none along it)
    [leg.upper]                        # the part fixed to the platform joint (rod)
    mass = 1.0
    com_distance = 0.15                # m along the leg from B_i
    inertia = 0.01
    [platform]
    mass = 10.0
    com = [0.0, 0.0, 0.05]             # platform frame (planar: 2 numbers)
    inertia = [0.5, 0.5, 0.9, 0.0, 0.0, 0.0]  # Ixx Iyy Izz Ixy Iyz Ixz about the com
                                       # (planar: Izz, one number)

Angles: R = Rz(yaw) Ry(pitch) Rx(roll) maps platform-frame vectors into the base frame.
Physics is checked at load: negative masses or inertias, an inertia tensor that is not positive
semidefinite and a stroke that is not ``0 < shortest < longest`` are errors; principal moments
that break the triangle inequality are a one-line :class:`PlatformFileWarning`.
"""

from dataclasses import dataclass

from robohw.robots.toml_file import inertia_tensor, number, numbers, read_toml, toml_path

__all__ = ["LegPart", "Leg", "Platform", "PlatformFileError", "PlatformFileWarning",
           "load_platform", "platform_file", "SHIPPED_PLATFORMS", "DEFAULT_PLATFORM", "KINDS"]

SHIPPED_PLATFORMS = ("hexapod", "planar_3rpr")
DEFAULT_PLATFORM = "hexapod"
# kind: (legs, coordinates of a point, pose fields, default gravity)
KINDS = {
    "spatial": (6, 3, ("x", "y", "z", "roll", "pitch", "yaw"), (0.0, 0.0, -9.81)),
    "planar": (3, 2, ("x", "y", "phi"), (0.0, 0.0)),
}


class PlatformFileError(ValueError):
    """A platform file that cannot be used; the message names the file, leg and field."""


class PlatformFileWarning(UserWarning):
    """Data worth a look; the message names the file and field."""


@dataclass(frozen=True)
class LegPart:
    """One part of a leg: its mass (kg), its centre of mass's distance along the leg from its
    own joint (m), and its moment of inertia about the centre of mass across the leg (kg m^2;
    none along it)."""
    mass: float
    com_distance: float
    inertia: float


@dataclass(frozen=True)
class Leg:
    """Base joint ``base`` (base frame), platform joint ``platform`` (platform frame), the
    actuator's ``stroke`` (shortest, longest length) and its two parts."""
    base: tuple
    platform: tuple
    stroke: tuple
    lower: LegPart
    upper: LegPart


@dataclass(frozen=True)
class Platform:
    """A parallel manipulator: ``kind`` (``"spatial"`` or ``"planar"``), its legs, the moving
    platform's ``mass``, ``com`` (platform frame) and ``inertia`` (a 3 x 3 tensor about the
    com, platform frame; planar: the moment about the normal), ``gravity`` (base frame) and the
    ``home`` pose; ``source`` is the file it came from, ``citation`` where its numbers come
    from."""
    name: str
    kind: str
    legs: tuple
    mass: float
    com: tuple
    inertia: object
    home: tuple
    gravity: tuple
    source: str = ""
    citation: str = ""

    @property
    def pose_fields(self):
        """Names of a pose's coordinates: ``x, y, z, roll, pitch, yaw`` or ``x, y, phi``."""
        return KINDS[self.kind][2]

    @property
    def spatial(self):
        return self.kind == "spatial"


def _number(value, where, field):
    return number(value, where, field, PlatformFileError)


def _numbers(value, count, where, field):
    return numbers(value, count, where, field, PlatformFileError)


def _table(data, field, where, known):
    table = data.get(field)
    if not isinstance(table, dict):
        raise PlatformFileError(f"{where}: {field}: missing (a table with "
                                f"{', '.join(sorted(known))})")
    unknown = set(table) - known
    if unknown:
        raise PlatformFileError(f"{where}: {field}.{sorted(unknown)[0]}: unknown field; known: "
                                f"{', '.join(sorted(known))}")
    for name in sorted(known):
        if name not in table:
            raise PlatformFileError(f"{where}: {field}.{name}: missing")
    return table


def _not_negative(table, field, where, prefix):
    value = _number(table[field], where, f"{prefix}.{field}")
    if value < 0:
        raise PlatformFileError(f"{where}: {prefix}.{field}: must not be negative, not {value:g}")
    return value


def _part(leg, field, where):
    table = _table(leg, field, where, {"mass", "com_distance", "inertia"})
    return LegPart(*(_not_negative(table, name, where, field)
                     for name in ("mass", "com_distance", "inertia")))


def _leg(table, coordinates, where):
    if not isinstance(table, dict):
        raise PlatformFileError(f"{where}: expected a [[leg]] table")
    known = {"base", "platform", "stroke", "lower", "upper"}
    unknown = set(table) - known
    if unknown:
        raise PlatformFileError(f"{where}: {sorted(unknown)[0]}: unknown field; known: "
                                f"{', '.join(sorted(known))}")
    for name in ("base", "platform", "stroke"):
        if name not in table:
            raise PlatformFileError(f"{where}: {name}: missing")
    stroke = _numbers(table["stroke"], 2, where, "stroke")
    if not 0 < stroke[0] < stroke[1]:
        raise PlatformFileError(f"{where}: stroke: need 0 < shortest < longest, not "
                                f"{list(stroke)}")
    return Leg(_numbers(table["base"], coordinates, where, "base"),
               _numbers(table["platform"], coordinates, where, "platform"), stroke,
               _part(table, "lower", where), _part(table, "upper", where))


def _inertia(value, spatial, where):
    """A 3 x 3 tensor (spatial) or a moment (planar), checked."""
    if not spatial:
        moment = _number(value, where, "platform.inertia")
        if moment < 0:
            raise PlatformFileError(f"{where}: platform.inertia: must not be negative")
        return moment
    tensor = inertia_tensor(_numbers(value, 6, where, "platform.inertia"), where,
                            "platform.inertia", PlatformFileError, PlatformFileWarning)
    return tuple(tuple(float(v) for v in row) for row in tensor)


def platform_file(path=DEFAULT_PLATFORM):
    """The file a platform file or shipped name reads."""
    return toml_path(path, SHIPPED_PLATFORMS)


def load_platform(path=DEFAULT_PLATFORM):
    """Read a platform file, or a shipped platform by name (see :data:`SHIPPED_PLATFORMS`)."""
    path, data = read_toml(path, SHIPPED_PLATFORMS, PlatformFileError, "platforms")
    known = {"name", "source", "kind", "gravity", "home", "leg", "platform"}
    unknown = set(data) - known
    if unknown:
        raise PlatformFileError(f"{path}: {sorted(unknown)[0]}: unknown field; known: "
                                f"{', '.join(sorted(known))}")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise PlatformFileError(f"{path}: name: missing")
    kind = data.get("kind")
    if kind not in KINDS:
        raise PlatformFileError(f"{path}: kind: expected \"spatial\" or \"planar\", not {kind!r}")
    legs, coordinates, pose, gravity = KINDS[kind]
    tables = data.get("leg")
    if not isinstance(tables, list) or len(tables) != legs:
        found = len(tables) if isinstance(tables, list) else 0
        raise PlatformFileError(f"{path}: leg: a {kind} platform has {legs} [[leg]] tables, "
                                f"not {found}")
    parsed = tuple(_leg(t, coordinates, f"{path}: leg {k}") for k, t in enumerate(tables, 1))
    body = _table(data, "platform", path, {"mass", "com", "inertia"})
    mass = _not_negative(body, "mass", path, "platform")
    com = _numbers(body["com"], coordinates, path, "platform.com")
    inertia = _inertia(body["inertia"], kind == "spatial", path)
    if "home" not in data:
        raise PlatformFileError(f"{path}: home: missing (the pose {', '.join(pose)} that "
                                f"forward kinematics starts from)")
    home = _numbers(data["home"], len(pose), path, "home")
    if "gravity" in data:
        gravity = _numbers(data["gravity"], coordinates, path, "gravity")
    citation = data.get("source", "")
    if not isinstance(citation, str):
        raise PlatformFileError(f"{path}: source: expected a string")
    return Platform(name=name, kind=kind, legs=parsed, mass=mass, com=com, inertia=inertia,
                    home=home, gravity=gravity, source=str(path), citation=citation)
