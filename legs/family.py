"""The platform family's declaration (parallel manipulators): what the registry, the report, the
command line and the tests read (:class:`robohw.sim.family.Family`)."""

from robohw.sim.family import Family

__all__ = ["FAMILY"]

FAMILY = Family(name="platform",
                doc="docs/legs.md",
                designs="robohw.legs.designs:DESIGNS",
                commands=("platform",),
                section="robohw.legs.report:write_section",
                section_reads=())
