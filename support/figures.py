"""Figures as a closing line or a refusal states them: one a joint (or a row of a matrix),
compact; a share rounded up as an option takes it."""

import math

__all__ = ["figure_list", "rounded_up"]


def figure_list(values, digits=2):
    """``values`` as ``0.47, 0.41, 0.00073``: each to ``digits`` significant digits, in
    order."""
    return ", ".join(f"{float(v):.{digits}g}" for v in values)


def rounded_up(share):
    """``share`` (positive) rounded up to two significant digits, as ``--bound-fraction`` takes
    it (``0.0334`` -> ``"0.034"``): the share a refusal names accepts what was refused."""
    digits = 1 - math.floor(math.log10(share))
    return f"{math.ceil(share * 10 ** digits) / 10 ** digits:g}"
