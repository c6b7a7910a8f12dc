"""The test tiers' parameters (docs/verification.md): the fast loop ``make check`` runs the
small cases of a parametrized test, ``make test`` every case."""

import pytest

__all__ = ["HEAVY", "heavy_unless"]

HEAVY = pytest.mark.heavy


def heavy_unless(values, small):
    """``values`` as parameters, those not in ``small`` marked heavy (``make test`` only)."""
    return [value if value in small else pytest.param(value, marks=HEAVY) for value in values]
