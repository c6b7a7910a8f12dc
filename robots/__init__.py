"""Robot descriptions: general serial chains (:mod:`.chain`); standard Denavit-Hartenberg
parameters and inertial data, in TOML (:mod:`.description`); URDF files (:mod:`.urdf`), both
by one loader (:mod:`.loading`); which closed forms a robot admits (:mod:`.family`); joint
configurations drawn within the limits (:mod:`.sampling`); parallel manipulators, a platform
on legs (:mod:`.platform`)."""

from robohw.robots.chain import Chain
from robohw.robots.description import DEFAULT_ROBOT, SHIPPED_ROBOTS, Joint, Robot, RobotFileError
from robohw.robots.loading import ALL_SHIPPED, SHIPPED_URDF, hardware_robot, is_urdf, load_robot

__all__ = ["Joint", "Robot", "Chain", "RobotFileError", "load_robot", "is_urdf", "hardware_robot",
           "SHIPPED_ROBOTS", "SHIPPED_URDF", "ALL_SHIPPED", "DEFAULT_ROBOT"]
