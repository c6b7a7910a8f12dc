"""The leg processors of a parallel manipulator (Gosselin 1996, part 2): the legs' lengths as a
task graph of identical CCM processors, its float evaluation against the reference, the
bit-exact model's accuracy, and the pipeline (Amaranth and Verilator) against the model."""

import csv

import numpy as np
import pytest
from netlist import register_depths
from tiers import HEAVY, heavy_unless

from robohw.commands import main
from robohw.cordic.config import CordicConfig, Direction, System
from robohw.cordic.pipelined import pipelined_latency
from robohw.hw.fixed import FixedFormat, angle_to_code
from robohw.legs.givens import MIN_PIVOT, ccm_counts, solve_graph
from robohw.legs.ik_graph import leg_ik_graph, platform_format, pose_codes, pose_inputs, reach
from robohw.legs.platform_kinematics import inverse_kinematics, jacobian
from robohw.robots.platform import SHIPPED_PLATFORMS, load_platform
from robohw.robots.sampling import sample_poses
from robohw.sim.harness import run_stream
from robohw.sim.verilator import run_stream_verilator
from robohw.taskgraph.graph import Ccm, Operand, TaskGraph, const
from robohw.taskgraph.model import evaluate_float, evaluate_model, output_codes
from robohw.taskgraph.pipeline import TaskGraphPipeline

CIRC, ROT, VEC = System.CIRCULAR, Direction.ROTATION, Direction.VECTORING


def poses_with_edges(platform, count, seed):
    """Poses in the workspace, then three that are not: a leg beyond the number format's range
    although the position fits it (flagged), a position beyond it, a leg outside its stroke
    inside the range."""
    poses = sample_poses(platform, count, np.random.default_rng(seed))
    edge = np.array(platform.home, dtype=float)
    beyond_range, beyond_format, long_leg = edge.copy(), edge.copy(), edge.copy()
    beyond_range[:2] = 1.6            # |(U, V)| > 2 m for some leg: saturates
    beyond_format[0] = 2.5            # x outside [-2, 2)
    long_leg[1] = 0.4                 # every leg inside 2 m, some beyond its 0.85 m stroke
    return poses, np.array([beyond_range, beyond_format, long_leg])


# --- the graph -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_graph_is_one_identical_processor_per_leg_with_no_edge_between_legs(name):
    platform = load_platform(name)
    graph = leg_ik_graph(platform)
    per_leg = 5 if platform.spatial else 2
    assert len(graph.ccms) == per_leg * len(platform.legs) and graph.depth() == per_leg
    for i in range(1, len(platform.legs) + 1):
        ccms = [c for c in graph.ccms if c.name.startswith(f"leg{i}_")]
        assert len(ccms) == per_leg
        # A leg reads the broadcast pose and its own CCMs only.
        sources = {s for c in ccms for _, op in c.operands() for s, _ in op.sources()}
        assert sources <= set(graph.inputs) | {c.name for c in ccms}
        # Identical processors: the same operations and wiring, constants aside.
        shape = [(c.name.split("_", 1)[1], c.system, c.direction,
                  [(op.source and op.source.split("_")[-1], op.port, op.sign,
                    op.addend and (op.addend.source.split("_")[-1], op.addend.port))
                   for _, op in c.operands()]) for c in ccms]
        if i == 1:
            first = shape
        assert shape == first
    # One adder per sum U, V (, W) and one per base coordinate that is not zero.
    sums = 3 if platform.spatial else 2
    assert graph.adders() == sum(sums + sum(1 for a in leg.base if a) for leg in platform.legs)


@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_ideal_ccms_give_the_reference_lengths(name):
    platform = load_platform(name)
    poses = sample_poses(platform, 2000, np.random.default_rng(1), scale=3)
    out, valid, _ = evaluate_float(leg_ik_graph(platform), pose_inputs(platform, poses))
    lengths = np.stack([out[f"rho{i}"] for i in range(1, len(platform.legs) + 1)], -1)
    assert valid.all()
    assert np.abs(lengths - inverse_kinematics(platform, poses)).max() < 1e-12


def test_format_leaves_room_for_every_pose_inside_the_strokes():
    hexapod = load_platform("hexapod")
    # 0.85 m stroke + 0.5 m base circle + 0.3 m platform circle.
    assert reach(hexapod) == pytest.approx(1.65)
    assert platform_format(hexapod, 24) == {"width": 24, "frac_bits": 22, "guard_bits": 2}
    # A pose at the reach: one leg exactly at its longest, pointing away from its base.
    leg = hexapod.legs[0]
    direction = np.array(leg.base) / np.linalg.norm(leg.base)
    position = np.array(leg.base) + direction * (leg.stroke[1] + 0.3)
    assert np.abs(position).max() < 2


def test_task_graph_checks_addends_and_angle_inputs():
    def graph(*ccms, angles=("t",)):
        return TaskGraph("g", ("a", "b", "t"), ccms, {"out": (ccms[-1].name, "x")},
                         angle_inputs=angles)

    with pytest.raises(ValueError, match="an addend is a source and a sign"):
        graph(Ccm("c", CIRC, VEC, Operand("a", addend=Operand("b", constant=1.0)), const(0),
                  const(0)))
    with pytest.raises(ValueError, match="an addend is a source and a sign"):
        graph(Ccm("c", CIRC, VEC, Operand(constant=1.0, addend=Operand("b")), const(0),
                  const(0)))
    with pytest.raises(ValueError, match=r"c\.x0: a real is needed, t\.x is not one"):
        graph(Ccm("c", CIRC, VEC, Operand("a", addend=Operand("t")), const(0), const(0)))
    with pytest.raises(ValueError, match=r"c\.z0: an angle is needed, a\.x is not one"):
        graph(Ccm("c", CIRC, ROT, const(1), const(0), Operand("a")))
    with pytest.raises(ValueError, match=r"angle inputs \['u'\] are not inputs"):
        graph(Ccm("c", CIRC, ROT, const(1), const(0), Operand("t")), angles=("u",))


# --- the bit-exact model ---------------------------------------------------------------------

@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_model_lengths_within_a_micrometre_at_24_bits(name):
    # The goal: 1 um on the 1 m class platform. Measured 0.36 um (hexapod) and 0.34 um
    # (planar), 1.5 and 1.4 LSB of 2**-22 m: the pose's rounding, the CCMs' and the output's.
    platform = load_platform(name)
    poses = sample_poses(platform, 5000, np.random.default_rng(2))
    out, valid, _ = evaluate_model(leg_ik_graph(platform), pose_inputs(platform, poses),
                                   **platform_format(platform, 24))
    lengths = np.stack([out[f"rho{i}"] for i in range(1, len(platform.legs) + 1)], -1)
    assert valid.all()
    error = np.abs(lengths - inverse_kinematics(platform, poses)).max()
    assert 1e-8 < error < 1e-6


@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_lengths_and_rows_have_proven_ranges_that_hold(name):
    from robohw.legs.ik_graph import pose_bounds
    from robohw.robots.sampling import POSE_SPREAD
    from robohw.taskgraph.ranges import graph_ranges
    platform = load_platform(name)
    graph, formats = leg_ik_graph(platform, jacobian=True), platform_format(platform, 24)
    ranges = graph_ranges(graph, pose_bounds(platform), **formats)
    assert ranges.proven and ranges.limit == 2.0
    # Sound: inside the workspace and at its corners, no model value exceeds its bound.
    rng = np.random.default_rng(4)
    poses = sample_poses(platform, 3000, rng)
    spread = np.array(POSE_SPREAD[platform.kind])
    poses[:1000] = np.asarray(platform.home) + rng.choice([-1, 1], (1000, len(spread))) * spread
    _, valid, values = evaluate_model(graph, pose_inputs(platform, poses), **formats)
    assert valid.all()
    lsb = 2.0 ** -(formats["frac_bits"] + formats["guard_bits"])
    for (ccm, port), bound in ranges.ports.items():
        assert np.abs(values[ccm]["xyz".index(port)]).max() * lsb <= bound, (ccm, port)


@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_ideal_ccms_give_the_reference_jacobian_rows(name):
    platform = load_platform(name)
    poses = sample_poses(platform, 2000, np.random.default_rng(11), scale=3)
    out, valid, _ = evaluate_float(leg_ik_graph(platform, jacobian=True),
                                   pose_inputs(platform, poses))
    lengths, rows = jacobian(platform, poses)
    assert valid.all()
    for i in range(len(platform.legs)):
        assert np.abs(out[f"rho{i + 1}"] - lengths[:, i]).max() < 1e-12
        for j in range(rows.shape[-1]):
            assert np.abs(out[f"k{i + 1}_{j + 1}"] - rows[:, i, j]).max() < 1e-12


@pytest.mark.parametrize("name", SHIPPED_PLATFORMS)
def test_model_jacobian_rows_within_1e_5_relative_at_24_bits(name):
    # The goal. Measured 5.9e-7 (hexapod) and 7.4e-7 (planar) of each row's largest
    # entry: an error of an LSB in the leg's direction angles is one of LSB / rho in e.
    platform = load_platform(name)
    poses = sample_poses(platform, 3000, np.random.default_rng(12))
    out, valid, _ = evaluate_model(leg_ik_graph(platform, jacobian=True),
                                   pose_inputs(platform, poses), **platform_format(platform, 24))
    _, rows = jacobian(platform, poses)
    got = np.stack([[out[f"k{i}_{j}"] for j in range(1, rows.shape[-1] + 1)]
                    for i in range(1, len(platform.legs) + 1)]).transpose(2, 0, 1)
    assert valid.all()
    relative = (np.abs(got - rows).max(-1) / np.abs(rows).max(-1)).max()
    assert 1e-8 < relative < 1e-5


def test_model_flags_a_leg_beyond_the_format():
    platform = load_platform("hexapod")
    _, edges = poses_with_edges(platform, 0, 0)
    inputs = pose_inputs(platform, edges[[0, 2]])
    _, valid, _ = evaluate_model(leg_ik_graph(platform), inputs, **platform_format(platform, 16))
    assert valid.tolist() == [False, True]


# --- the pipeline ----------------------------------------------------------------------------

def check_pipeline(platform, dut, width, count, seed, **stalls):
    poses, edges = poses_with_edges(platform, count, seed)
    poses = np.concatenate([poses[:2], edges[[0, 2]], poses[2:]])
    codes = pose_codes(platform, poses, width)
    payloads = [{**{n: int(v[k]) for n, v in codes.items()}, "tag": k % 16}
                for k in range(len(poses))]
    run = run_stream(dut, payloads, **stalls)
    graph = dut.graph
    _, valid, values = evaluate_model(graph, pose_inputs(platform, poses),
                                      **platform_format(platform, width))
    assert [o["tag"] for o in run.outputs] == [p["tag"] for p in payloads]
    assert [o["unreachable"] for o in run.outputs] == (~valid).astype(int).tolist()
    assert valid.tolist().count(False) == 1
    for name, column in output_codes(graph, values, width, dut.plan.guard_bits).items():
        assert [o[name] for o in run.outputs] == column.tolist(), name
    return run


@pytest.mark.heavy
def test_pipelined_leg_processors_equal_the_model_one_pose_per_clock():
    platform, width = load_platform("hexapod"), 16
    graph = leg_ik_graph(platform)
    dut = TaskGraphPipeline(graph, **platform_format(platform, width), tag_width=4,
                            check_alignment=True)
    run = check_pipeline(platform, dut, width, 12, seed=3)
    # A leg is a chain of five CCMs, each its operand register and its pipelined CORDIC
    # (circular, the port width and the guard bits inside), then the output queue's 2 cycles.
    inside = dict(width=width + 2, frac_bits=platform_format(platform, width)["frac_bits"] + 2)
    chain = [CordicConfig(CIRC, ROT, **inside)] * 3 + [CordicConfig(CIRC, VEC, **inside)] * 2
    latency = sum(1 + pipelined_latency(c) for c in chain) + 2
    assert set(np.subtract(run.output_cycles, run.input_cycles).tolist()) == {latency}
    assert dut.latency == latency
    assert set(np.diff(run.output_cycles).tolist()) == {1}
    assert register_depths(TaskGraphPipeline(graph, **platform_format(platform, width))) == \
        {latency}


@pytest.mark.parametrize("name", heavy_unless(SHIPPED_PLATFORMS, small=("planar_3rpr",)))
def test_jacobian_leg_processors_equal_the_model(name):
    platform, width = load_platform(name), 16
    graph = leg_ik_graph(platform, jacobian=True)
    dut = TaskGraphPipeline(graph, **platform_format(platform, width), tag_width=4)
    run = check_pipeline(platform, dut, width, 6, seed=9)
    assert set(np.diff(run.output_cycles).tolist()) == {1}


def test_word_serial_leg_processors_under_stalls():
    platform, width = load_platform("planar_3rpr"), 16
    dut = TaskGraphPipeline(leg_ik_graph(platform), **platform_format(platform, width),
                            tag_width=4, timing="word_serial", check_alignment=True)
    source, sink = [1, 0, 1, 1], [1, 1, 1, 0, 1, 0, 0]
    run = check_pipeline(platform, dut, width, 6, seed=4,
                         source_valid=lambda c: source[c % 4], sink_ready=lambda c: sink[c % 7])
    assert len(run.outputs) == 8


@pytest.mark.slow   # two minutes; the compiled backend runs the same Verilog in make test
def test_exported_verilog_equals_model_under_verilator(tmp_path):
    platform, width = load_platform("planar_3rpr"), 16
    graph = leg_ik_graph(platform)
    poses, edges = poses_with_edges(platform, 100, 5)
    poses = np.concatenate([poses, edges[[0, 2]]])
    codes = pose_codes(platform, poses, width)
    payloads = [{**{n: int(v[k]) for n, v in codes.items()}, "tag": k % 256}
                for k in range(len(poses))]
    outputs, _ = run_stream_verilator(
        TaskGraphPipeline(graph, **platform_format(platform, width), tag_width=8), payloads,
        name="platform_ik", sink_pattern=[True, False, True])
    _, valid, values = evaluate_model(graph, pose_inputs(platform, poses),
                                      **platform_format(platform, width))
    assert [o["tag"] for o in outputs] == [p["tag"] for p in payloads]
    assert [o["unreachable"] for o in outputs] == (~valid).astype(int).tolist()
    for name, column in output_codes(graph, values, width, 2).items():
        assert [o[name] for o in outputs] == column.tolist(), name


# --- the command line ------------------------------------------------------------------------

def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.heavy
def test_platform_ik_backends_agree_and_give_reasons(tmp_path, capsys):
    platform = load_platform("hexapod")
    poses, edges = poses_with_edges(platform, 4, 6)
    rows = np.concatenate([poses, edges])
    source = tmp_path / "poses.csv"
    source.write_text("x,y,z,roll,pitch,yaw\n" +
                      "".join(",".join(map(repr, row.tolist())) + "\n" for row in rows))
    results = {}
    for backend in ("float", "model", "rtl"):
        out = tmp_path / f"{backend}.csv"
        width = [] if backend == "float" else ["--width", "16"]    # the hardware's option
        assert main(["platform", "ik", "--poses", str(source), "--out", str(out), "--backend",
                     backend, *width, "--reasons", "--quiet"]) == 0
        results[backend] = read(out)
    assert [r["reason"] for r in results["model"]] == \
        ["ok"] * 4 + ["outside_limits", "out_of_format", "outside_limits"]
    assert [r["reason"] for r in results["float"]] == ["ok"] * 4 + ["outside_limits"] * 3
    assert results["rtl"] == results["model"]
    lsb = 2.0 ** -platform_format(platform, 16)["frac_bits"]
    for got, want in zip(results["model"][:4], results["float"][:4]):
        assert all(abs(float(got[f"rho{i}"]) - float(want[f"rho{i}"])) < 2 * lsb
                   for i in range(1, 7))
    # The codes themselves: lengths are whole LSBs of the format.
    assert all(float(r["rho1"]) / lsb == round(float(r["rho1"]) / lsb) for r in results["rtl"])
    # The rows of K / rho (the rtl backend's Jacobian graph: the pipeline tests above, and the
    # compiled backend's file in test_compiled.py); their condition number from the rows.
    rows = {}
    for backend in ("float", "model"):
        out = tmp_path / f"jacobian_{backend}.csv"
        width = [] if backend == "float" else ["--width", "16"]    # the hardware's option
        assert main(["platform", "jacobian", "--poses", str(source), "--out", str(out),
                     "--backend", backend, *width, "--reasons", "--quiet"]) == 0
        rows[backend] = read(out)
    assert [r["reason"] for r in rows["model"]] == [r["reason"] for r in results["model"]]
    for got, want in zip(rows["model"][:4], rows["float"][:4]):
        assert abs(float(got["cond"]) - float(want["cond"])) < 1e-3 * float(want["cond"])
        assert all(abs(float(got[k]) - float(want[k])) < 4e-4 for k in want if k[0] == "k")


def test_pose_codes_are_the_models_rounding():
    platform, width = load_platform("hexapod"), 20
    poses = sample_poses(platform, 50, np.random.default_rng(8))
    codes = pose_codes(platform, poses, width)
    real = FixedFormat(width, platform_format(platform, width)["frac_bits"])
    assert codes["z"].tolist() == real.from_float(poses[:, 2]).tolist()
    assert codes["yaw"].tolist() == angle_to_code(poses[:, 5], width).tolist()


# --- the Givens-rotation solve ---------------------------------------------------------------

def systems(n, count, seed, scale=1.0):
    """Random ``A`` (entries in [-1, 1]), ``x`` (in [-scale, scale]) and ``b = A x``, as graph
    inputs, with ``A``'s condition numbers."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (count, n, n))
    x = rng.uniform(-scale, scale, (count, n))
    b = np.einsum("kij,kj->ki", a, x)
    inputs = {f"a{i + 1}_{j + 1}": a[:, i, j] for i in range(n) for j in range(n)}
    inputs.update({f"b{i + 1}": b[:, i] for i in range(n)})
    return inputs, x, np.linalg.cond(a)


def test_givens_solve_has_the_counted_ccms_and_solves_in_float():
    for n in (1, 2, 3, 6):
        graph = solve_graph(n)
        kinds = {}
        for c in graph.ccms:
            kinds[(c.system, c.direction)] = kinds.get((c.system, c.direction), 0) + 1
        counts = ccm_counts(n)
        # Counted independently: row i meets cells (j, j..n) for every j < i.
        rotations = sum(n - j for i in range(n) for j in range(i))
        assert counts["rotations"] == rotations
        assert kinds.get((CIRC, VEC), 0) == counts["vectorings"] == n * (n - 1) // 2
        assert kinds.get((CIRC, ROT), 0) == rotations
        assert kinds.get((System.LINEAR, ROT), 0) == counts["multiply_adds"]
        assert kinds[(System.LINEAR, VEC)] == counts["divisions"] == n
    inputs, x, _ = systems(6, 2000, seed=1)
    out, valid, _ = evaluate_float(solve_graph(6), inputs)
    # Valid exactly where numpy's QR has every pivot at MIN_PIVOT or more (the solutions lie
    # in [-1, 1], inside the linear CCMs' range).
    a = np.stack([[inputs[f"a{i}_{j}"] for j in range(1, 7)] for i in range(1, 7)]).transpose(
        2, 0, 1)
    pivots = np.abs(np.diagonal(np.linalg.qr(a)[1], axis1=1, axis2=2)).min(-1)
    assert valid.tolist() == (pivots >= MIN_PIVOT).tolist() and 0.9 < valid.mean() < 1
    got = np.stack([out[f"x{i}"] for i in range(1, 7)], -1)
    assert np.abs(got - x)[valid].max() < 1e-10


def test_givens_model_error_grows_with_the_condition_number():
    # At 24 bits, reals in [-8, 8) (20 fraction bits, LSB 9.5e-7) and two guard bits; over
    # 3,000 systems. Measured: 4.8e-6 (cond < 10), 4.3e-5 (10-100), 2.6e-4 (100-1000).
    graph = solve_graph(6)
    inputs, x, cond = systems(6, 3000, seed=0)
    out, valid, _ = evaluate_model(graph, inputs, width=24, frac_bits=20, guard_bits=2)
    error = np.abs(np.stack([out[f"x{i}"] for i in range(1, 7)], -1) - x).max(-1)
    assert valid.mean() > 0.9
    for low, bound in ((1, 1e-5), (10, 1e-4), (100, 1e-3)):
        band = valid & (cond >= low) & (cond < 10 * low)
        assert band.sum() > 100 and error[band].max() < bound
    # What the pivots' guard leaves out is badly conditioned.
    assert cond[~valid].min() > 100


def test_givens_flags_a_singular_system_and_a_solution_beyond_the_linear_range():
    graph = solve_graph(3)
    singular = [[1.0, 2.0, 0.5], [2.0, 4.0, 1.0], [0.0, 1.0, 1.0]]     # rank 2
    a = np.array([singular, singular, np.eye(3), np.eye(3)])
    b = np.array([[1.0, 1.0, 1.0],              # inconsistent: x beyond any range
                  [1.0, 2.0, 0.5],              # consistent (x = e1): only the pivot tells
                  [0.5, 0.5, 3.0],              # x3 = 3 > 2, the linear CCMs' limit
                  [0.5, -0.5, 1.5]])            # fine
    inputs = {f"a{i + 1}_{j + 1}": a[:, i, j] for i in range(3) for j in range(3)}
    inputs.update({f"b{i + 1}": b[:, i] for i in range(3)})
    for evaluate, options in ((evaluate_float, {}),
                              (evaluate_model, dict(width=16, frac_bits=12, guard_bits=2))):
        out, valid, _ = evaluate(graph, inputs, **options)
        assert valid.tolist() == [False, False, False, True]
        assert [out[f"x{i}"][3] for i in (1, 2, 3)] == pytest.approx([0.5, -0.5, 1.5], abs=1e-3)


@pytest.mark.parametrize("n, timing", [pytest.param(3, "pipelined", marks=HEAVY),
                                       (2, "word_serial")])
def test_givens_pipeline_equals_the_model(n, timing):
    width = 14
    graph = solve_graph(n)
    formats = dict(width=width, frac_bits=width - 4, guard_bits=2)
    inputs, _, _ = systems(n, 12, seed=5)
    # A singular system: zeros, consistent (0 = 0): only the pivots' guards flag it.
    inputs = {k: np.append(v, 0.0) for k, v in inputs.items()}
    real = FixedFormat(width, width - 4)
    payloads = [{**{k: int(real.from_float(v[s])) for k, v in inputs.items()}, "tag": s}
                for s in range(13)]
    dut = TaskGraphPipeline(graph, **formats, tag_width=4, check_alignment=True, timing=timing)
    sink = [1, 1, 0, 1, 0, 0, 1]
    run = run_stream(dut, payloads, sink_ready=lambda c: sink[c % 7])
    _, valid, values = evaluate_model(graph, inputs, **formats)
    assert not valid[-1] and valid[:-1].mean() > 0.8
    assert [o["tag"] for o in run.outputs] == list(range(13))
    assert [o["unreachable"] for o in run.outputs] == (~valid).astype(int).tolist()
    for name, column in output_codes(graph, values, width, 2).items():
        assert [o[name] for o in run.outputs] == column.tolist(), name


@pytest.mark.heavy
@pytest.mark.parametrize("command", ["ik", "jacobian"])
def test_a_header_only_file_gives_a_header_only_result_on_the_hardware(command, tmp_path):
    source, out = tmp_path / "poses.csv", tmp_path / "out.csv"
    source.write_text("x,y,phi\n")
    for backend in ("model", "rtl"):
        assert main(["platform", command, "--platform", "planar_3rpr", "--poses", str(source),
                     "--out", str(out), "--backend", backend, "--width", "16", "--reasons",
                     "--quiet"]) == 0
        lines = out.read_text().splitlines()
        assert len(lines) == 1 and lines[0].endswith(",valid,reason")


def test_a_design_equals_its_model_only_row_for_row():
    # The registry's check compares every field the model gives, in order, and nothing else:
    # a lost, extra or changed row is unequal; a different tag or an extra field is not.
    from robohw.legs.designs import PlatformIkDesign
    design = PlatformIkDesign("planar", "pipelined", "planar_3rpr")
    dut = design.build(16)
    workload = design.workload(dut, 4, seed=3)
    model = design.model_outputs(dut, workload)
    outputs = [{**row, "tag": 255, "extra": 1} for row in model]
    assert design.equals_model(dut, workload, outputs)
    changed = [dict(row) for row in outputs]
    changed[2]["rho1"] ^= 1
    for wrong in (outputs[:-1], outputs + outputs[:1], outputs[::-1], changed):
        assert not design.equals_model(dut, workload, wrong)


@pytest.mark.parametrize("command", ["ik", "jacobian", "dynamics", "fk"])
@pytest.mark.parametrize("timing", ["pipelined", "word_serial", "machine"])
def test_the_platform_command_builds_its_hardware_through_the_designs(command, timing):
    # robohw platform's hardware backends take the registered design where one computes the
    # command on those processors, else the same class at that timing; each builds the
    # processors its timing names, for the platform given.
    from robohw.legs.designs import DESIGNS, command_design
    from robohw.legs.leg_machine import LegMachine
    from robohw.legs.servo import FkServo
    design = command_design(command, timing)
    registered = {d.name: d for d in DESIGNS}
    assert design.name == f"platform-{command}-{timing.replace('_', '-')}"
    if design.name in registered:
        assert design is registered[design.name]
    planar = load_platform("planar_3rpr")
    dut = design.hardware(planar, 16, tag_width=0)
    if command == "fk":
        assert isinstance(dut, FkServo) and dut.pipeline.width == 16
        assert isinstance(dut.pipeline, LegMachine if timing == "machine" else
                          TaskGraphPipeline)
    else:
        assert isinstance(dut, LegMachine if timing == "machine" else TaskGraphPipeline)
        assert dut.width == 16 and ("k1_1" in dut.graph.outputs) == (command == "jacobian")
