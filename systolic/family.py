"""The inertia family's declaration (the manipulator inertia matrix): what the registry, the
report, the command line and the tests read (:class:`robohw.sim.family.Family`)."""

from robohw.sim.family import Family

__all__ = ["FAMILY"]

FAMILY = Family(name="inertia",
                doc="docs/inertia.md",
                designs="robohw.systolic.designs:DESIGNS",
                commands=("inertia",),
                section="robohw.systolic.report:write_section",
                error_panel="robohw.systolic.report:inertia_error_panel")
