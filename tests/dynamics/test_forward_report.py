"""The report's forward-dynamics section (robohw.dynamics.forward.report): the float64 reference
against inverse dynamics and Pinocchio's aba, the model's row or its refusal, and Pinocchio's
aba timed; and the timing's argument checks (robohw.robots.pinocchio)."""

import pytest

from robohw.dynamics.forward import report as forward_report
from robohw.dynamics.forward.report import forward_rows, forward_section
from robohw.robots.loading import hardware_robot
from robohw.robots.pinocchio import call_seconds, cpp_call_seconds, pinocchio_module


@pytest.fixture
def rows(monkeypatch):
    # Two arms, the Panda's served by the inertia matrix solved alone; no C++ build in the
    # fast tier.
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
    # Each model at its defaults: every valid row within its certified bound, each within the
    # promise; the rows not valid ask torques beyond the limits.
    for row in rows:
        assert row["width"] <= 35 and row["formulation"] == "the inertia matrix solved"
        assert row["error_share"] <= row["certified_share"] <= 1e-3
        assert row["exceeded"] == 0 and row["passed"] > 0.95


def test_the_section_names_files_not_paths(rows):
    text = forward_section(rows)
    assert text.startswith("## Forward dynamics")
    assert "| puma560 | 6 |" in text and f"| the inertia matrix solved, {rows[0]['width']} " \
        f"bits |" in text and ", 0 beyond |" in text
    # A refusal names the file, not its path.
    refused = forward_section([{**rows[0], "no_model": f"{rows[0]['robot']}.toml: no model"}])
    assert "| none: no model |" in refused
    assert "/robots/" not in text
    if pinocchio_module() is None:
        assert "not measured, not measured |" in text


def test_the_timing_checks_its_arguments(tmp_path):
    robot = hardware_robot("puma560", terms=())
    with pytest.raises(ValueError, match="algorithm must be one of rnea, aba, "
                                         "rnea_derivatives, not 'crba'"):
        call_seconds(robot, "crba")
    with pytest.raises(ValueError, match="algorithm must be one of rnea, aba, "
                                         "rnea_derivatives, not 'crba'"):
        cpp_call_seconds(robot, tmp_path, "crba")
    if pinocchio_module() is not None:
        with pytest.raises(ValueError, match="calls and repeats must be at least 1, not 0"):
            call_seconds(robot, "aba", calls=0)


def test_the_engines_rows_are_placed_or_say_so():
    from robohw.dynamics.forward.design import FORWARD_WIDTH
    from robohw.dynamics.forward.engine import FORWARD_INTERVAL
    from robohw.dynamics.forward.report import forward_engines
    base = {"dof": 6, "states": 10, "float_vs_inverse": 1e-15, "float_vs_pinocchio": 1e-14,
            "promise": 1e-3, "formulation": "the inertia matrix solved",
            "aba_python_us": 2.2, "aba_cpp_us": 1.6}
    rows = [{**base, "robot": "puma560", "width": 30, "certified_share": 4e-4,
             "error_share": 1e-4, "passed": 1.0, "exceeded": 0},
            {**base, "robot": "ur5", "width": 28, "certified_share": 3e-5, "error_share": 3e-5,
             "passed": 1.0, "exceeded": 0},
            {**base, "robot": "panda", "dof": 7, "no_model": "no width"}]
    # A row of another interval is not the default's.
    synth = [{"design": "forward-dynamics", "robot": None, "width": FORWARD_WIDTH,
              "fold": FORWARD_INTERVAL, "fmax_mhz": 100.0},
             {"design": "forward-dynamics", "robot": "ur5", "width": 28, "fold": 64,
              "fmax_mhz": 100.0}]
    puma, ur5, panda = forward_engines(rows, synth)
    assert puma["engine"]["interval"] == FORWARD_INTERVAL and puma["engine"]["fmax_mhz"] == 100.0
    assert ur5["engine"]["width"] == 28 and ur5["engine"]["fmax_mhz"] is None
    assert panda["engine"] is None
    text = forward_section([puma, ur5, panda])
    rate = 100.0 / FORWARD_INTERVAL
    latency = puma["engine"]["latency"]
    assert (f"| puma560 | {FORWARD_WIDTH}, {FORWARD_INTERVAL} | {latency:,} | 100.0 | "
            f"{rate:.2f} M | {latency / 100:.2f} | 0.62 M | {rate * 1.6:.1f}x |") in text
    assert f"| ur5 | 28, {ur5['engine']['interval']} | " in text and "not placed" in text
    assert "| panda | no model | — |" in text
