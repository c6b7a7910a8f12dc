"""A plan whose results a certificate checks (``TracedPlan.proven`` false): formats from the
ranges alone, checks that guard the ranges, infinite output bounds, and a row whose register
overflows wrapping as the hardware's does, where a proven plan's model would raise."""

import math

import numpy as np
import pytest

from robohw.dataflow.graph import frac_bits_for
from robohw.dataflow.plan import TracedPlan, checked_model_codes


class Tripled(TracedPlan):
    """``y = 3 x`` stated (wrongly, for the test) within 1 where ``x`` is within 1: the register
    of ``y`` (which holds under 2) overflows from ``|x| = 2/3``; ``z = x / 4`` assumed within
    0.2 (checked)."""

    def __init__(self, proven):
        self.proven = proven
        super().__init__(width=16, fold=1)

    def _trace(self):
        x = self.value_input("x", "x", -1.0, 1.0)
        y = self.tracer.bound([x * 3.0], 1.0)[0]
        z = self.tracer.assume([x * 0.25], 0.2)[0]
        return {"y": y, "z": z}


def _codes(plan, values):
    return {"x": np.rint(np.asarray(values) * 2.0 ** plan.input_fracs["x"]).astype(np.int64)}


def test_formats_come_from_the_ranges_and_checks_guard_them():
    plan = Tripled(proven=False)
    for k in plan.live:
        node = plan.tracer.nodes[k]
        if node.name != "x":        # an input keeps its field's format
            lsb = 2.0 ** -(plan.formats[k].frac + 1)
            assert plan.formats[k].frac == frac_bits_for(node.magnitude + lsb, 16)
    assert plan.output_bounds == {"y": math.inf, "z": math.inf}
    (k, code), = plan.checks.items()
    assert code == math.floor(0.2 * 2.0 ** plan.formats[k].frac)
    # The proven plan subtracts the error bound from the range it checks.
    proven = Tripled(proven=True)
    assert proven.checks[k] < code and math.isfinite(proven.output_bounds["z"])


def test_an_overflowing_row_wraps_where_a_proven_plan_would_raise():
    values = [0.1, -0.3, 0.7, 0.9]
    plan = Tripled(proven=False)
    out, passed = checked_model_codes(plan, _codes(plan, values))
    # 0.7: z within its check, y = 2.1 beyond its register, wrapped (a certificate fails such a
    # row); 0.9: z beyond its check.
    assert passed.tolist() == [True, True, True, False]
    frac = plan.output_fracs["y"]
    y = np.asarray(out["y"], dtype=float) * 2.0 ** -frac
    assert np.allclose(y[:2], [0.3, -0.9], atol=2.0 ** -frac * 2)
    assert abs(y[2] - (2.1 - 4.0)) <= 2.0 ** -frac * 2
    proven = Tripled(proven=True)
    _, passed = checked_model_codes(proven, _codes(proven, values[:2]))
    assert passed.all()
    with pytest.raises(OverflowError, match="the formats' promise is broken"):
        checked_model_codes(proven, _codes(proven, [0.7]))
