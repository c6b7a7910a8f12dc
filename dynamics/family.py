"""The dynamics family's declaration (inverse dynamics): what the registry, the report, the command
line and the tests read (:class:`robohw.sim.family.Family`)."""

from robohw.sim.family import Family

__all__ = ["FAMILY"]

FAMILY = Family(name="dynamics",
                doc="docs/dynamics.md",
                designs="robohw.dynamics.designs:DESIGNS",
                commands=("dynamics", "forward-dynamics", "dynamics-gradient"),
                section="robohw.dynamics.report:write_section")
