"""The report's forward-dynamics section: on every shipped arm with inertial data, the float64
articulated-body algorithm against inverse dynamics and against Pinocchio's ``aba``, the
bit-exact model's width, proven bound and measured error (or the one line that refuses it),
and Pinocchio's ``aba`` call timed in the same run from Python and from C++.

The states are seeded and within the limits (:func:`robohw.robots.sampling.sample_states`),
their torques inverse dynamics' of the sampled accelerations, so the float64 reference must
give the accelerations back.
"""

import pathlib

import numpy as np

from robohw.dynamics.forward.files import (
    FORWARD_PROMISE,
    certified_plan,
    solve_forward,
)
from robohw.dynamics.forward.reference import articulated_body_accelerations
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.dynamics.inverse.time_report import PINOCCHIO_CALLS
from robohw.engine.rate_table import engine_rate_table, placed_row
from robohw.robots.chain import joint_terms
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

__all__ = ["forward_rows", "forward_engines", "forward_section", "FORWARD_ARMS",
           "FORWARD_STATES"]

# The shipped arms with inertial data (puma560_fgl has none).
FORWARD_ARMS = ("puma560", "stanford", "ur5", "panda", "iiwa14")
# States per arm for the model's error; Pinocchio's calls timed per arm are the time table's
# (PINOCCHIO_CALLS).
FORWARD_STATES = {"full": 20_000, "quick": 2_000}
# States compared with Pinocchio's aba one call at a time.
_COMPARED = 500


def _largest_share(errors, limits):
    """The largest ``|error| / limit`` over rows and joints (0 for no rows)."""
    return float((np.abs(errors) / limits).max()) if errors.size else 0.0


def _pinocchio_agreement(robot, q, qd, tau, reference):
    """``max |aba - reference| / max |reference|`` over the first states, or ``None`` without
    Pinocchio."""
    pin = pinocchio_module()
    if pin is None:
        return None
    model = pinocchio_model(robot)
    data = model.createData()
    q, qd, tau = q[:_COMPARED], qd[:_COMPARED], tau[:_COMPARED]
    # Pinocchio's torques: ours less damping and Coulomb friction, which it has no terms for.
    applied = tau - joint_terms(robot, qd, np.zeros_like(qd))
    shifted = q + np.array(offsets(robot))
    aba = np.array([pin.aba(model, data, *state) for state in zip(shifted, qd, applied)])
    want = reference[:_COMPARED]
    return float(np.abs(aba - want).max() / np.abs(want).max())


def _model_row(robot, q, qd, tau, reference):
    """What the bit-exact model gives at its defaults (:func:`certified_plan`'s width and
    formulation, every row certified), or the refusal."""
    limits = np.array([j.acceleration_limit for j in robot.joints], dtype=float)
    row = {"promise": FORWARD_PROMISE}
    try:
        plan = certified_plan(robot)
    except ValueError as none:
        # The file by its name: the report is read on other machines.
        source = str(robot.source or "")
        row["no_model"] = str(none).replace(source, pathlib.Path(source).name) \
            if source else str(none)
        return row
    got = solve_forward(robot, q, qd, tau, "model", plan=plan)
    bounds = got.bounds[got.valid]
    errors = np.abs(got.qdd - reference)[got.valid]
    row.update(width=got.width, formulation=plan.formulation,
               certified_share=_largest_share(bounds, limits),
               error_share=_largest_share(errors, limits), passed=float(got.valid.mean()),
               exceeded=int((errors > bounds).any(-1).sum()))
    return row


def forward_rows(quick=False, seed=0):
    """One dict per arm of :data:`FORWARD_ARMS` (see the module docstring)."""
    mode = "quick" if quick else "full"
    rows = []
    for name in FORWARD_ARMS:
        robot = hardware_robot(name, terms=())       # its standard-DH form
        q, qd, qdd = sample_states(robot, FORWARD_STATES[mode], np.random.default_rng(seed))
        tau = inverse_dynamics(robot, q, qd, qdd)
        reference = articulated_body_accelerations(robot, q, qd, tau)
        calls = PINOCCHIO_CALLS[mode]
        python = call_seconds(robot, "aba", calls=calls)
        cpp = cpp_call_seconds(robot, cache_dir("peer"), "aba", calls=calls)
        rows.append({
            "robot": name, "dof": robot.dof, "states": len(q),
            "float_vs_inverse": float(np.abs(reference - qdd).max() / np.abs(qdd).max()),
            "float_vs_pinocchio": _pinocchio_agreement(robot, q, qd, tau, reference),
            "aba_python_us": None if python is None else python * 1e6,
            "aba_cpp_us": None if cpp is None else cpp * 1e6,
            **_model_row(robot, q, qd, tau, reference)})
    return rows


def _number(value, spec):
    return "not measured" if value is None else format(value, spec)


def _model_cells(row):
    if "no_model" in row:
        return f"none: {row['no_model'].split(': ', 1)[-1]}", "", "", ""
    return (f"{row['formulation']}, {row['width']} bits", f"{row['certified_share']:.2g}",
            f"{row['error_share']:.1e}", f"{row['passed']:.1%}, {row['exceeded']} beyond")


def forward_engines(rows, synth_rows):
    """Each of ``rows`` (:func:`forward_rows`') with ``engine``: the ``forward-dynamics``
    engine at its defaults for the arm (its width and interval, its latency in cycles) and,
    where ``synth_rows`` (``robohw synth`` rows) placed it so, its worst seed's Fmax; ``None``
    where the arm has no model."""
    from robohw.dynamics.forward.engine import ForwardDynamicsEngine, forward_interval
    for row in rows:
        if "no_model" in row:
            row["engine"] = None
            continue
        plan = certified_plan(hardware_robot(row["robot"], terms=()))
        interval = forward_interval(plan)
        dut = ForwardDynamicsEngine.for_plan(plan, interval=interval)
        label = None if row["robot"] == "puma560" else row["robot"]
        placed = placed_row(synth_rows, "forward-dynamics", label, plan.width, interval)
        row["engine"] = {"width": plan.width, "interval": interval, "latency": dut.latency,
                         "fmax_mhz": placed and placed["fmax_mhz"]}
    return rows


def forward_section(rows):
    """The section's Markdown from :func:`forward_rows`' rows (with :func:`forward_engines`'
    where given)."""
    table = ["| arm | joints | float64: inverse dynamics, Pinocchio's aba | model | "
             "largest certified bound | measured error | rows valid, beyond their bound | "
             "Pinocchio aba (us): Python, C++ |", "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        width, bound, error, valid = _model_cells(row)
        table.append(
            f"| {row['robot']} | {row['dof']} | {row['float_vs_inverse']:.1e}, "
            f"{_number(row['float_vs_pinocchio'], '.1e')} | {width} | {bound} | {error} | "
            f"{valid} | {_number(row['aba_python_us'], '.2f')}, "
            f"{_number(row['aba_cpp_us'], '.3f')} |")
    states = rows[0]["states"] if rows else 0
    return "\n\n".join([
        "## Forward dynamics",
        f"Joint accelerations from torques on {states:,} seeded states per arm within the "
        "limits, the torques inverse dynamics' of the sampled accelerations. The float64 "
        "articulated-body algorithm's largest difference from those accelerations and from "
        f"Pinocchio's `aba` (the first {_COMPARED}), relative to the largest |qdd|; the "
        "bit-exact model at its defaults (`robohw forward-dynamics --backend model`: its "
        "formulation and width), every row certified by its inverse-dynamics residual and "
        f"valid where each certified bound is within {FORWARD_PROMISE:g} of its acceleration "
        "limit; the largest certified bound and measured error of the valid rows as shares of "
        "the acceleration limit (worst joint); the rows valid (the others ask torques beyond "
        "the limits, fail a check of the model's ranges or are not certified) and how many "
        "of them exceed their certified bound (must be 0); and Pinocchio's `aba` timed in "
        "this run on the same arm (docs/notes/2026-12-forward-dynamics-certificate.md).",
        "\n".join(table),
        *(["The `forward-dynamics` engine at each arm's defaults (`robohw sim forward-dynamics "
           "--robot ARM`): its width and interval, its latency in cycles, and where "
           "`synth.json` has it placed and routed, its worst seed's Fmax, rate and latency "
           "beside `aba`'s calls from C++ timed above (never estimated: an engine not placed "
           "says so; docs/notes/2026-12-forward-dynamics-hardware.md).",
           engine_rate_table(rows, "aba_cpp_us", "accelerations", "aba from C++")]
          if rows and "engine" in rows[0] else [])])
