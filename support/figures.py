"""Figures as a closing line states them: one a joint (or a row of a matrix), compact."""

__all__ = ["figure_list"]


def figure_list(values, digits=2):
    """``values`` as ``0.47, 0.41, 0.00073``: each to ``digits`` significant digits, in
    order."""
    return ", ".join(f"{float(v):.{digits}g}" for v in values)
