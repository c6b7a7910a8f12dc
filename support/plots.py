"""What every family's plots share: matplotlib on a file-only backend, and the error histograms
of ``robohw report``."""

import pathlib

__all__ = ["IMAGE_FORMATS", "image_format", "plot_error_histograms", "pyplot"]

# The formats a figure may be written in, by the suffix of its file.
IMAGE_FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}


def image_format(path):
    """The format ``path``'s suffix names (:data:`IMAGE_FORMATS`, any case), or ``None``."""
    return IMAGE_FORMATS.get(pathlib.Path(str(path)).suffix.lower())


def pyplot():
    """matplotlib's pyplot on the file-only Agg backend (no display needed)."""
    # Imported here: the backend must be chosen before pyplot loads, and only plots need it.
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot_error_histograms(panels, path):
    """One histogram per panel: ``(title, unit, {label: errors})``, log-scaled counts."""
    import numpy as np
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
