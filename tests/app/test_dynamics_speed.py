"""``robohw bench dynamics`` (robohw.flows.dynamics_speed): the engine's rate from the placed
row of the registry design generated for the robot, never estimated; the bits a state moves
from the payload; Pinocchio timed from Python and, built from its wheel's headers, from C++,
whose torques are checked against Python's."""

import re

import numpy as np
import pytest

from robohw.dynamics.inverse.engine import NewtonEulerEngine
from robohw.flows.dynamics_speed import SpeedRow, bench_dynamics, format_dynamics_bench
from robohw.registry import design
from robohw.robots import hardware_robot
from robohw.robots.pinocchio import cpp_call_seconds, pinocchio_module

pytestmark = pytest.mark.skipif(pinocchio_module() is None, reason="the bench extra")


def placed(name="dynamics-engine", robot=None, width=18, fold=5, fmax=101.0):
    return {"design": name, "robot": robot, "width": width, "fold": fold, "fmax_mhz": fmax,
            "fmax_by_seed": {"1": fmax, "2": fmax + 2, "3": fmax + 1}}


def test_the_rate_comes_from_the_placed_row_of_the_robots_design():
    # A row of another width, fold or robot is not this design's.
    others = [placed(width=20), placed(fold=10), placed(robot="ur5", fmax=150.0)]
    rows = bench_dynamics([*others, placed()], robots=("puma560",), calls=200, cpp=False)
    (row,) = rows
    found = design("dynamics-engine")
    dut = NewtonEulerEngine("puma560", width=found.default_width, interval=found.default_fold)
    assert (row.width, row.interval) == (found.default_width, found.default_fold) == (18, 5)
    assert row.engine_rate == pytest.approx(101.0e6 / 5)
    assert row.latency == dut.program.latency + 2
    assert row.engine_latency_us == pytest.approx(row.latency / 101.0)
    # Six binary angles and twelve rates and accelerations in; six torques and in_bounds out.
    assert (row.bits_in, row.bits_out) == (6 * dut.plan.cordic.width + 12 * 18, 6 * 18 + 1)
    assert 0 < row.python_s < 1e-3 and row.cpp_s is None
    unplaced = bench_dynamics(others, robots=("puma560",), calls=200, cpp=False)[0]
    assert unplaced.fmax_mhz is None and unplaced.engine_rate is None


def test_the_table_states_the_comparison_and_what_is_unplaced():
    rows = [SpeedRow("puma560", 18, 5, 293, 100.0, {"1": 100.0, "2": 104.0, "3": 102.0}, 324,
                     109, 1.2e-6, 0.8e-6),
            SpeedRow("panda", 21, 10, 500, None, None, 400, 148, 1.3e-6, None)]
    text = format_dynamics_bench(rows)
    assert "| puma560 | 18, 5 | 100.0 (100.0, 104.0, 102.0) | 20.00 M/s | 2.93 | 1.200 | " \
        "0.800 | 1.25 M/s | 16.0x |" in text
    assert "| panda | 21, 10 | not placed | — | — | 1.300 | — | — | — |" in text
    assert "panda: not placed at width 21, II 10: `robohw synth --designs dynamics-engine " \
        "--robot panda` places it." in text
    assert "puma560: a state moves 324 bits in and 109 out (the torques and in_bounds): " \
        "8.66 Gbit/s at the engine's rate." in text
    assert "Pinocchio from C++ not measured" in text


def test_the_command_refuses_a_bad_robot_or_synth_file_in_one_line(tmp_path, capsys):
    from robohw.commands import main
    assert main(["bench", "dynamics", "--robots", "nosuch", "--calls", "100"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("robohw bench: nosuch: no such file")
    bad = tmp_path / "synth.json"
    bad.write_text("{bad")
    assert main(["bench", "dynamics", "--synth", str(bad), "--calls", "100"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"robohw bench: --synth {bad}: ")


@pytest.mark.slow
def test_the_cpp_loop_builds_and_computes_pinocchios_torques(tmp_path):
    # cpp_call_seconds raises where the loop's results are not Python's: on the PUMA its
    # massless first link still turns, and the UR5's twists are not all zero.
    for name in ("puma560", "ur5"):
        for algorithm in ("rnea", "aba"):
            seconds = cpp_call_seconds(hardware_robot(name, terms=()), tmp_path, algorithm,
                                       calls=500, repeats=2)
            assert 1e-8 < seconds < 1e-4
    assert len(list(tmp_path.glob("pinocchio_timing_*"))) == 1     # built once
    assert np.isfinite(seconds)


def test_forward_dynamics_against_aba_and_the_robots_it_refuses():
    from robohw.dynamics.forward.design import FORWARD_WIDTH
    from robohw.dynamics.forward.engine import FORWARD_INTERVAL
    rows = bench_dynamics([placed("forward-dynamics", width=FORWARD_WIDTH,
                                 fold=FORWARD_INTERVAL, fmax=100.0)],
                          robots=("puma560", "puma560_fgl"), calls=100, cpp=False,
                          problem="forward")
    puma, massless = rows
    assert (puma.width, puma.interval, puma.fmax_mhz) == (FORWARD_WIDTH, FORWARD_INTERVAL, 100.0)
    assert puma.engine_rate == pytest.approx(100.0e6 / FORWARD_INTERVAL)
    # Six binary angles, twelve rates and torques in at the width; six accelerations,
    # in_bounds and checked out.
    w = FORWARD_WIDTH
    assert (puma.bits_in, puma.bits_out) == (6 * w + 12 * w, 6 * w + 2)
    assert massless.refused.endswith(": the dynamics needs mass, com and inertia for every "
                                     "joint")
    assert massless.width is None and 0 < massless.python_s < 1e-3
    text = format_dynamics_bench(rows, "forward")
    assert "| puma560_fgl | refused | — | — | — |" in text
    assert re.search(r"puma560_fgl: no engine: \S*puma560_fgl.toml: the dynamics needs", text)
    assert f"puma560: a state moves {18 * w} bits in and {6 * w + 2} out (the accelerations " \
        "and in_bounds and checked)" in text
    assert "- Pinocchio ABA, one call (published, iiwa): 0.4 µs" in text


def test_the_gradient_against_pinocchios_derivatives():
    from robohw.dynamics.gradient.design import GRADIENT_WIDTH
    from robohw.dynamics.gradient.engine import GRADIENT_INTERVAL
    rows = bench_dynamics([placed("dynamics-gradient", width=GRADIENT_WIDTH,
                                 fold=GRADIENT_INTERVAL, fmax=90.0)],
                          robots=("puma560",), calls=100, cpp=False, problem="gradient")
    (puma,) = rows
    assert (puma.width, puma.interval, puma.fmax_mhz) == (GRADIENT_WIDTH, GRADIENT_INTERVAL,
                                                           90.0)
    # Six binary angles, twelve rates and accelerations in; 72 entries and in_bounds out.
    w = GRADIENT_WIDTH
    assert (puma.bits_in, puma.bits_out) == (18 * w, 72 * w + 1)
    if pinocchio_module() is not None:
        assert 0 < puma.python_s < 1e-3
    text = format_dynamics_bench(rows, "gradient")
    assert f"puma560: a state moves {18 * w} bits in and {72 * w + 1} out (dtau/dq and " \
        "dtau/dqd and in_bounds)" in text
    assert "Robomorphic's gradient on a VU9P" in text
