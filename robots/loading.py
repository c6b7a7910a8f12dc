"""One loader for every robot file: standard-DH TOML (:mod:`robohw.robots.description`) and
URDF or xacro (:mod:`robohw.robots.urdf`), by the file's suffix or a shipped robot's name."""

import pathlib

from robohw.robots.chain import JOINT_TERMS, Chain
from robohw.robots.description import SHIPPED_ROBOTS, Robot, RobotFileError, load_dh_robot
from robohw.robots.toml_file import FILES_DIR
from robohw.robots.urdf import URDF_SUFFIXES, load_urdf

__all__ = ["load_robot", "is_urdf", "hardware_robot", "SHIPPED_URDF", "ALL_SHIPPED"]

# The real arms shipped as URDF files (robots/NAME.urdf, copies from example-robot-data).
SHIPPED_URDF = ("ur5", "panda")
ALL_SHIPPED = SHIPPED_ROBOTS + SHIPPED_URDF


def is_urdf(path):
    """Whether ``path`` names a URDF robot: a ``.urdf`` or ``.xacro`` file, or a shipped
    URDF's name."""
    return str(path) in SHIPPED_URDF or pathlib.Path(str(path)).suffix in URDF_SUFFIXES


def load_robot(path="puma560", *, base=None, tip=None):
    """The robot of a file or a shipped name (:data:`ALL_SHIPPED`): a TOML file's
    :class:`robohw.robots.Robot` (standard DH), a URDF or xacro file's
    :class:`robohw.robots.chain.Chain` from link ``base`` to link ``tip``
    (:func:`robohw.robots.urdf.load_urdf`). ``base`` and ``tip`` are a URDF's only."""
    if is_urdf(path):
        if str(path) in SHIPPED_URDF:
            path = FILES_DIR / f"{path}.urdf"
        return load_urdf(path, base=base, tip=tip)
    for option, value in (("--base", base), ("--tip", tip)):
        if value is not None:
            raise RobotFileError(f"{path}: {option}: a URDF robot's option (a TOML robot's "
                                 f"chain is its joints)")
    return load_dh_robot(path)


def hardware_robot(robot):
    """The standard-DH :class:`robohw.robots.Robot` a design is generated from: ``robot`` itself,
    or the robot a file or shipped name loads. A chain (a URDF robot) and a robot with joint
    terms (armature, damping, friction) are refused with ``ValueError``: the hardware is
    generated from DH parameters and computes the rigid body alone."""
    if not isinstance(robot, (Robot, Chain)):
        robot = load_robot(robot)
    if isinstance(robot, Chain):
        raise ValueError(f"{robot.source or robot.name}: the hardware is generated for "
                         f"standard-DH robots (TOML files); a URDF robot runs on the float "
                         f"backend")
    for k, joint in enumerate(robot.joints, start=1):
        for term in JOINT_TERMS:
            if getattr(joint, term):
                raise ValueError(f"{robot.source or robot.name}: joint {k}: {term}: the "
                                 f"hardware computes the rigid body alone; joint terms need "
                                 f"the float backend")
    return robot
