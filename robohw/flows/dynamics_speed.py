"""``robohw bench dynamics``: the inverse-dynamics engine's placed and routed rate and latency
beside Pinocchio's RNEA, the forward-dynamics engine's beside Pinocchio's ``aba`` and the
gradient's beside its ``computeRNEADerivatives`` (:data:`PROBLEMS`), each timed in the same
run on this machine, one call at a time from Python and from C++
(:mod:`robohw.robots.pinocchio`), per robot, with the published anchors named for what they
measured.

The engines' figures come from ``robohw synth`` rows (``synth.json``): the registry design
generated for the robot (:func:`robohw.registry.design`) at its default width and interval,
its worst placement seed's Fmax. A robot without such a row is said to be unplaced, with the
command that places it: its rate is never estimated here; one whose design is refused (forward
dynamics with no proven width) says why. The bits a state moves are the payload's: every input
field of a state, and every output with its flags.
"""

import dataclasses

from robohw.dynamics import forward_fields, state_fields
from robohw.engine.rate_table import placed_row
from robohw.hw.checks import check_choice
from robohw.registry import design
from robohw.robots.loading import hardware_robot
from robohw.robots.pinocchio import call_seconds, cpp_call_seconds
from robohw.sim.cache import cache_dir

__all__ = ["BENCH_ROBOTS", "PUBLISHED", "PROBLEMS", "Problem", "SpeedRow", "bench_dynamics",
           "format_dynamics_bench"]

# The arms of the comparison: the PUMA 560 (the registry's default robot), the UR5, the Panda
# and the KUKA iiwa 14, the arm the published anchors measured.
BENCH_ROBOTS = ("puma560", "ur5", "panda", "iiwa14")
# Published anchors, microseconds a call or a problem, not measured here: both on the KUKA
# iiwa (7 joints), from GRiD's tables (Plancher et al.).
PUBLISHED = (("Pinocchio RNEA, one call, Core Ultra 9 285K (published, iiwa)", 0.17),
             ("GRiD RNEA batched on an RTX 5090, a problem (published, iiwa)", 0.045))


@dataclasses.dataclass(frozen=True)
class Problem:
    """What one comparison measures: the registry ``design``, Pinocchio's ``algorithm``, what a
    result is (``results``), the payload's input fields (``inputs(plan)``), its output values
    (``outputs``, what they are called, ``count(dof)`` of them) beside the ``flags``, the
    ``published`` anchors and the table's ``title``."""
    name: str
    design: str
    algorithm: str
    results: str
    inputs: object
    flags: tuple
    published: tuple
    title: str = ""
    outputs: str = ""
    count: object = None

    def output_bits(self, plan):
        """The bits of a result's payload: its values at the plan's width, and its flags."""
        return self.count(plan.dof) * plan.width + len(self.flags)


# The comparisons: inverse dynamics (torques) and forward dynamics (accelerations). The forward
# anchors, not measured here: both on the KUKA iiwa (7 joints), from GRiD's tables.
PROBLEMS = {
    "inverse": Problem("inverse", "dynamics-engine", "rnea", "torque vectors",
                       state_fields, ("in_bounds",), PUBLISHED, "Inverse dynamics",
                       "the torques", lambda dof: dof),
    "forward": Problem("forward", "forward-dynamics", "aba", "acceleration vectors",
                       forward_fields, ("in_bounds", "checked"),
                       (("Pinocchio ABA, one call (published, iiwa)", 0.40),
                        ("GRiD forward dynamics batched on a GPU, a problem (published, iiwa)",
                         0.059)), "Forward dynamics", "the accelerations", lambda dof: dof),
    # The gradient's anchor as the issue that asked for it quotes Robomorphic (Neuman et al.):
    # 34 cycles of a VU9P at 55.6 MHz.
    "gradient": Problem("gradient", "dynamics-gradient", "rnea_derivatives", "gradients",
                        state_fields, ("in_bounds",),
                        (("Robomorphic's gradient on a VU9P, 34 cycles at 55.6 MHz (published, "
                          "iiwa)", round(34 / 55.6, 3)),),
                        "The gradient of inverse dynamics", "dtau/dq and dtau/dqd",
                        lambda dof: 2 * dof * dof),
}


@dataclasses.dataclass
class SpeedRow:
    """One robot's comparison: the engine's ``width``, ``interval`` (II), ``latency``
    (cycles), ``fmax_mhz`` (the worst seed's; ``None``: not placed) and ``fmax_by_seed``
    (``{seed: MHz}``, as ``robohw synth`` writes it), the bits a state moves in and out, and
    Pinocchio's seconds a call from Python and from C++ (``None``: not measured); ``refused``:
    why the robot has no engine (its width, interval, latency and bits ``None``)."""
    robot: str
    width: "int | None"
    interval: "int | None"
    latency: "int | None"
    fmax_mhz: "float | None"
    fmax_by_seed: "dict | None"
    bits_in: "int | None"
    bits_out: "int | None"
    python_s: "float | None"
    cpp_s: "float | None"
    refused: "str | None" = None

    @property
    def engine_rate(self):
        """Results a second the engine computes as placed, or ``None``."""
        return None if self.fmax_mhz is None else self.fmax_mhz * 1e6 / self.interval

    @property
    def engine_latency_us(self):
        return None if self.fmax_mhz is None else self.latency / self.fmax_mhz

    def speedup(self, seconds):
        """The engine's rate over one core's calls of ``seconds`` each, or ``None``."""
        rate = self.engine_rate
        return None if rate is None or seconds is None else rate * seconds


def bench_dynamics(synth_rows, robots=BENCH_ROBOTS, calls=20_000, *, cpp=True,
                   progress=None, problem="inverse"):
    """A :class:`SpeedRow` per robot (shipped names or robot files) for ``problem`` (a
    :data:`PROBLEMS` name): the engine as ``synth_rows`` placed it and Pinocchio timed now
    over ``calls`` states each, from Python and (``cpp``) from C++, the loop built once into
    the cache. ``progress``: a file for one line per robot."""
    check_choice("problem", problem, PROBLEMS)
    what = PROBLEMS[problem]
    out = []
    for robot in robots:
        name = None if robot == "puma560" else robot
        found, refused = None, None
        try:
            found = design(what.design, name)
        except ValueError as error:
            if what.design == "dynamics-engine":
                raise                      # a robot without dynamics: the command's line
            refused = str(error)
        timed = hardware_robot(robot, terms=())
        seconds = (call_seconds(timed, what.algorithm, calls=calls),
                   cpp_call_seconds(timed, cache_dir("peer"), what.algorithm, calls=calls)
                   if cpp else None)
        if found is None:
            out.append(SpeedRow(robot, None, None, None, None, None, None, None, *seconds,
                                refused=refused))
        else:
            width, fold = found.default_width, found.default_fold
            dut = found.build(width, fold)
            placed = placed_row(synth_rows, found.name, found.robot_label, width, fold)
            plan = dut.plan
            out.append(SpeedRow(
                robot=robot, width=width, interval=fold, latency=dut.latency,
                fmax_mhz=placed and placed["fmax_mhz"],
                fmax_by_seed=placed and placed.get("fmax_by_seed"),
                bits_in=sum(shape.width for shape in what.inputs(plan).values()),
                bits_out=what.output_bits(plan),
                python_s=seconds[0], cpp_s=seconds[1]))
        if progress is not None:
            print(f"bench dynamics: {robot} timed ({what.algorithm})", file=progress,
                  flush=True)
    return out


def _us(seconds):
    return "—" if seconds is None else f"{seconds * 1e6:.3f}"


def _rate(rate):
    return "—" if rate is None else f"{rate / 1e6:.2f} M/s"


def format_dynamics_bench(rows, problem="inverse"):
    """The comparison of ``problem`` as a table, the bits a state moves at the engine's rate,
    and the published anchors."""
    what = PROBLEMS[problem]
    lines = ["| robot | engine: width, II | Fmax, worst of seeds (MHz) | engine rate | engine "
             "latency (µs) | Pinocchio from Python (µs a call) | from C++ (µs a call) | C++ "
             "rate | engine over C++ |", "|" + "---|" * 9]
    for r in rows:
        if r.refused is not None:
            lines.append(f"| {r.robot} | refused | — | — | — | {_us(r.python_s)} | "
                         f"{_us(r.cpp_s)} | {_rate(None if r.cpp_s is None else 1 / r.cpp_s)} "
                         f"| — |")
            continue
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
    outputs = what.outputs
    for r in rows:
        if r.refused is not None:
            lines.append(f"{r.robot}: no engine: {r.refused}")
        elif r.fmax_mhz is None:
            lines.append(f"{r.robot}: not placed at width {r.width}, II {r.interval}: `robohw "
                         f"synth --designs {what.design}"
                         f"{'' if r.robot == 'puma560' else f' --robot {r.robot}'}` places it.")
        else:
            gbits = r.engine_rate * (r.bits_in + r.bits_out) / 1e9
            lines.append(f"{r.robot}: a state moves {r.bits_in} bits in and {r.bits_out} out "
                         f"({outputs} and {' and '.join(what.flags)}): {gbits:.2f} Gbit/s at "
                         f"the engine's rate.")
    if any(r.cpp_s is None for r in rows):
        lines.append("Pinocchio from C++ not measured: its headers (pip install "
                     "'robohw[bench]') or a C++ compiler are missing.")
    lines += ["", "Published, not measured here:"]
    lines += [f"- {anchor}: {us} µs" for anchor, us in what.published]
    return "\n".join(lines)
