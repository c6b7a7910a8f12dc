"""A robot's values as an error names them when a number format cannot hold them: its field
of largest magnitude (:func:`largest_value`; a platform's, :func:`platform_largest_value`) and
the robot with it (:func:`values_origin`)."""

import numpy as np

__all__ = ["largest_value", "values_origin", "platform_largest_value"]

# The fields of a joint that hold numbers, as both robot forms name them.
_NUMBER_FIELDS = ("a", "d", "offset", "theta", "limits", "velocity_limit",
                  "acceleration_limit", "mass", "com", "inertia", "armature", "damping",
                  "friction", "torque_limit")


def largest_value(robot):
    """The field of ``robot`` (a :class:`robohw.robots.Robot` or
    :class:`~robohw.robots.chain.Chain`) with the largest magnitude, as an error names it:
    ``joint 2's mass of 1.7e+308`` (``gravity of ...`` for the gravity vector)."""
    found = (max(abs(g) for g in robot.gravity), "gravity")
    for k, joint in enumerate(robot.joints, start=1):
        name = getattr(joint, "name", None) or str(k)
        placement = getattr(joint, "placement", None)     # a chain's joint: its origin
        if placement is not None:
            found = max(found, (max(map(abs, placement.translation)),
                                f"joint {name}'s origin xyz"))
        for field in _NUMBER_FIELDS:
            value = getattr(joint, field, None)
            if value is None:
                continue
            values = [float(v) for v in value] if isinstance(value, tuple) else [float(value)]
            found = max(found, (max(map(abs, values)), f"joint {name}'s {field}"))
    return f"{found[1]} of {found[0]:g}"


def values_origin(robot, largest=True):
    """A robot as an error that its values overflow a format names it: its file (or name) and
    with ``largest`` its largest value (:func:`largest_value`)."""
    name = robot.source or robot.name
    return f"{name} (its largest value: {largest_value(robot)})" if largest else name


def platform_largest_value(platform):
    """The field of a :class:`robohw.robots.platform.Platform` with the largest magnitude, as
    an error names it: ``leg 2's platform of 1e+300``."""
    def largest(value):
        return float(np.max(np.abs(np.asarray(value, dtype=np.float64))))

    found = max((largest(getattr(platform, field)), field)
                for field in ("mass", "com", "inertia", "home", "gravity"))
    for k, leg in enumerate(platform.legs, start=1):
        for field in ("base", "platform", "stroke"):
            found = max(found, (largest(getattr(leg, field)), f"leg {k}'s {field}"))
        for part in ("lower", "upper"):
            for field in ("mass", "com_distance", "inertia"):
                found = max(found, (abs(getattr(getattr(leg, part), field)),
                                    f"leg {k}'s {part} {field}"))
    return f"{found[1]} of {found[0]:g}"
