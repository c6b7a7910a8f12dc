"""What a family tells the application, stated once in its package's ``family.py``: its
designs, its commands, its report section, its panel of the report's error histograms and its
page of the docs. The registry, the report, the command line and the tests read the
declarations (:data:`robohw.registry.FAMILIES`); none of them names a family's designs.

Each part is named as ``"module:attribute"`` and loaded on use (:meth:`Family.load`), so that
reading the declarations imports no family's hardware, report or plots.
"""

import importlib
from dataclasses import dataclass

__all__ = ["Family"]


@dataclass(frozen=True)
class Family:
    """One family's declaration.

    Parameters
    ----------
    name : str
        The family's name, and its report section's file (``{name}.md``).
    doc : str
        Its page, from the project's root (``docs/dynamics.md``).
    designs : str or None
        Its tuple of :class:`~robohw.sim.design.Design`\\ s, ``"module:attribute"``; ``None``
        for a family without registered designs.
    commands : tuple of str
        The ``robohw`` commands that run its computations (each a module of
        :mod:`robohw.commands`), its file command first; ``()``: none.
    section : str or None
        Its report section, ``"module:function"``: ``function(out_dir, rows, *, quick,
        verilator, stream)`` writes its files into ``out_dir`` (``rows``: every registered
        design's simulated row, by name) and returns the names of the files it wrote.
    error_panel : str or None
        Its panel of the report's ``errors.png``, ``"module:function"``: ``function(quick)``
        returns ``(title, unit, {label: errors})``; ``None``: no panel.
    section_reads : tuple of str or None
        The families whose designs' simulated rows its section reads (``()``: none, so the
        report starts it at once); ``None``: its own.
    """
    name: str
    doc: str
    designs: "str | None" = None
    commands: "tuple[str, ...]" = ()
    section: "str | None" = None
    error_panel: "str | None" = None
    section_reads: "tuple[str, ...] | None" = None

    @staticmethod
    def load(reference):
        """The attribute a ``"module:attribute"`` reference names (imported now)."""
        module, _, attribute = reference.partition(":")
        return getattr(importlib.import_module(module), attribute)

    def registered_designs(self):
        """Its designs (none for a family without)."""
        return () if self.designs is None else tuple(self.load(self.designs))
