"""The dynamics family's page of ``robohw report``, ``dynamics.md`` and ``dynamics.json``: inverse
dynamics' sections (:mod:`robohw.dynamics.inverse.report`), then forward dynamics'
(:mod:`robohw.dynamics.forward.report`), then the gradient's
(:mod:`robohw.dynamics.gradient.report`)."""

import json
import pathlib

from robohw.dynamics.designs import DESIGNS
from robohw.dynamics.forward.report import forward_engines, forward_rows, forward_section
from robohw.dynamics.gradient.report import gradient_engines, gradient_rows, gradient_section
from robohw.dynamics.inverse.report import inverse_sections
from robohw.support.formats import SYNTH_FILE, read_rows, versioned

__all__ = ["write_dynamics_report", "write_section"]


def write_dynamics_report(out_dir, measured=None, quick=False):
    """Measure, write ``dynamics.md``, ``dynamics.json`` and ``dynamics_tp.png``; return the
    Markdown. ``measured``: the registry designs' rows by name
    (:func:`robohw.sim.measure.measure_design`)."""
    out_dir = pathlib.Path(out_dir)
    synth_rows = read_rows(out_dir / SYNTH_FILE)
    sections, data = inverse_sections(out_dir, measured or {}, quick, synth_rows)
    forward = forward_engines(forward_rows(quick), synth_rows)
    gradient = gradient_engines(gradient_rows(quick), synth_rows)
    text = "\n\n".join([*sections, forward_section(forward), gradient_section(gradient)]) + "\n"
    (out_dir / "dynamics.md").write_text(text)
    (out_dir / "dynamics.json").write_text(json.dumps(versioned(
        {**data, "forward": forward, "gradient": gradient}), indent=1))
    return text


def write_section(out_dir, rows, *, quick=False, verilator=False, stream=None):
    """The report's dynamics section (:class:`robohw.sim.family.Family`): ``dynamics.md``
    with every registered dynamics design's simulated ``rows``."""
    write_dynamics_report(out_dir, {d.name: rows[d.name] for d in DESIGNS if d.name in rows},
                          quick=quick)
    return ("dynamics.md", "dynamics_tp.png")
