"""A joint's type, one vocabulary for every robot description: revolute or prismatic."""

import enum

__all__ = ["JointType"]


class JointType(enum.StrEnum):
    """A joint's type. A ``str`` (``JointType.REVOLUTE == "revolute"``) whose ``repr`` is its
    value's, so that a joint's ``repr``, and the robot digests made of it, read as the files
    write the type."""
    REVOLUTE = "revolute"
    PRISMATIC = "prismatic"

    def __repr__(self):
        return repr(self.value)
