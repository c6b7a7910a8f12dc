"""Pareto fronts of a sweep: for each design and device, the points no other point beats in
speed, size and error at once, listed in ``sweep.md`` and drawn in ``sweep_{design}.png``.

The axes come from what the sweep measured, the same for every point of a design and device:

- speed: results per microsecond after synthesis (``fmax_mhz / interval``), else results per
  cycle (``1 / interval_cycles``, simulated);
- size: LUT-equivalents after synthesis (:func:`robohw.support.pareto.lut_equivalents`; block
  RAM is listed, not weighed), else the
  register bits of the elaborated design (flip-flops before synthesis);
- error: the largest error against float64 over the accuracy's vectors, in the design's unit.

Only valid points stand on a front; the others are listed with their reasons.
"""

from collections.abc import Callable
from dataclasses import dataclass

from robohw.registry import DESIGNS
from robohw.support.atomic import atomic_open, write_text
from robohw.support.pareto import DSP_LUT_EQUIVALENT, dominates, lut_equivalents, pareto_mask

__all__ = ["Axis", "sweep_fronts", "format_sweep", "write_sweep_report"]


@dataclass(frozen=True)
class Axis:
    """One axis of a front: its name, unit, whether more is better, and ``value``, the
    function reading it from a ``results.csv`` row (``None`` when absent)."""
    name: str
    unit: str
    larger_is_better: bool
    value: Callable


def _number(row, name):
    text = row.get(name, "")
    return float(text) if text not in ("", None) else None


def _results_per_us(row):
    return _number(row, "results_per_us")


def _results_per_cycle(row):
    interval = _number(row, "interval_cycles")
    return 1 / interval if interval else None


def _lut_equivalents(row):
    parts = [_number(row, name) for name in ("luts", "carry", "lut_ram", "dsp")]
    if None in parts:
        return None
    return lut_equivalents(*parts)


def _register_bits(row):
    return _number(row, "register_bits")


def _max_error(row):
    return _number(row, "max_error")


def _axes(measurements):
    axes = []
    if "synth" in measurements:
        axes += [Axis("speed", "results/µs", True, _results_per_us),
                 Axis("size", "LUT-equivalents", False, _lut_equivalents)]
    elif "cycles" in measurements:
        axes += [Axis("speed", "results/cycle", True, _results_per_cycle),
                 Axis("size", "register bits", False, _register_bits)]
    if "accuracy" in measurements:
        axes.append(Axis("error", "max error", False, _max_error))
    return axes


def _default(design):
    return (design.default_width, 1 if design.default_fold is None else design.default_fold)


def sweep_fronts(rows, measurements, found=None):
    """``[{design, robot, device, axes, points, invalid, default}]`` per design (and robot)
    and device in the rows' order: ``points`` the valid rows with their axis values and
    ``front`` flag, ``invalid`` the rest, ``default`` the default point's row or ``None``:
    the registry's, or that of the design in ``found`` (``{name: Design}``, the designs as
    the sweep built them for its robot)."""
    axes = _axes(measurements)
    found = found or {}
    groups = {}
    for row in rows:
        groups.setdefault((row["design"], row.get("robot"), row["device"]), []).append(row)
    fronts = []
    for (name, robot, device), members in groups.items():
        design = found.get(name, DESIGNS.get(name))
        valid = [r for r in members if r["valid"] == "1" and
                 all(a.value(r) is not None for a in axes)]
        values = [tuple(a.value(r) for a in axes) for r in valid]
        mask = pareto_mask(values, [a.larger_is_better for a in axes]) if axes else \
            [False] * len(valid)
        points = [{"row": r, "values": v, "front": f} for r, v, f in zip(valid, values, mask)]
        width, fold = _default(design) if design is not None else (None, None)
        default = next((p for p in points if (int(p["row"]["width"]), int(p["row"]["fold"]))
                        == (width, fold)), None)
        fronts.append({"design": name, "robot": robot, "device": device, "axes": axes,
                       "points": points, "invalid": [r for r in members if r not in valid],
                       "default": default, "default_point": (width, fold),
                       "folded": design is not None and design.default_fold is not None})
    return fronts


def _label(row):
    return f"w{row['width']} f{row['fold']}"


def _figure(value):
    if float(value).is_integer() and abs(value) >= 1:
        return f"{int(value):,}"
    return f"{value:.3g}"


def _justification(group):
    """Why the registry's default point of a group stands where it does."""
    width, fold = group["default_point"]
    rule = (f"the {'registry' if group['robot'] is None else 'robot'}'s default: {width} bits" +
            (f", folded by {fold}, its fold for an ECP5-85F at that width"
             if group["folded"] else ""))
    default = group["default"]
    if default is None:
        return f"{rule}; not among this sweep's valid points."
    if not group["axes"]:
        return f"{rule}."
    if default["front"]:
        return f"{rule}; on the front: no swept point is faster, smaller and as accurate."
    larger = [a.larger_is_better for a in group["axes"]]
    better = [p for p in group["points"] if dominates(p["values"], default["values"], larger)]
    return (f"{rule}; dominated by {', '.join(_label(p['row']) for p in better)} on these "
            f"axes (which leave out what they do not measure: block RAM, routing at a target "
            f"clock, the widths the designs' other uses need).")


def format_sweep(fronts):
    """``sweep.md``: every design and device's front, its other points and its default."""
    lines = ["# Design-space sweep: Pareto fronts", "",
             "Per design and device, the points no other swept point beats on every axis at "
             "once (faster, smaller and more accurate); `*` marks a point on the front, "
             "`default` the registry's default. Speed is results per microsecond when the "
             "sweep synthesized, else per cycle; size is LUT-equivalents when it synthesized "
             f"(a DSP tile = {DSP_LUT_EQUIVALENT:,} LUTs, the fabric's own 18 x 18 product), "
             "else register bits.", ""]
    for group in fronts:
        axes = group["axes"]
        robot = "" if group["robot"] is None else f" for {group['robot']}"
        lines += [f"## {group['design']}{robot} on {group['device']}", ""]
        head = ["point", "front", *[f"{a.name} ({a.unit})" for a in axes]]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for point in sorted(group["points"], key=lambda p: (int(p["row"]["width"]),
                                                              int(p["row"]["fold"]))):
            mark = ("*" if point["front"] else "") + \
                (" default" if point is group["default"] else "")
            lines.append(f"| {_label(point['row'])} | {mark.strip()} | " +
                         " | ".join(_figure(v) for v in point["values"]) + " |")
        for row in group["invalid"]:
            lines.append(f"| {_label(row)} | invalid | " +
                         " | ".join([row.get("reason") or "not valid"] +
                                    [""] * (len(axes) - 1)) + " |")
        width, fold = group["default_point"]
        lines += ["", f"Default (w{width} f{fold}): {_justification(group)}", ""]
    return "\n".join(lines)


def _plot(design, groups, path):
    """One panel per device: size against speed, coloured by error when measured."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm
    figure, panels = plt.subplots(1, len(groups), figsize=(5.5 * len(groups), 4.2),
                                  squeeze=False)
    for panel, group in zip(panels[0], groups):
        axes, points = group["axes"], group["points"]
        panel.set_title(f"{design} on {group['device']}", fontsize=10)
        if len(axes) < 2 or not points:
            panel.text(0.5, 0.5, "nothing to compare", ha="center", transform=panel.transAxes)
            continue
        x = [p["values"][1] for p in points]
        y = [p["values"][0] for p in points]
        colour = {}
        if len(axes) == 3:
            errors = [max(p["values"][2], 1e-300) for p in points]
            colour = {"c": errors, "cmap": "viridis",
                      "norm": LogNorm(min(errors), max(max(errors), min(errors) * 1.0001))}
        drawn = panel.scatter(x, y, s=[60 if p["front"] else 25 for p in points],
                              edgecolors=["black" if p["front"] else "none" for p in points],
                              alpha=1.0, **colour)
        if colour:
            unit = points[0]["row"].get("error_unit", "")
            figure.colorbar(drawn, ax=panel, label=f"max error ({unit})")
        for point, px, py in zip(points, x, y):
            panel.annotate(_label(point["row"]), (px, py), fontsize=7,
                           xytext=(3, 3), textcoords="offset points")
        if group["default"] is not None:
            d = group["default"]["values"]
            panel.scatter([d[1]], [d[0]], marker="*", s=220, facecolors="none",
                          edgecolors="red", label="default")
            panel.legend(fontsize=8, loc="best")
        panel.set_xlabel(f"{axes[1].name} ({axes[1].unit})")
        panel.set_ylabel(f"{axes[0].name} ({axes[0].unit})")
        if min(x) > 0 and max(x) / min(x) > 20:
            panel.set_xscale("log")
        if min(y) > 0 and max(y) / min(y) > 20:
            panel.set_yscale("log")
    figure.tight_layout()
    with atomic_open(path, binary=True) as file:
        figure.savefig(file, format="png", dpi=110)
    plt.close(figure)


def write_sweep_report(rows, folder, measurements, found=None):
    """Write ``sweep.md`` and ``sweep_{design}.png`` (``sweep_{design}_{robot}.png`` for a
    robot's; black-edged: on the front; a red star: the default) into ``folder``; return the
    fronts (``found``: see :func:`sweep_fronts`)."""
    folder.mkdir(parents=True, exist_ok=True)
    fronts = sweep_fronts(rows, measurements, found)
    write_text(folder / "sweep.md", format_sweep(fronts))
    by_design = {}
    for group in fronts:
        name = group["design"] + ("" if group["robot"] is None else f"_{group['robot']}")
        by_design.setdefault(name, []).append(group)
    for design, groups in by_design.items():
        _plot(design, groups, folder / f"sweep_{design}.png")
    return fronts
