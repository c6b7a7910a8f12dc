"""The report's section on the gradient of inverse dynamics: on the shipped arms with inertial
data, the float64 reference against Pinocchio's ``computeRNEADerivatives``, the products of the
two formulations counted (forward mode, built, and the analytical derivatives), the bit-exact
model's width, proven bound and measured error, Pinocchio's call timed in the same run from
Python and from C++, and the ``dynamics-gradient`` engine at each arm's defaults beside it.

Errors and bounds are shares of each matrix's scale (:mod:`robohw.dynamics.gradient.accuracy`),
the worse of ``dtau/dq``'s and ``dtau/dqd``'s; the states are seeded and within the limits.
"""

import numpy as np

from robohw.dataflow.operations import Count
from robohw.dynamics.gradient.accuracy import gradient_plan, gradient_promise, gradient_scales
from robohw.dynamics.gradient.analytical import analytical_products
from robohw.dynamics.gradient.files import solve_gradient
from robohw.dynamics.gradient.reference import inverse_dynamics_gradient
from robohw.dynamics.inverse.time_report import PINOCCHIO_CALLS
from robohw.engine.rate_table import engine_rate_table, placed_row
from robohw.robots.loading import hardware_robot
from robohw.robots.pinocchio import (
    call_seconds,
    cpp_call_seconds,
    offsets,
    pinocchio_model,
    pinocchio_module,
)
from robohw.robots.sampling import sample_states
from robohw.sim.cache import cache_dir

__all__ = ["gradient_rows", "gradient_engines", "gradient_section", "GRADIENT_ARMS",
           "GRADIENT_STATES", "ENGINE_ARMS"]

# The shipped arms with inertial data (puma560_fgl has none).
GRADIENT_ARMS = ("puma560", "stanford", "ur5", "panda", "iiwa14")
# The arms whose engines the section shows: the two the results page places (an engine's
# default interval is searched once per arm: the Panda's, at II 400, takes 50 compilations).
ENGINE_ARMS = ("puma560", "ur5")
# States per arm for the model's error.
GRADIENT_STATES = {"full": 20_000, "quick": 1_000}
# States compared with Pinocchio one call at a time.
_COMPARED = 200


def _pinocchio_agreement(robot, q, qd, qdd, dq, dqd):
    """The largest difference from Pinocchio's ``dtau/dq`` and ``dtau/dv`` (our damping added)
    over the first states, relative to each matrix's largest entry; ``None`` without
    Pinocchio."""
    pin = pinocchio_module()
    if pin is None:
        return None
    model = pinocchio_model(robot)
    data = model.createData()
    damping = np.diag([float(j.damping or 0.0) for j in robot.joints])
    shifted = q + np.array(offsets(robot))
    worst = 0.0
    for b in range(min(_COMPARED, len(q))):
        pin.computeRNEADerivatives(model, data, shifted[b], qd[b], qdd[b])
        for ours, theirs in ((dq[b], np.array(data.dtau_dq)),
                             (dqd[b], np.array(data.dtau_dv) + damping)):
            worst = max(worst, float(np.abs(ours - theirs).max() / np.abs(theirs).max()))
    return worst


def gradient_rows(quick=False, seed=0):
    """One dict per arm of :data:`GRADIENT_ARMS` (see the module docstring)."""
    mode = "quick" if quick else "full"
    rows = []
    for name in GRADIENT_ARMS:
        robot = hardware_robot(name, terms=())       # its standard-DH form
        q, qd, qdd = sample_states(robot, GRADIENT_STATES[mode], np.random.default_rng(seed))
        reference = inverse_dynamics_gradient(robot, q, qd, qdd)
        plan = gradient_plan(robot)
        promise = gradient_promise(plan)
        got = solve_gradient(robot, q, qd, qdd, "model")
        scales = gradient_scales(robot)
        error = max(float(np.abs(mine - theirs)[got.valid].max() / scale)
                    for mine, theirs, scale in zip((got.dq, got.dqd), reference, scales))
        calls = PINOCCHIO_CALLS[mode]
        python = call_seconds(robot, "rnea_derivatives", calls=calls)
        cpp = cpp_call_seconds(robot, cache_dir("peer"), "rnea_derivatives", calls=calls)
        rows.append({
            "robot": name, "dof": robot.dof, "states": len(q),
            "float_vs_pinocchio": _pinocchio_agreement(robot, q, qd, qdd, *reference),
            "forward_mode_products": plan.tracer.counts(plan.live)[Count.MUL],
            "analytical_products": analytical_products(robot),
            "width": plan.width, "bound_share": promise.fraction, "error_share": error,
            "valid": float(got.valid.mean()),
            "python_us": None if python is None else python * 1e6,
            "cpp_us": None if cpp is None else cpp * 1e6})
    return rows


def gradient_engines(rows, synth_rows):
    """Each of ``rows`` (:func:`gradient_rows`') of an arm of :data:`ENGINE_ARMS` with
    ``engine``: the ``dynamics-gradient`` engine at its defaults for the arm (its width and
    interval, its latency in cycles) and, where ``synth_rows`` (``robohw synth`` rows) placed
    it so, its worst seed's Fmax."""
    from robohw.dynamics.gradient.engine import GradientEngine, gradient_interval
    for row in rows:
        if row["robot"] not in ENGINE_ARMS:
            continue
        plan = gradient_plan(hardware_robot(row["robot"], terms=()))
        interval = gradient_interval(plan)
        dut = GradientEngine(plan, interval=interval)
        label = None if row["robot"] == "puma560" else row["robot"]
        placed = placed_row(synth_rows, "dynamics-gradient", label, plan.width, interval)
        row["engine"] = {"width": plan.width, "interval": interval, "latency": dut.latency,
                         "fmax_mhz": placed and placed["fmax_mhz"]}
    return rows


def _number(value, spec):
    return "not measured" if value is None else format(value, spec)


def gradient_section(rows):
    """The section's Markdown from :func:`gradient_rows`' rows (with
    :func:`gradient_engines`' where given)."""
    table = ["| arm | joints | float64 against Pinocchio | products: forward mode, "
             "analytical | model width | proven bound | measured error | rows valid | "
             "Pinocchio computeRNEADerivatives (us): Python, C++ |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        table.append(
            f"| {row['robot']} | {row['dof']} | {_number(row['float_vs_pinocchio'], '.1e')} | "
            f"{row['forward_mode_products']:,}, {row['analytical_products']:,} | "
            f"{row['width']} bits | {row['bound_share']:.2g} | {row['error_share']:.1e} | "
            f"{row['valid']:.1%} | {_number(row['python_us'], '.2f')}, "
            f"{_number(row['cpp_us'], '.3f')} |")
    states = rows[0]["states"] if rows else 0
    return "\n\n".join([
        "## The gradient of inverse dynamics",
        f"dtau/dq and dtau/dqd on {states:,} seeded states per arm within the limits. The "
        "float64 reference (complex step through the link-frame recursion) against "
        f"Pinocchio's `computeRNEADerivatives` (the first {_COMPARED}; our damping added on "
        "dtau/dv's diagonal), relative to each matrix's largest entry; the products of the "
        "two formulations traced with the robot's constants folded (forward mode through the "
        "link-frame graph, which the model and the engine compute, and Carpentier and "
        "Mansard's analytical derivatives as Pinocchio steps them); the bit-exact model at "
        "its default width (`robohw dynamics-gradient --backend model`), its largest proven "
        "bound and measured error as shares of each matrix's scale (the worse matrix); and "
        "Pinocchio's call timed in this run on the same arm "
        "(docs/notes/2026-12-gradient-plan.md).",
        "\n".join(table),
        *(["The `dynamics-gradient` engine at the PUMA 560's and the UR5's defaults (`robohw "
           "sim dynamics-gradient --robot ARM`): its width and interval, its latency in cycles, "
           "and where `synth.json` has it placed and routed, its worst seed's Fmax, rate and "
           "latency beside `computeRNEADerivatives` from C++ timed above.",
           engine_rate_table([row for row in rows if "engine" in row], "cpp_us", "gradients",
                             "Pinocchio from C++")]
          if any("engine" in row for row in rows) else [])])
