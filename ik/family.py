"""The ik family's declaration (the PUMA inverse kinematics): what the registry, the report, the
command line and the tests read (:class:`robohw.sim.family.Family`)."""

from robohw.sim.family import Family

__all__ = ["FAMILY"]

FAMILY = Family(name="ik",
                doc="docs/ik.md",
                designs="robohw.ik.designs:DESIGNS",
                commands=("ik", "ik-graph"),
                section="robohw.ik.report:write_section",
                error_panel="robohw.ik.report:ik_error_panel")
