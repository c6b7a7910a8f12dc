"""``robohw bench dynamics``: the inverse-dynamics engine's placed and routed rate and latency
beside Pinocchio's RNEA timed in the same run on this machine, one call at a time from Python
and from C++ (:mod:`robohw.robots.pinocchio`), per robot, with the published anchors named for
what they measured.

The engine's figures come from ``robohw synth`` rows (``synth.json``): the registry design
generated for the robot (:func:`robohw.registry.design`) at its default width and interval,
its worst placement seed's Fmax. A robot without such a row is said to be unplaced, with the
command that places it: its rate is never estimated here. The bits a state moves are the
payload's: every input field of a state, and every torque with the ``in_bounds`` flag.
"""

import dataclasses

from robohw.dynamics import state_fields, torque_fields
from robohw.registry import design
from robohw.robots.pinocchio import call_seconds, cpp_call_seconds
from robohw.sim.cache import cache_dir

__all__ = ["BENCH_ROBOTS", "PUBLISHED", "SpeedRow", "bench_dynamics", "format_dynamics_bench"]

# The arms of the comparison: the PUMA 560 (the registry's default robot), the UR5, the Panda
# and the KUKA iiwa 14, the arm the published anchors measured.
BENCH_ROBOTS = ("puma560", "ur5", "panda", "iiwa14")
# Published anchors, microseconds a call or a problem, not measured here: both on the KUKA
# iiwa (7 joints), from GRiD's tables (Plancher et al.).
PUBLISHED = (("Pinocchio RNEA, one call, Core Ultra 9 285K (published, iiwa)", 0.17),
             ("GRiD RNEA batched on an RTX 5090, a problem (published, iiwa)", 0.045))


@dataclasses.dataclass
class SpeedRow:
    """One robot's comparison: the engine's ``width``, ``interval`` (II), ``latency``
    (cycles), ``fmax_mhz`` (the worst seed's; ``None``: not placed) and ``fmax_by_seed``
    (``{seed: MHz}``, as ``robohw synth`` writes it), the bits a state moves in and out, and
    Pinocchio's seconds a call from Python and from C++ (``None``: not measured)."""
    robot: str
    width: int
    interval: int
    latency: int
    fmax_mhz: "float | None"
    fmax_by_seed: "dict | None"
    bits_in: int
    bits_out: int
    python_s: "float | None"
    cpp_s: "float | None"

    @property
    def engine_rate(self):
        """Torque vectors a second the engine computes as placed, or ``None``."""
        return None if self.fmax_mhz is None else self.fmax_mhz * 1e6 / self.interval

    @property
    def engine_latency_us(self):
        return None if self.fmax_mhz is None else self.latency / self.fmax_mhz

    def speedup(self, seconds):
        """The engine's rate over one core's calls of ``seconds`` each, or ``None``."""
        rate = self.engine_rate
        return None if rate is None or seconds is None else rate * seconds


def _placed(rows, name, label, width, fold):
    """The placed row of ``name`` for the robot ``label`` (``None``: the design's own) at
    ``width`` and ``fold``, or ``None``."""
    for row in rows:
        if row.get("design") == name and row.get("robot") == label and \
                row.get("width") == width and row.get("fold", 1) == fold and \
                row.get("fmax_mhz"):
            return row
    return None


def bench_dynamics(synth_rows, robots=BENCH_ROBOTS, calls=20_000, *, cpp=True,
                   progress=None):
    """A :class:`SpeedRow` per robot (shipped names or robot files): the engine as
    ``synth_rows`` placed it and Pinocchio timed now over ``calls`` states each, from Python
    and (``cpp``) from C++, the loop built once into the cache. ``progress``: a file for one
    line per robot."""
    out = []
    for robot in robots:
        found = design("dynamics-engine", None if robot == "puma560" else robot)
        width, fold = found.default_width, found.default_fold
        dut = found.hardware(found.hardware_robot, width, fold)
        plan = dut.plan
        placed = _placed(synth_rows, found.name, found.robot_label, width, fold)
        row = SpeedRow(
            robot=robot, width=width, interval=fold, latency=dut.latency,
            fmax_mhz=placed and placed["fmax_mhz"],
            fmax_by_seed=placed and placed.get("fmax_by_seed"),
            bits_in=sum(shape.width for shape in state_fields(plan).values()),
            bits_out=sum(shape.width for shape in torque_fields(plan).values()) + 1,
            python_s=call_seconds(plan.robot, calls=calls),
            cpp_s=cpp_call_seconds(plan.robot, cache_dir("peer"), calls=calls)
            if cpp else None)
        out.append(row)
        if progress is not None:
            print(f"bench dynamics: {robot} timed", file=progress, flush=True)
    return out


def _us(seconds):
    return "—" if seconds is None else f"{seconds * 1e6:.3f}"


def _rate(rate):
    return "—" if rate is None else f"{rate / 1e6:.2f} M/s"


def format_dynamics_bench(rows):
    """The comparison as a table, the bits a state moves at the engine's rate, and the
    published anchors."""
    lines = ["| robot | engine: width, II | Fmax, worst of seeds (MHz) | engine rate | engine "
             "latency (µs) | Pinocchio from Python (µs a call) | from C++ (µs a call) | C++ "
             "rate | engine over C++ |", "|" + "---|" * 9]
    for r in rows:
        fmax = "not placed" if r.fmax_mhz is None else f"{r.fmax_mhz:.1f}" + (
            f" ({', '.join(f'{v:.1f}' for v in r.fmax_by_seed.values())})"
            if r.fmax_by_seed else "")
        speedup = r.speedup(r.cpp_s)
        lines.append(
            f"| {r.robot} | {r.width}, {r.interval} | {fmax} | {_rate(r.engine_rate)} | "
            f"{'—' if r.engine_latency_us is None else f'{r.engine_latency_us:.2f}'} | "
            f"{_us(r.python_s)} | {_us(r.cpp_s)} | "
            f"{_rate(None if r.cpp_s is None else 1 / r.cpp_s)} | "
            f"{'—' if speedup is None else f'{speedup:.1f}x'} |")
    lines.append("")
    for r in rows:
        if r.fmax_mhz is None:
            lines.append(f"{r.robot}: not placed at width {r.width}, II {r.interval}: `robohw "
                         f"synth --designs dynamics-engine"
                         f"{'' if r.robot == 'puma560' else f' --robot {r.robot}'}` places it.")
        else:
            gbits = r.engine_rate * (r.bits_in + r.bits_out) / 1e9
            lines.append(f"{r.robot}: a state moves {r.bits_in} bits in and {r.bits_out} out "
                         f"(the torques and in_bounds): {gbits:.2f} Gbit/s at the engine's "
                         f"rate.")
    if any(r.cpp_s is None for r in rows):
        lines.append("Pinocchio from C++ not measured: its headers (pip install "
                     "'robohw[bench]') or a C++ compiler are missing.")
    lines += ["", "Published, not measured here:"]
    lines += [f"- {what}: {us} µs" for what, us in PUBLISHED]
    return "\n".join(lines)
