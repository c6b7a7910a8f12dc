"""Robot descriptions: standard Denavit-Hartenberg parameters and inertial data, in TOML
(:mod:`.description`); which closed forms a robot admits (:mod:`.family`); joint
configurations drawn within the limits (:mod:`.sampling`); parallel manipulators, a platform
on legs (:mod:`.platform`)."""

from robohw.robots.description import (DEFAULT_ROBOT, SHIPPED_ROBOTS, Joint, Robot,
                                       RobotFileError, load_robot)

__all__ = ["Joint", "Robot", "RobotFileError", "load_robot", "SHIPPED_ROBOTS", "DEFAULT_ROBOT"]
