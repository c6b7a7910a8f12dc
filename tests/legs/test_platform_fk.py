"""Forward kinematics of the parallel manipulators as Newton iterations in CCMs
(robohw.legs.fk_graph): the graph's shape, one step equal to numpy's Newton step, convergence
to the float reference's poses, the bit-exact model's accuracy, RTL = model; and the servo loop
(robohw.legs.servo): RTL = model, its interval, its accuracy along a 1 kHz trajectory."""

import re

import numpy as np
import pytest
from tiers import heavy_unless

from robohw.hw.fixed import FixedFormat
from robohw.legs.fk_graph import MAX_ITERATIONS, fk_format, fk_graph
from robohw.legs.givens import ccm_counts
from robohw.legs.ik_graph import angle_fields
from robohw.legs.platform_kinematics import (
    forward_kinematics,
    inverse_kinematics,
    jacobian,
    rotation,
)
from robohw.legs.servo import FkServo, servo_model
from robohw.robots.platform import SHIPPED_PLATFORMS, load_platform
from robohw.robots.sampling import sample_poses, sample_trajectory
from robohw.sim.compiled import run_stream_compiled
from robohw.sim.harness import run_stream
from robohw.sim.measure import measure_timing
from robohw.taskgraph.model import evaluate_float, evaluate_model, output_codes
from robohw.taskgraph.pipeline import TaskGraphPipeline


def angle_count(platform):
    return len(angle_fields(platform))


def graph_inputs(platform, lengths, guesses):
    """The FK graph's inputs: measured lengths, and the guesses with their angles in turns."""
    inputs = {f"rho_m{i + 1}": lengths[:, i] for i in range(len(platform.legs))}
    first_angle = len(platform.pose_fields) - angle_count(platform)
    for k, field in enumerate(platform.pose_fields):
        inputs[field] = guesses[:, k] / (2 * np.pi) if k >= first_angle else guesses[:, k]
    return inputs


def graph_poses(platform, outputs):
    first_angle = len(platform.pose_fields) - angle_count(platform)
    return np.column_stack([outputs[f] * (2 * np.pi if k >= first_angle else 1)
                            for k, f in enumerate(platform.pose_fields)])


@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_an_iteration_is_the_legs_the_solve_and_the_update(name):
    platform = load_platform(name)
    legs, dof = len(platform.legs), len(platform.pose_fields)
    per_leg = 11 if platform.spatial else 4           # lengths and rows (legs/ik_graph.py)
    solve = sum(ccm_counts(dof).values())
    # positions (z = 1), angles in turns, and a spatial pose's Euler rates (4 CCMs)
    update = dof + (4 if platform.spatial else 0)
    for iterations in (1, 3):
        graph = fk_graph(platform, iterations)
        assert len(graph.ccms) == iterations * (legs * per_leg + solve + update)
        assert len(graph.guards) == iterations * dof
        assert set(graph.outputs) == set(platform.pose_fields)
    for bad in (0, MAX_ITERATIONS + 1):
        with pytest.raises(ValueError, match=rf"iterations must be an integer in \[1, "
                                             rf"{MAX_ITERATIONS}\], not {bad!r}"):
            fk_graph(platform, bad)
    for bad in (1.5, True):
        with pytest.raises(TypeError, match=f"iterations must be an integer, not {bad!r}"):
            fk_graph(platform, bad)


def euler_rate_map(angles, step=1e-6):
    """``E`` with ``omega = E (roll, pitch, yaw)_dot`` (base frame), by differentiating
    :func:`rotation` numerically: column ``k`` is ``vee(dQ/da_k Q^T)``."""
    q = np.array(rotation(*angles))
    columns = []
    for k in range(3):
        delta = np.zeros(3)
        delta[k] = step
        dq = (np.array(rotation(*(angles + delta))) - np.array(rotation(*(angles - delta))))
        w = dq / (2 * step) @ q.T
        columns.append([w[2, 1], w[0, 2], w[1, 0]])
    return np.array(columns).T


@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_one_iteration_in_float_is_numpys_newton_step(name):
    platform = load_platform(name)
    rng = np.random.default_rng(3)
    poses = sample_poses(platform, 40, rng)
    guesses = sample_poses(platform, 40, rng)
    lengths = inverse_kinematics(platform, poses)
    out, valid, _ = evaluate_float(fk_graph(platform, 1), graph_inputs(platform, lengths,
                                                                       guesses))
    rho, rows = jacobian(platform, guesses)
    twist = np.linalg.solve(rows, (lengths - rho)[..., None])[..., 0]
    # Guesses anywhere in the workspace: a step of 2 or more (a planar turn of 2.6 rad) is
    # beyond the linear CCMs and flags its row.
    assert valid.mean() > 0.9 and (np.abs(twist[~valid]).max(1) > 1.9).all()
    new, guesses, twist = graph_poses(platform, out)[valid], guesses[valid], twist[valid]
    if not platform.spatial:      # t = (phi_dot, x_dot, y_dot)
        assert np.abs(new - guesses - twist[:, [1, 2, 0]]).max() < 1e-12
        return
    assert np.abs(new[:, :3] - guesses[:, :3] - twist[:, 3:]).max() < 1e-12
    # The angles moved by the Euler rates of omega: E(angles) times the move is omega.
    for guess, moved, omega in zip(guesses, new, twist[:, :3]):
        rates = np.angle(np.exp(1j * (moved[3:] - guess[3:])))
        assert np.abs(euler_rate_map(guess[3:]) @ rates - omega).max() < 1e-8


def test_four_iterations_from_home_reach_the_float_references_pose():
    # The hexapod: quadratic convergence from the home pose over the workspace (planar
    # poses converge more slowly from far away; the servo loop starts near its answer).
    platform = load_platform("hexapod")
    poses = sample_poses(platform, 300, np.random.default_rng(5))
    lengths = inverse_kinematics(platform, poses)
    home = np.tile(platform.home, (len(poses), 1))
    out, valid, _ = evaluate_float(fk_graph(platform, 4), graph_inputs(platform, lengths, home))
    reference, _, reasons = forward_kinematics(platform, lengths)
    assert valid.all() and (reasons == "").all()
    assert np.abs(graph_poses(platform, out) - reference).max() < 1e-12


def test_model_at_24_bits_within_a_micrometre_and_1e_5_rad():
    platform = load_platform("hexapod")
    poses = sample_poses(platform, 300, np.random.default_rng(6))
    lengths = inverse_kinematics(platform, poses)
    home = np.tile(platform.home, (len(poses), 1))
    graph = fk_graph(platform, 4)
    inputs = graph_inputs(platform, lengths, home)
    out, valid, _ = evaluate_model(graph, inputs, **fk_format(platform, 24))
    assert valid.all()
    error = np.abs(graph_poses(platform, out) - poses)
    assert error[:, :3].max() < 1e-6 and error[:, 3:].max() < 1e-5


@pytest.mark.heavy
@pytest.mark.parametrize("timing", ["pipelined", "word_serial"])
def test_rtl_equals_the_model(timing):
    platform = load_platform("planar_3rpr")
    rng = np.random.default_rng(7)
    poses = sample_poses(platform, 12, rng)
    guesses = poses + rng.uniform(-0.01, 0.01, poses.shape)       # a servo loop's guess
    lengths = inverse_kinematics(platform, poses)
    graph = fk_graph(platform, 1)
    formats = fk_format(platform, 16)
    inputs = graph_inputs(platform, lengths, guesses)
    _, valid, values = evaluate_model(graph, inputs, **formats)
    codes = output_codes(graph, values, formats["width"], formats["guard_bits"])
    real = FixedFormat(formats["width"], formats["frac_bits"])
    payloads = [{**{n: int(real.from_float(v[k])) for n, v in inputs.items()}, "tag": k}
                for k in range(len(poses))]
    dut = TaskGraphPipeline(graph, **formats, tag_width=4, timing=timing)
    run = run_stream(dut, payloads, sink_ready=lambda c: c % 3 != 1)
    assert [o["tag"] for o in run.outputs] == list(range(len(poses)))
    assert [o["unreachable"] for o in run.outputs] == (~valid).astype(int).tolist()
    for name in graph.outputs:
        assert [o[name] for o in run.outputs] == codes[name].tolist(), name


# --- the servo loop --------------------------------------------------------------------------

def trajectory(platform, count, seed, start=0):
    return sample_trajectory(platform, count, np.random.default_rng(seed), start)


# The pipelined servo steps 2,700 cycles of a large design in Amaranth (70 s): in `make slow`.
# `make test` runs it through `robohw platform fk --backend rtl` (equal to the model, below),
# and this test's handshake and timing on the machine, behind the same FkServo wrapper.
@pytest.mark.parametrize("timing", [pytest.param("pipelined", marks=pytest.mark.slow),
                                    pytest.param("machine", marks=pytest.mark.heavy)])
def test_servo_rtl_equals_its_model_one_row_per_latency_plus_one(timing):
    platform = load_platform("planar_3rpr")
    width = 16
    poses = trajectory(platform, 6, seed=1, start=50)     # from home, 5 cm away at first
    lengths = inverse_kinematics(platform, poses)
    lengths[3] = 5.0 * 2.0 ** -11        # a leg of 2.4 mm: no pose, the estimate stays
    codes, valid = servo_model(platform, 1, lengths, width=width)
    # One step from home leaves the first row's legs off (unconverged, the next row's start).
    assert valid.sum() == len(poses) - 2 and not valid[0] and not valid[3]
    dut = FkServo(platform, 1, width=width, timing=timing, tag_width=4)
    real = FixedFormat(width, fk_format(platform, width)["frac_bits"])
    payloads = [{**{f"rho_m{i + 1}": int(real.from_float(row[i])) for i in range(3)}, "tag": k}
                for k, row in enumerate(lengths)]
    # Both sides stall from the fourth row on: the first three show the timing, the rest that
    # stalls change the cycles, not the answers.
    calm = 3 * (dut.pipeline.latency + 1)
    run = run_stream(dut, payloads, source_valid=lambda c: c < calm or c % 5 != 2,
                     sink_ready=lambda c: c < calm or c % 4 != 1)
    assert [o["tag"] for o in run.outputs] == list(range(len(poses)))
    assert [o["unreachable"] | o["unconverged"] for o in run.outputs] == \
        (~valid).astype(int).tolist()
    assert run.outputs[0]["unconverged"] and run.outputs[3]["unreachable"]
    for name in platform.pose_fields:
        assert [o[name] for o in run.outputs] == codes[name].tolist(), name
    # Each row waits for the answer before it: the inner design's latency (pipelined: CCM
    # stages, the operand registers, the output queue; the machine: its plan and four cycles),
    # then the cycle in which the estimate takes it.
    gaps = np.diff(run.input_cycles[:3])
    assert (gaps == dut.pipeline.latency + 1).all() and dut.interval == dut.pipeline.latency + 1
    assert (np.subtract(run.output_cycles, run.input_cycles)[:3] == dut.latency).all()
    assert run.output_cycles[-1] > calm          # the stalls came


@pytest.mark.parametrize("name", heavy_unless(SHIPPED_PLATFORMS, small=("planar_3rpr",)))
def test_servo_model_tracks_a_1_khz_trajectory_within_a_micrometre(name):
    # The goal at 24 bits: 1 um and 1e-5 rad after the fixed iterations (two a row:
    # one leaves Newton's error of a 1 mm move, 1.05 um on the hexapod and 1.37 um planar),
    # each row from the previous row's answer. (The model runs row by row: 0.35 s an
    # iteration of a hexapod row; the report tracks longer.)
    platform = load_platform(name)
    poses = trajectory(platform, 20 if platform.spatial else 60, seed=2)
    done = []                  # the progress callback: once a row
    codes, valid = servo_model(platform, 2, inverse_kinematics(platform, poses), width=24,
                               on_row=done.append)
    assert valid.all() and done == list(range(1, len(poses) + 1))
    frac = fk_format(platform, 24)["frac_bits"]
    got = graph_poses(platform, {f: c * 2.0 ** -frac for f, c in codes.items()})
    error = np.abs(got - poses)
    first_angle = len(platform.pose_fields) - angle_count(platform)
    assert error[:, :first_angle].max() < 1e-6 and error[:, first_angle:].max() < 1e-5


@pytest.mark.parametrize("name", heavy_unless(SHIPPED_PLATFORMS, small=("planar_3rpr",)))
def test_the_servo_marks_the_rows_it_did_not_converge(name):
    # Random workspace poses, not a trajectory: a few steps from the previous answer leave some
    # rows off by millimetres, every leg's residual then beyond SERVO_RESIDUAL_LSB: those rows
    # are not valid, and every valid one is the pose its lengths came from.
    platform = load_platform(name)
    poses = sample_poses(platform, 120, np.random.default_rng(3))
    loops = inverse_kinematics(platform, poses).reshape(40, 3, -1)   # 40 loops of 3 rows
    # Steps that converge on some rows, not all (the planar poses lie further apart).
    codes, valid = servo_model(platform, 2 if platform.spatial else 3, loops, width=24)
    frac = fk_format(platform, 24)["frac_bits"]
    got = graph_poses(platform, {f: c.reshape(-1) * 2.0 ** -frac for f, c in codes.items()})
    error = np.abs(got - poses)
    position = 3 if platform.spatial else 2
    off = error[:, :position].max(1)
    valid = valid.reshape(-1)
    assert 0 < valid.sum() < len(poses) and (off > 1e-4).any()
    assert off[valid].max() < 1e-5 and error[valid, position:].max() < 1e-4


@pytest.mark.heavy
def test_word_serial_servo_equals_its_model_and_waits_for_a_row_slot():
    platform = load_platform("planar_3rpr")
    width = 16
    lengths = inverse_kinematics(platform, trajectory(platform, 3, seed=9, start=30))
    codes, valid = servo_model(platform, 1, lengths, width=width)
    dut = FkServo(platform, 1, width=width, timing="word_serial", tag_width=4)
    real = FixedFormat(width, fk_format(platform, width)["frac_bits"])
    payloads = [{**{f"rho_m{i + 1}": int(real.from_float(row[i])) for i in range(3)}, "tag": k}
                for k, row in enumerate(lengths)]
    run = run_stream(dut, payloads)
    assert [o["tag"] for o in run.outputs] == list(range(3))
    assert valid.tolist() == [False, True, True]        # one step from home: unconverged
    assert [o["unconverged"] for o in run.outputs] == [1, 0, 0]
    for name in platform.pose_fields:
        assert [o[name] for o in run.outputs] == codes[name].tolist(), name
    # The pipeline takes a row in the last two cycles of its period P only: after the answer
    # leaves and the estimate takes it (latency + 1), the next row waits for the first such
    # cycle. Here (latency + 1) mod P = a is neither 0 nor 1, so from the second row on the
    # rows enter in the period's second-last cycle, latency + 1 + P - a apart.
    inner = dut.pipeline
    period, latency = inner.plan.period, inner.latency
    a = (latency + 1) % period
    assert inner.plan.slots == 2 and a not in (0, 1)
    gaps = np.diff(run.input_cycles)
    assert (gaps[1:] == latency + 1 + period - a).all()
    assert measure_timing(run.input_cycles, run.output_cycles).interval == dut.interval
    assert (np.subtract(run.output_cycles, run.input_cycles) == latency).all()


def test_servo_loops_side_by_side_equal_each_loop_alone():
    platform = load_platform("planar_3rpr")
    loops = np.stack([inverse_kinematics(platform, trajectory(platform, 5, seed=s, start=40))
                      for s in (6, 7, 8)])
    loops[1, 2] = 5.0 * 2.0 ** -11       # a row with no pose in one loop: it keeps its guess
    codes, valid = servo_model(platform, 1, loops, width=16)
    # Each loop's first row, one step from home, is unconverged; the rest follow.
    assert valid.shape == (3, 5) and valid.sum() == 11 and not valid[1, 2]
    assert not valid[:, 0].any()
    for k, lengths in enumerate(loops):
        alone, ok = servo_model(platform, 1, lengths, width=16)
        assert (ok == valid[k]).all()
        assert all((alone[f] == codes[f][k]).all() for f in alone)


@pytest.mark.slow
def test_servo_verilog_equals_its_model_under_verilator(compiled_models):
    # The exported Verilog under Verilator (the compiled backend), 40 rows under stalls. Its
    # build takes 1.5-3.5 minutes here: `make slow` (the task-graph pipeline's Verilog is
    # checked under Verilator in `make test`, through the IK and the platform's rows).
    platform = load_platform("planar_3rpr")
    width = 16
    lengths = inverse_kinematics(platform, trajectory(platform, 40, seed=4, start=20))
    codes, valid = servo_model(platform, 1, lengths, width=width)
    assert valid.all()
    real = FixedFormat(width, fk_format(platform, width)["frac_bits"])
    payloads = [{**{f"rho_m{i + 1}": int(real.from_float(row[i])) for i in range(3)}, "tag": k}
                for k, row in enumerate(lengths)]
    run = run_stream_compiled(FkServo(platform, 1, width=width, tag_width=6), payloads,
                              source_pattern=[1, 1, 0], sink_pattern=[1, 0, 1, 1],
                              directory=compiled_models)
    assert [o["tag"] for o in run.outputs] == list(range(len(lengths)))
    for name in platform.pose_fields:
        assert [o[name] for o in run.outputs] == codes[name].tolist(), name


# --- robohw platform fk on the hardware ------------------------------------------------------

def _write_lengths(path, lengths):
    path.write_text(",".join(f"rho{i + 1}" for i in range(lengths.shape[1])) + "\n" + "".join(
        ",".join(repr(float(v)) for v in row) + "\n" for row in lengths))


def _read(path):
    lines = path.read_text().splitlines()
    return [dict(zip(lines[0].split(","), line.split(","))) for line in lines[1:]]


def test_cli_fk_servo_loop_agrees_with_float_and_gives_reasons(tmp_path):
    from robohw.commands import main
    platform = load_platform("planar_3rpr")
    poses = trajectory(platform, 12, seed=3)
    lengths = inverse_kinematics(platform, poses)
    lengths[5] = [5.0, 0.5, 0.5]            # beyond the number format
    lengths[9] = [0.05, 0.05, 0.05]         # no pose (outside the strokes too)
    source = tmp_path / "lengths.csv"
    _write_lengths(source, lengths)
    rows = {}
    for backend in ("float", "model"):
        out = tmp_path / f"{backend}.csv"
        assert main(["platform", "fk", "--platform", "planar_3rpr", "--lengths", str(source),
                     "--out", str(out), "--backend", backend, "--reasons", "--quiet"]) == 0
        rows[backend] = _read(out)
    reasons = [r["reason"] for r in rows["model"]]
    assert reasons == ["ok"] * 5 + ["out_of_format"] + ["ok"] * 3 + ["unreachable"] + ["ok"] * 2
    assert [r["reason"] for r in rows["float"]][9] == "unreachable"
    assert {r["iterations"] for r in rows["model"]} == {"2"}       # SERVO_ITERATIONS
    for got, want, reason in zip(rows["model"], rows["float"], reasons):
        if reason == "ok":     # the goals: 1 um, 1e-5 rad
            assert all(abs(float(got[f]) - float(want[f])) < 1e-6 for f in ("x", "y"))
            assert abs(float(got["phi"]) - float(want["phi"])) < 1e-5


@pytest.mark.heavy
def test_cli_fk_rtl_writes_the_models_file(tmp_path):
    from robohw.commands import main
    platform = load_platform("planar_3rpr")
    lengths = inverse_kinematics(platform, trajectory(platform, 4, seed=5, start=30))
    lengths[1] = [5.0, 0.5, 0.5]            # skipped: the servo loop never sees it
    source = tmp_path / "lengths.csv"
    _write_lengths(source, lengths)
    for backend in ("model", "rtl"):
        assert main(["platform", "fk", "--platform", "planar_3rpr", "--lengths", str(source),
                     "--out", str(tmp_path / f"{backend}.csv"), "--backend", backend,
                     "--width", "16", "--iterations", "1", "--reasons", "--quiet"]) == 0
    assert (tmp_path / "rtl.csv").read_bytes() == (tmp_path / "model.csv").read_bytes()


@pytest.mark.parametrize("argv, message", [
    (["--backend", "model", "--iterations", "9"],
     r"--iterations: the hardware takes 1..8 Newton steps a row, not 9"),
    (["--backend", "model", "--guess", "0.4,0.3,0.3"], r"--guess applies to the float backend"),
])
def test_cli_fk_hardware_usage_errors(argv, message, tmp_path, capsys):
    from robohw.commands import main
    source = tmp_path / "lengths.csv"
    _write_lengths(source, np.full((1, 3), 0.6))
    out = tmp_path / "out.csv"
    assert main(["platform", "fk", "--platform", "planar_3rpr", "--lengths", str(source),
                 "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err) and err.count("\n") == 1 and not out.exists()
