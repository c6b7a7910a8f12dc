"""The report's time per torque vector against software: the registry's dynamics designs in
cycles and, where placed and routed, in microseconds, beside Pinocchio's RNEA on the same robot
timed in the report's run from Python (:func:`robohw.robots.pinocchio.call_seconds`) and
from C++ (:func:`robohw.robots.pinocchio.cpp_call_seconds`), and the published anchors."""

from robohw.dynamics.inverse.designs import DESIGNS
from robohw.robots import load_robot
from robohw.robots.pinocchio import call_seconds, cpp_call_seconds
from robohw.sim.cache import cache_dir

__all__ = ["time_rows", "time_section", "pinocchio_call_us", "SOFTWARE_ANCHORS", "PINOCCHIO_ROW",
           "PINOCCHIO_CPP_ROW", "PINOCCHIO_CALLS"]

# Published anchors, microseconds per inverse-dynamics call, not measured in the report's run:
# GRiD's tables on the iiwa: Pinocchio on a Core Ultra 9 285K, and GRiD batched on an RTX 5090
# (a problem of a batch).
SOFTWARE_ANCHORS = (("Pinocchio, published, iiwa, Core Ultra 9 285K", 0.17),
                    ("GRiD batched on an RTX 5090, iiwa, a problem", 0.045))
# The time table's rows of Pinocchio's call, measured in the report's run.
PINOCCHIO_ROW = "Pinocchio RNEA, one call from Python"
PINOCCHIO_CPP_ROW = "Pinocchio RNEA, one call from C++ (-O3)"
PINOCCHIO_CALLS = {"full": 20_000, "quick": 2_000}


def pinocchio_call_us(quick=False):
    """Microseconds of one Pinocchio RNEA call on the PUMA 560 measured now
    (:data:`PINOCCHIO_CALLS` states), ``(from Python, from C++)``; each ``None`` where it
    cannot be measured (Pinocchio, or for C++ Eigen's headers or a compiler, missing)."""
    robot, calls = load_robot("puma560"), PINOCCHIO_CALLS["quick" if quick else "full"]
    python = call_seconds(robot, calls=calls)
    cpp = cpp_call_seconds(robot, cache_dir("peer"), calls=calls)
    return tuple(None if call is None else call * 1e6 for call in (python, cpp))


def time_rows(measured, synth_rows, pinocchio_us=(None, None)):
    """One dict per registry dynamics design: its latency and interval in cycles (simulated
    where ``measured`` has it, else stated) and, where ``synth_rows`` (``robohw synth`` rows)
    placed it at its default fold, the Fmax and both in microseconds; then Pinocchio's rows,
    one RNEA call on the PUMA 560 from Python and from C++ (``pinocchio_us``, measured in this
    run; ``None``: not measured)."""
    rows = []
    for design in DESIGNS:
        name = design.name
        run = measured.get(name)
        placed = [r for r in synth_rows if r.get("design") == name and r.get("fmax_mhz") and
                  not r.get("robot") and r.get("fold", 1) == (design.default_fold or 1)]
        row = {"design": name, "latency": None, "interval": None, "fmax_mhz": None}
        if run:
            row.update(latency=run["latency"], interval=run["interval"])
        elif placed:
            row.update(latency=placed[0]["latency_cycles"],
                       interval=placed[0].get("interval_cycles"))
        if placed:
            best = placed[0]
            row.update(fmax_mhz=best["fmax_mhz"], device=f"{best['device']}-"
                       f"{best.get('speed_grade')}", width=best["width"],
                       fold=best.get("fold"))
            if row["latency"] is not None:
                row["latency_us"] = row["latency"] / best["fmax_mhz"]
            if row["interval"]:
                row["interval_us"] = row["interval"] / best["fmax_mhz"]
        rows.append(row)
    for name, call in zip((PINOCCHIO_ROW, PINOCCHIO_CPP_ROW), pinocchio_us):
        rows.append({"design": name, "device": "this machine, one core", "fmax_mhz": None,
                     "latency": None, "interval": None, "latency_us": call,
                     "interval_us": call})
    return rows


def time_section(rows):
    """The report's section of :func:`time_rows`: the table, the engine against Pinocchio (a
    win on throughput or not, from the figures) and the software anchors."""
    def cell(value, form="{}"):
        return "—" if value is None else form.format(value)

    table = ["| design | device | Fmax (MHz) | latency (cycles) | latency (µs) | "
             "a torque vector every (cycles) | every (µs) | torque vectors / s |",
             "|" + "---|" * 8]
    for r in rows:
        peer = r["design"] in (PINOCCHIO_ROW, PINOCCHIO_CPP_ROW)
        fmax = "" if peer else cell(r["fmax_mhz"]) if r["fmax_mhz"] else "not synthesized"
        every = r.get("interval_us")
        rate = f"{1 / every:.2f} M" if every else "not measured" if peer else "—"
        table.append(
            f"| {r['design']} | {r.get('device', '—')} | {fmax} | {cell(r['latency'])} | "
            f"{cell(r.get('latency_us'), '{:.3f}')} | {cell(r['interval'])} | "
            f"{cell(every, '{:.3f}')} | {rate} |")
    anchors = "; ".join(f"{name}: {us} µs" for name, us in SOFTWARE_ANCHORS)
    peer = next(r for r in rows if r["design"] == PINOCCHIO_ROW)
    cpp_peer = next(r for r in rows if r["design"] == PINOCCHIO_CPP_ROW)
    engine = next((r for r in rows if r["design"] == "dynamics-engine"
                   and r.get("interval_us")), None)
    if peer["latency_us"] and cpp_peer["latency_us"] and engine:
        python, cpp = peer["interval_us"], cpp_peer["interval_us"]
        fast = engine["interval_us"]

        def against(call, what):
            ratio = call / fast
            return (f"{ratio:.2f} times the rate of {what} ({call:.3f} µs a call): "
                    + ("it wins on throughput" if ratio > 1 else "it does NOT win"))
        verdict = (f"The engine at its default (II {engine['interval']}) gives a torque vector "
                   f"every {fast:.3f} µs: {against(python, 'Pinocchio from Python, this run')}"
                   f"; {against(cpp, 'Pinocchio from C++, this run')}. Its latency, "
                   f"{engine['latency_us']:.2f} µs, is {engine['latency_us'] / python:.1f} "
                   f"times one Python call's and {engine['latency_us'] / cpp:.1f} times one C++ "
                   "call's: a control loop that waits for one state waits longer.")
    else:
        verdict = ("Pinocchio not measured in this run from Python and C++ (the optional "
                   "bench extra, `pip install 'robohw[bench]'`, and a C++ compiler)"
                   if not (peer["latency_us"] and cpp_peer["latency_us"]) else
                   "The engine is not placed and routed in this folder's synth.json") + \
            ": no comparison in this run."
    return "\n\n".join([
        "## Time per torque vector, against software",
        "The registry's designs (PUMA 560), simulated latency and interval in cycles and, "
        "from the last `make synth` in this folder (synth.json), in microseconds at the placed "
        "Fmax (the worst seed's); beside them Pinocchio's RNEA on the same robot (built from "
        "our description, robohw.robots.pinocchio), one call from Python and one from a "
        "C++ loop built with -O3 against the wheel's headers, on one core, timed in this run "
        "(the best of five loops over seeded states within the limits):",
        "\n".join(table),
        verdict,
        f"Published anchors (one call, the whole torque vector; not measured in this run): "
        f"{anchors}. The iiwa has 7 joints, "
        "the PUMA 6. "
        "A software call's time is both its latency and its interval; a pipeline's interval "
        "is what sets the rate of many states (a trajectory, a sampling-based planner), its "
        "latency what a control loop waits."])
