"""PNG plots of ``robohw report``: error histograms of every family and the PUMA IK pipeline
schedule (the inertia trade-off plot lives with :mod:`robohw.report.inertia`)."""

import numpy as np

__all__ = ["plot_error_histograms", "plot_ik_schedule", "pyplot"]


def pyplot():
    """matplotlib's pyplot on the file-only Agg backend (no display needed)."""
    # Imported here: the backend must be chosen before pyplot loads, and only plots need it.
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot_error_histograms(panels, path):
    """One histogram per panel: ``(title, unit, {label: errors})``, log-scaled counts."""
    plt = pyplot()
    figure, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.8))
    for axis, (title, unit, series) in zip(np.atleast_1d(axes), panels):
        for label, errors in series.items():
            errors = np.asarray(errors)
            axis.hist(errors, bins=60, histtype="step", label=f"{label} (max {errors.max():.3g})")
        axis.set(title=title, xlabel=f"|error| ({unit})", ylabel="results", yscale="log")
        axis.legend(fontsize=8)
        axis.grid(True, alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def plot_ik_schedule(panels, path):
    """Gantt charts of balanced CCM graphs: ``(title, unit, graph, latencies, schedule)``.

    Each CCM is a bar from its start to its result; a thin line before it shows the longest
    buffer its operands wait in (from the earliest operand's arrival to the start)."""
    plt = pyplot()
    figure, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 6))
    for axis, (title, unit, graph, latencies, schedule) in zip(np.atleast_1d(axes), panels):
        start = schedule.start
        names = [c.name for c in sorted(graph.ccms, key=lambda c: start[c.name])]
        ready = {n: start[n] + latencies[n] for n in latencies}
        for row, name in enumerate(names):
            arrivals = [ready.get(source, 0) for _, op in graph[name].operands()
                        for source, _ in op.sources()]
            earliest = min(arrivals, default=start[name])
            if earliest < start[name]:
                axis.plot([earliest, start[name]], [row, row], color="tab:orange", lw=1.5)
            axis.barh(row, latencies[name], left=start[name], color="tab:blue", height=0.6)
        axis.set_yticks(range(len(names)), names, fontsize=7)
        axis.invert_yaxis()
        axis.set(title=title, xlabel=f"start ({unit})")
        axis.grid(True, axis="x", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
