"""The report's forward-dynamics section (robohw.dynamics.forward_report): the float64 reference
against inverse dynamics and Pinocchio's aba, the model's row or its refusal, and Pinocchio's
aba timed; and the timing's argument checks (robohw.robots.pinocchio)."""

import pytest

from robohw.dynamics import forward_report
from robohw.dynamics.forward_report import forward_rows, forward_section
from robohw.robots.loading import hardware_robot
from robohw.robots.pinocchio import call_seconds, cpp_call_seconds, pinocchio_module


@pytest.fixture
def rows(monkeypatch):
    # A planned arm and one no width is proven for; no C++ build in the fast tier.
    monkeypatch.setattr(forward_report, "FORWARD_ARMS", ("puma560", "panda"))
    monkeypatch.setattr(forward_report, "FORWARD_STATES", {"quick": 300})
    monkeypatch.setattr(forward_report, "PINOCCHIO_CALLS", {"quick": 50})
    monkeypatch.setattr(forward_report, "cpp_call_seconds", lambda *args, **kwargs: None)
    return forward_rows(quick=True)


def test_each_arm_has_its_reference_agreement_and_its_model_or_refusal(rows):
    puma, panda = rows
    assert (puma["robot"], puma["dof"], puma["states"]) == ("puma560", 6, 300)
    for row in rows:
        assert row["float_vs_inverse"] <= 1e-12
        if pinocchio_module() is not None:
            assert row["float_vs_pinocchio"] <= 1e-12 and row["aba_python_us"] > 0
        assert row["aba_cpp_us"] is None
    # The PUMA's model at the default promise: every valid row within its bound.
    assert puma["width"] == 40 and "refused" not in puma
    assert puma["bound_share"] <= 0.01 and puma["error_share"] <= puma["bound_share"]
    assert puma["exceeded"] == 0 and puma["passed"] > 0.9
    assert "recip" in panda["no_model"] and "width" not in panda


def test_the_section_names_files_not_paths(rows):
    text = forward_section(rows)
    assert text.startswith("## Forward dynamics")
    assert "| puma560 | 6 |" in text and "| 40 bits |" in text and ", 0 beyond |" in text
    assert "none proven: panda.urdf (its largest value" in text
    assert "/robots/" not in text
    if pinocchio_module() is None:
        assert "not measured, not measured |" in text


def test_the_timing_checks_its_arguments(tmp_path):
    robot = hardware_robot("puma560", terms=())
    with pytest.raises(ValueError, match="algorithm must be one of rnea, aba, not 'crba'"):
        call_seconds(robot, "crba")
    with pytest.raises(ValueError, match="algorithm must be one of rnea, aba, not 'crba'"):
        cpp_call_seconds(robot, tmp_path, "crba")
    if pinocchio_module() is not None:
        with pytest.raises(ValueError, match="calls and repeats must be at least 1, not 0"):
            call_seconds(robot, "aba", calls=0)
