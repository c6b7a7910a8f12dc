"""The distributed family's declaration (the distributed Newton-Euler): what the registry, the
report, the command line and the tests read (:class:`robohw.sim.family.Family`)."""

from robohw.sim.family import Family

__all__ = ["FAMILY"]

FAMILY = Family(name="distributed",
                doc="docs/distributed.md",
                commands=("distributed",),
                section="robohw.distributed.report:write_section",
                section_reads=())
