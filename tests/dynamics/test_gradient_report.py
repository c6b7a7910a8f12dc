"""The report's gradient section (robohw.dynamics.gradient.report): the float64 reference
against Pinocchio's computeRNEADerivatives, both formulations' products, the model's width,
proven bound and measured error, Pinocchio's call timed, and the engines beside it."""

import pytest

from robohw.dynamics.gradient import report as gradient_report
from robohw.dynamics.gradient.report import gradient_engines, gradient_rows, gradient_section
from robohw.robots.pinocchio import pinocchio_module


@pytest.fixture
def rows(monkeypatch):
    # Two arms; no C++ build in the fast tier.
    monkeypatch.setattr(gradient_report, "GRADIENT_ARMS", ("ur5", "stanford"))
    monkeypatch.setattr(gradient_report, "GRADIENT_STATES", {"quick": 300})
    monkeypatch.setattr(gradient_report, "PINOCCHIO_CALLS", {"quick": 50})
    monkeypatch.setattr(gradient_report, "cpp_call_seconds", lambda *args, **kwargs: None)
    return gradient_rows(quick=True)


def test_each_arm_has_its_agreement_counts_and_model(rows):
    ur5, stanford = rows
    assert (ur5["robot"], ur5["dof"], ur5["states"], ur5["width"]) == ("ur5", 6, 300, 22)
    for row in rows:
        if pinocchio_module() is not None:
            assert row["float_vs_pinocchio"] <= 1e-12 and row["python_us"] > 0
        assert row["cpp_us"] is None
        assert row["forward_mode_products"] < row["analytical_products"]
        assert 0 < row["error_share"] <= row["bound_share"] <= 0.002
        assert row["valid"] == 1.0


def test_the_section_shows_the_placed_engine_beside_pinocchio(rows):
    placed = [{"design": "dynamics-gradient", "robot": "ur5", "width": 22, "fold": 104,
               "fmax_mhz": 80.0}]
    rows = gradient_engines([{**row, "cpp_us": 2.9} for row in rows], placed)
    assert rows[0]["engine"]["fmax_mhz"] == 80.0 and "engine" not in rows[1]
    text = gradient_section(rows)
    assert text.startswith("## The gradient of inverse dynamics")
    # 80 MHz / 104 = 0.77 M gradients a second against 1 / 2.9 us = 0.34 M: 2.2x.
    assert "| ur5 | 22, 104 | " in text and "| 0.77 M | " in text and "| 2.2x |" in text
    assert "| stanford | 6 |" in text and "| stanford | 20, " not in text
