"""The transputer family's declaration (Lagrange-Euler on a transputer network): what the registry,
the report, the command line and the tests read (:class:`robohw.sim.family.Family`)."""

from robohw.sim.family import Family

__all__ = ["FAMILY"]

FAMILY = Family(name="transputer",
                doc="docs/transputer.md",
                commands=("transputer",),
                section="robohw.transputer.report:write_section",
                section_reads=("dynamics",))
