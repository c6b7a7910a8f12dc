"""One loader for every robot file: standard-DH TOML (:mod:`robohw.robots.description`) and
URDF or xacro (:mod:`robohw.robots.urdf`), by the file's suffix or a shipped robot's name."""

import hashlib
import pathlib
import re

from robohw.robots.chain import JOINT_TERMS, Chain
from robohw.robots.description import SHIPPED_ROBOTS, Robot, RobotFileError, load_dh_robot
from robohw.robots.hardware_form import hardware_form
from robohw.robots.toml_file import FILES_DIR, description_identity
from robohw.robots.urdf import URDF_SUFFIXES, load_urdf, sidecar_path
from robohw.robots.xml_file import xacro_includes

__all__ = ["load_robot", "is_urdf", "hardware_robot", "require_dynamics", "robot_file",
           "robot_files", "robot_label", "robot_record", "SHIPPED_URDF", "ALL_SHIPPED"]

# The real arms shipped as URDF files (robots/NAME.urdf: copies from example-robot-data and, the
# iiwa 14, from Drake's models; each file names its source and license).
SHIPPED_URDF = ("ur5", "panda", "iiwa14")
ALL_SHIPPED = SHIPPED_ROBOTS + SHIPPED_URDF


def is_urdf(path):
    """Whether ``path`` names a URDF robot: a ``.urdf`` or ``.xacro`` file, or a shipped
    URDF's name."""
    return str(path) in SHIPPED_URDF or \
        pathlib.Path(str(path)).suffix.lower() in URDF_SUFFIXES


def load_robot(path="puma560", *, base=None, tip=None):
    """The robot of a file or a shipped name (:data:`ALL_SHIPPED`): a TOML file's
    :class:`robohw.robots.Robot` (standard DH), a URDF or xacro file's
    :class:`robohw.robots.chain.Chain` from link ``base`` to link ``tip``
    (:func:`robohw.robots.urdf.load_urdf`). ``base`` and ``tip`` are a URDF's only."""
    if is_urdf(path):
        return load_urdf(robot_file(path), base=base, tip=tip)
    for option, value in (("--base", base), ("--tip", tip)):
        if value is not None:
            raise RobotFileError(f"{path}: {option}: a URDF robot's option (a TOML robot's "
                                 f"chain is its joints)")
    return load_dh_robot(path)


def hardware_robot(robot, terms=JOINT_TERMS, instead="the float backend"):
    """The standard-DH :class:`robohw.robots.Robot` a design is generated from: ``robot`` itself,
    or the robot a file or shipped name loads; a chain's (a URDF robot's) snapped DH form
    (:func:`robohw.robots.hardware_form.hardware_form`: the same joint values, torques and
    inertia matrix). A robot with one of the joint ``terms`` the design's hardware does not
    compute (default all of :data:`~robohw.robots.chain.JOINT_TERMS`) is refused with
    ``ValueError`` naming what computes it ``instead``."""
    if not isinstance(robot, (Robot, Chain)):
        robot = load_robot(robot)
    for k, joint in enumerate(robot.joints, start=1):
        for term in terms:
            if getattr(joint, term):
                name = getattr(joint, "name", "") or f"joint {k}"
                raise ValueError(f"{robot.source or robot.name}: {name}: {term}: this "
                                 f"design's hardware has no {term} term; it needs {instead}")
    if isinstance(robot, Chain):
        robot = hardware_form(robot)
    return robot


def require_dynamics(robot, what):
    """Raise :class:`RobotFileError` (one line naming the file) unless every joint of
    ``robot`` has mass, centre of mass and inertia: ``what`` (``"the dynamics"``) needs
    them."""
    if robot.has_dynamics:
        return
    name = robot.source or robot.name
    if is_urdf(name):
        raise RobotFileError(f"{name}: no link the chain moves has an <inertial>: {what} "
                             f"needs their masses")
    raise RobotFileError(f"{name}: {what} needs mass, com and inertia for every joint")


def robot_file(path):
    """The file a robot file or shipped name reads (a shipped name: its copy in the package)."""
    text = str(path)
    if text in SHIPPED_URDF:
        return FILES_DIR / f"{text}.urdf"
    if text in SHIPPED_ROBOTS:
        return FILES_DIR / f"{text}.toml"
    return pathlib.Path(text)


def robot_files(path):
    """``[(what, path)]``: every file loading the robot file or shipped name ``path`` reads,
    ``what`` naming its part: ``"file"``, a URDF's ``"sidecar"`` (when it exists) and each
    ``"xacro include"`` of a xacro file (none when the file cannot be expanded: loading it
    says why)."""
    file = robot_file(path)
    files = [("file", file)]
    if is_urdf(path):
        sidecar = sidecar_path(file)
        if sidecar.exists():
            files.append(("sidecar", sidecar))
        files += [("xacro include", include) for include in xacro_includes(file)]
    return files


def robot_label(path, tip=None):
    """The name a robot's hardware modules carry: the file's name without its suffixes (and
    ``tip``, when given), in lower case, every run of other characters than letters and
    digits an underscore (``ur5.urdf`` -> ``ur5``; ``panda`` with ``--tip panda_hand`` ->
    ``panda_panda_hand``)."""
    name = pathlib.Path(str(path)).name.split(".")[0]
    if tip is not None:
        name += f"_{tip}"
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "robot"


def _sha256(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def robot_record(path, robot, *, base=None, tip=None):
    """What names a robot in an export's sidecar: its file and that file's SHA-256, the URDF
    sidecar and its SHA-256 (or ``None``), ``base``, ``tip``, and ``description_sha256``, the
    digest of the loaded robot (:func:`robohw.robots.toml_file.description_identity`: what
    the hardware is generated from, xacro includes and sidecar settings included; the
    caches key on it)."""
    file = robot_file(path)
    sidecar = sidecar_path(file) if is_urdf(path) else None
    sidecar = sidecar if sidecar is not None and sidecar.exists() else None
    return {"file": str(file), "sha256": _sha256(file),
            "sidecar": None if sidecar is None else str(sidecar),
            "sidecar_sha256": None if sidecar is None else _sha256(sidecar),
            "base": base, "tip": tip,
            "description_sha256": hashlib.sha256(
                description_identity(robot).encode()).hexdigest()}
