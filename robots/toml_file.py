"""What the loaders of robot and platform files share: a shipped file found by its name, the
file read as TOML, and numbers checked, every failure one line of the loader's own error."""

import dataclasses
import hashlib
import math
import pathlib
import tomllib
import warnings

import numpy as np

__all__ = ["toml_path", "read_toml", "number", "numbers", "known_fields", "inertia_tensor",
           "description_identity", "robot_digest", "inertia_digest"]

# Relative tolerance of the physics checks: the data are decimals of a few digits.
TOLERANCE = 1e-6

FILES_DIR = pathlib.Path(__file__).parent


def toml_path(path, shipped):
    """The file a TOML file's path or a shipped name (one of ``shipped``, a file of this
    folder) names."""
    path = pathlib.Path(path)
    if path.suffix != ".toml" and str(path) in shipped:
        path = FILES_DIR / f"{path}.toml"
    return path


def read_toml(path, shipped, error, kind):
    """``(path, data)`` of a TOML file, or of a shipped one by its name (one of ``shipped``,
    a file of this folder); a missing or unreadable file raises ``error`` (naming the shipped
    ``kind``: robots, platforms)."""
    path = toml_path(path, shipped)
    try:
        with open(path, "rb") as file:
            return path, tomllib.load(file)
    except FileNotFoundError:
        raise error(f"{path}: no such file (shipped {kind}: {', '.join(shipped)})") from None
    except OSError as failure:          # a directory, a file without read permission
        raise error(f"{path}: cannot be read: {failure.strerror or failure}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as failure:
        raise error(f"{path}: not valid TOML: {failure}") from None


def number(value, where, field, error):
    """``value`` as a float if it is a finite number, else ``error`` naming ``where`` and
    ``field``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise error(f"{where}: {field}: expected a finite number, not {value!r}")
    return float(value)


def numbers(value, count, where, field, error):
    """``value`` as a tuple of ``count`` floats, else ``error``."""
    if not isinstance(value, list) or len(value) != count:
        raise error(f"{where}: {field}: expected a list of {count} numbers, not {value!r}")
    return tuple(number(v, where, field, error) for v in value)


def known_fields(table, known, where, error):
    """Raise ``error`` naming the first field of ``table`` that is not in ``known``."""
    unknown = set(table) - set(known)
    if unknown:
        raise error(f"{where}: {sorted(unknown)[0]}: unknown field; known: "
                    f"{', '.join(sorted(known))}")


def inertia_tensor(values, where, field, error, warning):
    """The 3 x 3 tensor of ``Ixx, Iyy, Izz, Ixy, Iyz, Ixz``: not positive semidefinite is an
    ``error``; principal moments that break the triangle inequality, a ``warning`` (published
    data has them; ``None``: declared as published, no warning)."""
    ixx, iyy, izz, ixy, iyz, ixz = values
    tensor = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    moments = np.linalg.eigvalsh(tensor)
    scale = max(abs(moments).max(), 1e-300)
    listed = ", ".join(f"{m:.4g}" for m in moments)
    if moments[0] < -TOLERANCE * scale:
        raise error(f"{where}: {field}: not positive semidefinite (principal moments {listed})")
    if warning is not None and moments[2] > moments[0] + moments[1] + TOLERANCE * scale:
        warnings.warn(f"{where}: {field}: principal moments {listed} break the triangle "
                      f"inequality (no rigid body has them)", warning, stacklevel=5)
    return tensor


def description_identity(description):
    """What a robot or platform description is, as text, without where its file lies (its
    ``source``): a key for what is built from it (a compiled model), the same from any
    checkout."""
    return repr(dataclasses.replace(description, source=""))


def robot_digest(robot):
    """16 hex digits of SHA-256 over ``robot``'s description (:func:`description_identity`):
    limits included, its file's place not; what a robot's measured tables and held defaults are
    keyed by."""
    return hashlib.sha256(description_identity(robot).encode()).hexdigest()[:16]


def inertia_digest(robot):
    """16 hex digits of SHA-256 over what ``robot``'s inertia matrix is made of over its
    position limits: its description (:func:`description_identity`) without its joints'
    velocity and acceleration limits."""
    joints = tuple(dataclasses.replace(j, velocity_limit=None, acceleration_limit=None)
                   for j in robot.joints)
    return robot_digest(dataclasses.replace(robot, joints=joints))
