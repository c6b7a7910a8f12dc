"""The designs generated for every shipped robot (``--robot``): each one's default width and
fold, and its bit-exact model's error against the robot's float64 by width, for the report's
``robots.md``.

The rule the defaults follow (:meth:`robohw.sim.design.Design.for_robot`): the narrowest width
at which the model is within :data:`GOAL` of max |H| (max |tau|) over 100,000 states within the
limits (for the dynamics designs, also the narrowest whose proven bound is within 1% of the
largest torque), folded so that the shared products fit the ECP5-85F's DSP tiles. The PUMA 560
and the Stanford arm keep the registry's designs and figures (their rows say so).
"""

from robohw.registry import design, robot_designs
from robohw.robots import ALL_SHIPPED, load_robot

__all__ = ["GOAL", "robot_accuracy", "robot_section"]

# The accuracy goal the defaults meet: a share of max |H| and of max |tau|.
GOAL = 1e-4


def _shipped_with_dynamics():
    return [name for name in ALL_SHIPPED if load_robot(name).has_dynamics]


def robot_accuracy(widths, count, robots=None, seed=11):
    """Rows ``{robot, design, width, fold, default, error, reason}``: each robot design for
    each shipped robot with inertial data (or ``robots``), at each of ``widths`` and at its
    default, its model's largest error over ``count`` seeded states (``None`` with the reason
    where the design refuses the width)."""
    rows = []
    for robot in robots or _shipped_with_dynamics():
        for name in robot_designs(every=True):
            found = design(name, robot)
            for width in sorted({*widths, found.default_width}):
                row = {"robot": robot, "design": name, "width": width,
                       "default": width == found.default_width,
                       "default_fold": found.default_fold, "error": None, "reason": None}
                try:
                    dut = found.build(found.check_width(width))
                except ValueError as error:
                    row["reason"] = str(error).split("; ")[-1]
                    rows.append(row)
                    continue
                workload = found.workload(dut, count, seed=seed)
                _, errors = found.check(dut, workload, found.model_outputs(dut, workload))
                row["error"] = float(errors.max())
                rows.append(row)
    return rows


def robot_section(rows, count):
    """``robots.md``: per robot and design, the error by width, the default marked."""
    widths = sorted({r["width"] for r in rows})
    lines = ["# The designs for every shipped robot", "",
             f"Each robot design generated for each shipped robot (`--robot NAME`): its bit-exact "
             f"model's largest error against the robot's float64, as a share of max |H| or max "
             f"|tau|, over {count:,} seeded states within the limits, by width; **bold** the "
             f"default (the narrowest within {GOAL:g} over 100,000 states for the real arms, "
             f"folded to fit the ECP5-85F's DSP tiles; the PUMA 560 and Stanford arm keep the "
             f"registry's widths). `refused`: the dynamics designs' proven bound misses 1% of "
             f"the largest torque at that width.", ""]
    head = ["robot", "design", "default (width, fold)", *[f"{w} bits" for w in widths]]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    groups = {}
    for r in rows:
        groups.setdefault((r["robot"], r["design"]), {})[r["width"]] = r
    for (robot, name), by_width in groups.items():
        default = next(r for r in by_width.values() if r["default"])
        fold = "" if default["default_fold"] is None else f", {default['default_fold']}"
        cells = []
        for w in widths:
            r = by_width.get(w)
            if r is None:
                cells.append("")
            elif r["error"] is None:
                cells.append("refused")
            else:
                text = f"{r['error']:.1e}"
                cells.append(f"**{text}**" if r["default"] else text)
        lines.append(f"| {robot} | {name} | {default['width']}{fold} | " + " | ".join(cells)
                     + " |")
    return "\n".join(lines) + "\n"
