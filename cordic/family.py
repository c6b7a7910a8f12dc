"""The cordic family's declaration (CORDIC processors): what the registry, the report, the command
line and the tests read (:class:`robohw.sim.family.Family`)."""

from robohw.sim.family import Family

__all__ = ["FAMILY"]

FAMILY = Family(name="cordic",
                doc="docs/cordic.md",
                designs="robohw.cordic.designs:DESIGNS",
                section="robohw.cordic.report:write_section",
                section_reads=(),
                error_panel="robohw.cordic.report:cordic_error_panel")
