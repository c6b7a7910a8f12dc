import io
import json
import pathlib
import re

import pytest
from netlist import register_depths

from robohw.commands import main
from robohw.commands import parser as _parser
from robohw.ik.codec import POSE_INPUTS, pose_inputs
from robohw.registry import DESIGNS
from robohw.robots import load_robot
from robohw.robots.kinematics import forward_kinematics
from robohw.robots.sampling import sample_joints
from robohw.support.formats import FORMAT_VERSION
from robohw.support.progress import Progress
from robohw.systolic.reference import jacobian_inertia

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def test_bench_cordic_prints_measured_cycles(capsys, tmp_path):
    out_json = tmp_path / "bench.json"
    assert main(["bench", "cordic", "--widths", "8", "--no-verilator", "--json",
                 str(out_json)]) == 0
    table = capsys.readouterr().out
    # Width 8: 9 iterations (width + 1, CordicConfig's documented default) and a register step
    # per non-trivial normalization factor. Pipelined: the pre-rotation register, one per
    # register step, rounding, saturation and the stream's output queue (two: its memory write and
    # its read register); word-serial: a load cycle, one cycle per register step, rounding and
    # saturation, a new operand every register-step count; word-serial steps take two cycles (shift,
    # then add).
    from robohw.cordic.config import CordicConfig
    steps = 9 + sum(1 for g in CordicConfig("circular", "rotation", width=8).gammas if g)
    assert f"| pipelined | 8 | 9 | {1 + steps + 2 + 2} | 1 |" in table
    assert f"| word_serial | 8 | 9 | {1 + 2 * steps + 2} | {2 * steps} |" in table
    document = json.loads(out_json.read_text())
    assert document["format_version"] == FORMAT_VERSION
    assert all(r["latency"] == r["stated_latency"] and r["interval"] == r["stated_interval"]
               for r in document["rows"])


@pytest.mark.heavy
def test_report_quick_writes_every_file(tmp_path, capsys):
    page = tmp_path / "page.md"
    assert main(["report", "--quick", "--out", str(tmp_path), "--results", str(page)]) == 0
    captured = capsys.readouterr()
    # Every JSON file says its format's version.
    for name in ("summary", "cordic", "ik", "inertia", "dynamics", "platform", "transputer",
                 "distributed", "robots", "commands", "results"):
        assert json.loads((tmp_path / f"{name}.json").read_text())["format_version"] == \
            FORMAT_VERSION, name
    # One table on stdout: every design, measured latency equal to the stated one.
    rows = json.loads((tmp_path / "summary.json").read_text())["rows"]
    # --quick stamps the commit, not the Verilog's digest: the results page says so.
    assert all(r["commit"] and r["verilog_sha256"] is None for r in rows)
    assert page.read_text() == (tmp_path / "results.md").read_text()
    assert page.read_text().count("| not stamped |") == len(rows)
    assert "No synthesis results" in page.read_text()
    assert [r["design"] for r in rows] == list(DESIGNS)
    simulated = [r for r in rows if r["simulated"]]
    assert all(r["equals_model"] and r["latency"] == r["stated_latency"] and
               r["interval"] == r["stated_interval"] for r in simulated)
    # Gosselin's machines take a state at a time for thousands of cycles: stated, not
    # simulated, with --quick (tests/legs/test_platform_dynamics.py simulates them planar).
    assert {r["design"] for r in rows if not r["simulated"]} == {
        "platform-dynamics-machine", "platform-fk-machine"}
    assert all(r["stated_interval"] > 4096 for r in rows if not r["simulated"])
    assert captured.out.startswith("| design | configuration | latency (cycles) |")
    assert "| inertia-logdepth |" in captured.out
    assert "| circular rotation | interleaved | 16 | x |" in (tmp_path / "cordic.md").read_text()
    data = json.loads((tmp_path / "cordic.json").read_text())
    assert all(row["max_lsb"] <= row["bound_lsb"] for row in data["accuracy"])
    # A log gets no terminal drawing: at most a line when a long step starts and one when it
    # ends.
    assert "\r" not in captured.err and "\x1b[K" not in captured.err
    inertia = json.loads((tmp_path / "inertia.json").read_text())
    assert all(r["measured"]["latency"] == r["latency"] and r["measured"]["equals_model"]
               for r in inertia["puma"])
    platform = json.loads((tmp_path / "platform.json").read_text())
    assert {r["item"] for r in platform["counts"]["spatial"]} >= {"ik", "dynamics_serial"}
    assert "# Parallel manipulators" in (tmp_path / "platform.md").read_text()
    # The servo loop's goal at 24 bits, two iterations a row: 1 um and 1e-5 rad.
    servo = [a for r in platform["fk_servo"] for a in r["accuracy"] if a["iterations"] == 2]
    assert servo and all(a["valid"] == a["rows"] and a["position_max_m"] < 1e-6 and
                         a["angle_max_rad"] < 1e-5 for a in servo)
    # Zomaya & Morris's tables beside ours, with the subtasks' structural zeros.
    transputer = (tmp_path / "transputer.md").read_text()
    for printed in ("| 8 | 3.34 |", "| 3 | 2.86 |", "| 6 | 0.957 |", "100.0 98.7 98.7",
                    "D34, D36, D45, D56", "C2_13, C3_44, C3_45, C4_55"):
        assert printed in transputer
    assert "certified" in transputer and "What the numbers say" in transputer
    assert set(json.loads((tmp_path / "transputer.json").read_text())) == {"format_version"} | {
        f"{a}/{c}" for a in ("paper", "lpt", "optimal") for c in ("predictive", "calibrated")}
    # Every shipped robot's designs at their defaults, each within its bound; the real arms'
    # within the 1e-4 goal.
    robots = json.loads((tmp_path / "robots.json").read_text())["rows"]
    assert {(r["robot"], r["design"]) for r in robots} >= {
        (arm, name) for arm in ("ur5", "panda") for name in ("inertia-linear",
                                                             "dynamics-array")}
    assert all(r["default"] and r["error"] < 1e-4 for r in robots if r["robot"] in ("ur5",
                                                                                  "panda"))
    assert "| ur5 | inertia-linear | 20, 6 |" in (tmp_path / "robots.md").read_text()
    # The command paths timed on a shipped arm and the example (a user's) arm, as ratios.
    commands = (tmp_path / "commands.md").read_text()
    assert commands.startswith("## The command paths against Pinocchio")
    for arm in ("ur5", "seven_joint_arm.urdf"):
        assert f"| {arm} | dynamics | robohw dynamics, model, default width | 2,000 |" in commands
        assert re.search(rf"- {re.escape(arm)}, `robohw dynamics`: .*, the model at its "
                         rf"default width \d+\.\d\dx the float path\.", commands)
    assert {r["robot"] for r in json.loads((tmp_path / "commands.json").read_text())["rows"]
            if r["robot"]} == {"ur5", str(EXAMPLES / "seven_joint_arm.urdf")}
    # The thesis's gains and Table 6.2 beside ours.
    distributed = (tmp_path / "distributed.md").read_text()
    assert "| zero | 6 (n) | 257 | 6.000 |" in distributed
    assert "| 1 | 2 | 3.215 / 3.21 (+0 %) |" in distributed
    assert set(json.loads((tmp_path / "distributed.json").read_text())) == {
        "format_version", "gains", "tables", "worked"}
    for plot in ("errors.png", "ik_schedule.png", "inertia_tradeoff.png", "dynamics_tp.png",
                 "transputer_speedup.png", "transputer_gantt.png", "distributed_torques.png",
                 "distributed_timing.png"):
        assert (tmp_path / plot).read_bytes()[:4] == b"\x89PNG", plot


@pytest.mark.parametrize("argv, message", [
    (["bench", "cordic", "--widths", "16,x"], "widths must be integers separated by commas"),
    (["bench", "cordic", "--widths", "64"], r"widths must be in \[4, 40\]"),
    (["bench", "fft"], "invalid choice: 'fft'"),
])
def test_usage_errors_exit_2_with_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert re.search(message, capsys.readouterr().err)


def test_the_dynamics_commands_take_the_newton_euler_designs_widths(capsys):
    from robohw.commands.options import DYNAMICS_WIDTHS
    assert {DESIGNS[name].width_range for name in (
        "dynamics-engine", "dynamics-array", "dynamics-pipelined")} == {DYNAMICS_WIDTHS}
    low, high = DYNAMICS_WIDTHS
    for command in (["dynamics"], ["forward-dynamics"], ["board", "build"]):
        with pytest.raises(SystemExit) as exit_info:
            main([*command, "--width", str(high + 1)])
        assert exit_info.value.code == 2
        expected = f"--width must be an integer [{low}, {high}], not '{high + 1}'"
        assert expected in capsys.readouterr().err


def test_ik_graph_writes_the_balanced_graph(tmp_path, capsys):
    out = tmp_path / "graph.json"
    assert main(["ik-graph", "--graph", "best", "--json", str(out)]) == 0
    assert re.search(r"ccms +20\n", capsys.readouterr().out)
    graph = json.loads(out.read_text())
    assert {"nodes", "edges", "inputs", "outputs", "total_buffer_stages", "shared_buffer_stages",
            "tapped_delay_lines", "depth"} <= set(graph)
    assert graph["depth"] == 11 and graph["shared_buffer_stages"] <= graph["total_buffer_stages"]
    start = {n["name"]: n["start"] for n in graph["nodes"]} | dict.fromkeys(graph["inputs"], 0)
    latency = {n["name"]: n["latency"] for n in graph["nodes"]} | dict.fromkeys(graph["inputs"], 0)
    for e in graph["edges"]:  # balanced: every operand waits exactly its buffers
        if e["dst"] in start:
            assert start[e["dst"]] == start[e["src"]] + latency[e["src"]] + e["buffers"]


def test_ik_graph_pipelined_timing_uses_cordic_latency(capsys):
    assert main(["ik-graph", "--timing", "pipelined", "--width", "16", "--align-outputs"]) == 0
    text = capsys.readouterr().out
    depth = int(re.search(r"depth\s+(\d+)", text).group(1))
    assert depth > 11 * 18  # eleven CCMs deep, each 19 to 22 cycles at 16 bits


def test_ik_graph_bad_robot_is_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[[joint]]\ntype = "revolute"\n')
    assert main(["ik-graph", "--robot", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "joint 1: a: missing" in err


def write_poses(path, count=4, seed=0):
    import numpy as np
    robot = load_robot()
    q = sample_joints(robot, count, np.random.default_rng(seed))
    inputs = pose_inputs(forward_kinematics(robot, q))
    rows = [",".join(POSE_INPUTS)]
    rows += [",".join(str(float(inputs[n][k])) for n in POSE_INPUTS) for k in range(count)]
    path.write_text("\n".join(rows) + "\n")
    return q


def read_joints(path):
    import numpy as np
    lines = path.read_text().splitlines()
    assert lines[0] == "q1,q2,q3,q4,q5,q6,valid"
    return np.array([[float(v) for v in line.split(",")] for line in lines[1:]])


@pytest.mark.heavy
def test_ik_backends_agree(tmp_path):
    import numpy as np
    write_poses(tmp_path / "poses.csv")
    results = {}
    for backend in ("float", "model", "rtl"):
        out = tmp_path / f"{backend}.csv"
        # --width is the hardware's: the float backend refuses it.
        width = [] if backend == "float" else ["--width", "16"]
        assert main(["ik", "--poses", str(tmp_path / "poses.csv"), "--out", str(out),
                     "--backend", backend, *width, "--elbow", "down"]) == 0
        results[backend] = read_joints(out)
    assert np.array_equal(results["model"], results["rtl"])  # bit for bit, as radians
    assert results["float"][:, 6].all()
    assert np.abs(results["model"][:, :6] - results["float"][:, :6]).max() < 0.05
    assert np.all(np.abs(results["float"][:, :6]) <= np.pi)


@pytest.mark.parametrize("edit, message", [
    (lambda rows: [rows[0].replace("ay", "aq")] + rows[1:], "line 1, column ay: missing"),
    (lambda rows: rows[:2] + [rows[2].replace(rows[2].split(",")[3], "abc", 1)] + rows[3:],
     "line 3, column ox: not a number: 'abc'"),
    (lambda rows: rows[:2] + [",".join(["nan"] + rows[2].split(",")[1:])],
     "line 3, column nx: not finite"),
    (lambda rows: rows[:2] + [rows[2] + ",1"], "line 3: 13 fields, the header has 12"),
])
def test_ik_bad_files_exit_2_one_line_no_output(tmp_path, capsys, edit, message):
    poses = tmp_path / "poses.csv"
    write_poses(poses)
    poses.write_text("\n".join(edit(poses.read_text().splitlines())) + "\n")
    out = tmp_path / "out.csv"
    assert main(["ik", "--poses", str(poses), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(poses) in err and re.search(message, err)
    assert not out.exists() and not list(tmp_path.glob(".out.csv*"))


@pytest.mark.parametrize("backend", ["float", "model"])
def test_ik_rows_off_an_orthonormal_frame_are_not_valid_and_the_rest_are(tmp_path, capsys,
                                                                        backend):
    # A rotation printed to 4 decimals misses the 1e-4 tolerance on R^T R; a stretched one is
    # no rotation at all; a reflection is not right-handed: each row is not valid, with its
    # reason, and the file's other rows are solved.
    poses = tmp_path / "poses.csv"
    write_poses(poses, count=5)
    rows = poses.read_text().splitlines()
    fields = [row.split(",") for row in rows[1:]]
    fields[0][:9] = [f"{float(v):.4f}" for v in fields[0][:9]]
    fields[1][0] = "1.5"
    fields[2][6:9] = [str(-float(v)) for v in fields[2][6:9]]      # a -> -a: left-handed
    fields[3][:9] = [f"{float(v):.7f}" for v in fields[3][:9]]      # 7 decimals: within it
    poses.write_text("\n".join([rows[0]] + [",".join(f) for f in fields]) + "\n")
    out = tmp_path / "out.csv"
    assert main(["ik", "--poses", str(poses), "--out", str(out), "--backend", backend,
                 "--reasons"]) == 0
    lines = out.read_text().splitlines()[1:]
    reasons = [line.split(",")[-2:] for line in lines]
    assert [r for r, _ in zip(reasons, range(3))] == [["0", "not_orthonormal"]] * 3
    assert reasons[3:] == [["1", "ok"], ["1", "ok"]]
    assert "5 rows, 2 valid" in capsys.readouterr().err


def test_bench_buffers(capsys):
    assert main(["bench", "buffers", "--nodes", "300"]) == 0
    out = capsys.readouterr().out
    assert "| 300 | 600 | no |" in out and "| 300 | 600 | yes |" in out


def write_configurations(path, rows=5, seed=0):
    import numpy as np
    q = np.random.default_rng(seed).uniform(-2, 2, (rows, 6))
    path.write_text("q6,q5,q4,q3,q2,q1\n" + "".join(  # any column order
        ",".join(repr(float(v)) for v in row[::-1]) + "\n" for row in q))
    return q


def read_matrices(path):
    import numpy as np
    lines = path.read_text().splitlines()
    assert lines[0] == ",".join(f"H{j}{i}" for j in range(1, 7) for i in range(1, 7)) + ",valid"
    rows = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    assert rows[:, -1].all()
    return rows[:, :-1].reshape(-1, 6, 6)


@pytest.mark.heavy
@pytest.mark.parametrize("array", ["linear", "logdepth"])
def test_inertia_backends_agree(tmp_path, array):
    import numpy as np
    q = write_configurations(tmp_path / "q.csv")
    results = {}
    for backend in ("float", "model", "rtl"):
        out = tmp_path / f"{backend}.csv"
        assert main(["inertia", "--q", str(tmp_path / "q.csv"), "--out", str(out),
                     "--backend", backend, "--array", array,
                     # The rtl backend's fold (the float and model backends take none).
                     *(["--fold", "2"] if array == "logdepth" and backend == "rtl" else [])]) == 0
        results[backend] = read_matrices(out)
    assert np.array_equal(results["model"], results["rtl"])  # bit for bit
    reference = jacobian_inertia(load_robot(), q)
    assert np.abs(results["float"] - reference).max() < 1e-12
    assert np.abs(results["model"] - reference).max() < 1e-4 * np.abs(reference).max()


@pytest.mark.parametrize("array", ["linear", "logdepth"])
def test_the_inertia_model_states_its_proven_bound(tmp_path, capsys, array):
    # Each entry of every valid matrix is within the bound the closing line states (checked
    # entry by entry against float64), and the bound is the plan's.
    import numpy as np

    from robohw.systolic import PLANS
    from robohw.systolic.accuracy import largest_entry
    q = write_configurations(tmp_path / "q.csv")
    out = tmp_path / "h.csv"
    assert main(["inertia", "--q", str(tmp_path / "q.csv"), "--out", str(out), "--backend",
                 "model", "--array", array, "--width", "16"]) == 0
    err = capsys.readouterr().err
    robot = load_robot()
    bounds = PLANS[array](robot, width=16).output_bounds
    bound, largest = max(bounds.values()), largest_entry(robot)
    rows = [max(b for (j, _), b in bounds.items() if j == r) for r in range(1, robot.dof + 1)]
    assert f"; each entry proven within its row's bound, " \
        f"{', '.join(f'{b:.2g}' for b in rows)} (rows 1 to {robot.dof} of H, SI units; the " \
        f"largest {bound / largest:.2%} of the largest entry, {largest:.3g}, the joint limits " \
        f"allow)" in err
    reference = jacobian_inertia(robot, q)
    error = np.abs(read_matrices(out) - reference)
    # Against exact arithmetic; float64's own rounding of the reference beside it (a constant
    # entry's bound is its one rounding, an exact zero's 0).
    slack = 8 * np.finfo(float).eps * np.abs(reference).max()
    assert all(error[:, j - 1, i - 1].max() <= b + slack for (j, i), b in bounds.items())


@pytest.mark.parametrize("edit, robot, message", [
    (lambda rows: [rows[0].replace("q4", "qq")] + rows[1:], "puma560",
     "line 1, column q4: missing"),
    (lambda rows: rows[:2] + [rows[2].replace(rows[2].split(",")[1], "abc", 1)] + rows[3:],
     "puma560", "line 3, column q5: not a number: 'abc'"),
    (lambda rows: rows[:3] + [rows[3] + ",1"], "puma560", "line 4: 7 fields, the header has 6"),
    (lambda rows: rows, "puma560_fgl", "needs mass, com and inertia for every joint"),
])
def test_inertia_bad_input_exit_2_one_line_no_output(tmp_path, capsys, edit, robot, message):
    q = tmp_path / "q.csv"
    write_configurations(q)
    q.write_text("\n".join(edit(q.read_text().splitlines())) + "\n")
    out = tmp_path / "h.csv"
    assert main(["inertia", "--q", str(q), "--out", str(out), "--robot", robot,
                 "--backend", "model"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and re.search(message, err)
    assert not out.exists() and not list(tmp_path.glob(".h.csv*"))


@pytest.mark.parametrize("command", ["inertia", "dynamics", "platform"])
def test_an_angle_without_an_exact_binary_angle_is_out_of_format(command, tmp_path, capsys):
    # 1e20 rad once wrapped through a failed int64 cast to a garbage angle, marked valid.
    source, out = tmp_path / "in.csv", tmp_path / "out.csv"
    if command == "inertia":
        source.write_text("q1,q2,q3,q4,q5,q6\n0,1e20,0,0,0,0\n0,0.1,0,0,0,0\n")
        argv = ["inertia", "--q", str(source)]
    elif command == "dynamics":
        names = [f"{kind}{k}" for kind in ("q", "qd", "qdd") for k in range(1, 7)]
        source.write_text(",".join(names) + "\n" + ",".join(["0", "1e20"] + ["0"] * 16) +
                          "\n" + ",".join(["0", "0.1"] + ["0"] * 16) + "\n")
        argv = ["dynamics", "--states", str(source)]
    else:
        source.write_text("x,y,z,roll,pitch,yaw\n0,0,0.6,0,-1e20,0\n0,0,0.6,0,0.1,0\n")
        argv = ["platform", "ik", "--poses", str(source)]
    assert main([*argv, "--out", str(out), "--backend", "model", "--reasons", "--quiet"]) == 0
    rows = [line.split(",") for line in out.read_text().splitlines()]
    assert rows[1][-2:] == ["0", "out_of_format"] and rows[2][-2:] == ["1", "ok"]
    assert all(float(v) == 0 for v in rows[1][:-2])


def test_inertia_prismatic_outside_limits_is_an_invalid_row(tmp_path, capsys):
    robot = tmp_path / "slider.toml"
    robot.write_text('name = "slider"\n' + 2 * (
        '[[joint]]\ntype = "prismatic"\na = 0.1\nalpha = 0.5\nd = 0.0\noffset = 0.0\n'
        'limits = [-0.5, 0.5]\nmass = 2.0\ncom = [0.0, 0.1, 0.0]\n'
        'inertia = [0.1, 0.1, 0.1, 0.0, 0.0, 0.0]\n'))
    q = tmp_path / "q.csv"
    q.write_text("q1,q2\n0.1,0.2\n0.3,0.7\n")
    out = tmp_path / "h.csv"
    assert main(["inertia", "--q", str(q), "--out", str(out), "--robot", str(robot),
                 "--backend", "model", "--reasons"]) == 0
    rows = [line.split(",") for line in out.read_text().splitlines()]
    assert rows[0][-2:] == ["valid", "reason"]
    assert rows[1][-2:] == ["1", "ok"] and float(rows[1][0]) > 0
    assert rows[2][-2:] == ["0", "outside_limits"] and float(rows[2][0]) == 0
    assert main(["inertia", "--q", str(q), "--out", str(out), "--robot",
                 str(robot)]) == 0  # float needs no limits
    assert out.read_text().splitlines()[2].endswith(",1")


@pytest.mark.heavy
def test_sim_amaranth_with_vcd_and_model(tmp_path, capsys):
    vcd, out = tmp_path / "wave.vcd", tmp_path / "r.json"
    assert main(["sim", "cordic-word-serial", "--count", "4", "--vcd", str(vcd),
                 "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["equals_model"] and result["latency"] == result["stated_latency"]
    assert vcd.read_text().startswith("$date") or "$timescale" in vcd.read_text()[:2000]
    assert main(["sim", "inertia-linear", "--backend", "model", "--count", "100"]) == 0
    assert "max_error" in capsys.readouterr().out
    # A folded array: one result every --fold cycles, the same bits as the model.
    assert main(["sim", "inertia-logdepth", "--fold", "3", "--count", "6", "--width", "16",
                 "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["fold"] == 3 and result["interval"] == result["stated_interval"] == 3
    assert result["equals_model"] and result["latency"] == result["stated_latency"]


@pytest.mark.parametrize("argv, message", [
    (["sim", "fft"], "unknown design 'fft'; known: cordic-pipelined"),
    (["sim", "cordic-pipelined", "--backend", "model", "--vcd", "x.vcd"],
     "--vcd needs a simulated backend"),
    (["sim", "cordic-pipelined", "--count", "0"],
     r"--count must be an integer \[1, 1000000\], not '0'"),
    (["sim", "cordic-pipelined", "--width", "0"], "--width must be an integer >= 1, not '0'"),
    (["sim", "cordic-pipelined", "--width", "3"],
     r"cordic-pipelined: width must be an integer in \[4, 40\], not 3"),
    (["sim", "cordic-pipelined", "--seed", "-1"], "--seed must be an integer >= 0, not '-1'"),
    (["sim", "inertia-linear", "--fold", "0"], "--fold must be an integer >= 1, not '0'"),
    (["synth", "--fold", "2,x"], "folds must be positive integers separated by commas"),
    (["synth", "--target-mhz", "0"], "--target-mhz must be a positive number, not '0'"),
    (["synth", "--target-mhz", "20000", "--out", "/tmp"],
     "--target-mhz must be below 10000, not 20000"),
    (["sim", "cordic-pipelined", "--json", "/nonexistent/r.json"],
     "cannot write /nonexistent/r.json: directory /nonexistent does not exist"),
])
def test_sim_usage_errors_exit_2(argv, message, capsys):
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own checks exit from parse_args
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and re.search(message, err)


@pytest.mark.heavy
def test_export_command(tmp_path, capsys):
    assert main(["export", "--out", str(tmp_path), "--designs", "cordic-pipelined",
                 "--widths", "12"]) == 0
    # The latency printed is the register count between the ports of the exported design.
    (depth,) = register_depths(DESIGNS["cordic-pipelined"].build(12))
    assert f"cordic_pipelined_w12.v  latency {depth} cycles, interval 1" in \
        capsys.readouterr().out
    assert {p.suffix for p in tmp_path.iterdir()} == {".v", ".json", ".vlt"}
    # Each fold of a folded design is a module of its own; a design without a fold ignores it.
    assert main(["export", "--out", str(tmp_path), "--designs", "inertia-linear,cordic-pipelined",
                 "--widths", "12", "--fold", "2,3", "--no-lint"]) == 0
    out = capsys.readouterr().out
    assert "inertia_linear_w12_f2.v" in out and ", interval 2," in out
    assert "inertia_linear_w12_f3.v" in out and ", interval 3," in out
    assert out.count("cordic_pipelined_w12.v") == 1


def test_every_help_example_parses():
    """Every example in the help texts is valid as typed (argument parsing)."""
    import shlex
    parser = _parser()
    commands = parser._subparsers._group_actions[0].choices
    assert all(c.epilog and c.epilog.startswith("example: robohw ") for c in commands.values())
    lines = [line.replace("example:", "").strip()
             for text in [parser.epilog] + [c.epilog for c in commands.values()]
             for line in text.splitlines()]
    examples = [line for line in lines if line.startswith("robohw ") and "<" not in line]
    assert len(examples) == len(commands) + 4
    for example in examples:
        parser.parse_args(shlex.split(example)[1:])


def test_ik_rows_outside_the_format_are_invalid_not_fatal(tmp_path):
    # Poses in millimetres for two rows: once the whole file failed with "a value is outside
    # the 24-bit data format"; now those rows are out_of_format and the rest is solved.
    poses = tmp_path / "poses.csv"
    write_poses(poses, count=6)
    lines = poses.read_text().splitlines()
    for k in (2, 4):
        values = lines[k].split(",")
        values[9:12] = [str(float(v) * 1000) for v in values[9:12]]
        lines[k] = ",".join(values)
    poses.write_text("\n".join(lines) + "\n")
    out = tmp_path / "q.csv"
    assert main(["ik", "--poses", str(poses), "--out", str(out), "--backend", "model",
                 "--reasons"]) == 0
    rows = [line.split(",") for line in out.read_text().splitlines()]
    assert rows[0] == ["q1", "q2", "q3", "q4", "q5", "q6", "valid", "reason"]
    assert [r[-2:] for r in rows[1:]] == [["1", "ok"], ["0", "out_of_format"], ["1", "ok"],
                                         ["0", "out_of_format"], ["1", "ok"], ["1", "ok"]]


def test_ik_all_branches_limits_and_reasons(tmp_path):
    import numpy as np
    poses = tmp_path / "poses.csv"
    q = write_poses(poses, count=5)
    out = tmp_path / "q.csv"
    assert main(["ik", "--poses", str(poses), "--out", str(out), "--all-branches",
                 "--within-limits", "--reasons"]) == 0
    rows = [line.split(",") for line in out.read_text().splitlines()]
    assert rows[0][0] == "branch" and rows[0][-2:] == ["valid", "reason"]
    assert [int(r[0]) for r in rows[1:]] == list(range(8)) * 5
    assert {r[-1] for r in rows[1:]} <= {"ok", "outside_limits", "unreachable"}
    # The joint vector each pose came from is among its valid branches (it is in the limits).
    solved = np.array([[float(v) for v in r[1:7]] for r in rows[1:]]).reshape(5, 8, 6)
    valid = np.array([r[7] == "1" for r in rows[1:]]).reshape(5, 8)
    gaps = np.abs(np.angle(np.exp(1j * (solved - q[:, None])))).max(-1)
    assert np.all(np.where(valid, gaps, np.inf).min(-1) < 1e-9)
    limits = np.array([j.limits for j in load_robot().joints])
    inside = np.logical_or.reduce([(solved + turn >= limits[:, 0]) & (solved + turn <= limits[:, 1])
                                   for turn in (0, 2 * np.pi, -2 * np.pi)]).all(-1)
    assert np.all(inside[valid])
    assert "outside_limits" in {r[-1] for r in rows[1:]}  # some branches do leave them


def test_ik_paper_graph_and_argument_rules(tmp_path, capsys):
    poses = tmp_path / "poses.csv"
    write_poses(poses, count=3)
    out = tmp_path / "q.csv"
    assert main(["ik", "--poses", str(poses), "--out", str(out), "--backend", "model",
                 "--graph", "paper"]) == 0
    assert main(["ik", "--poses", str(poses), "--out", str(out), "--all-branches",
                 "--arm", "left"]) == 2
    assert "--all-branches does not combine with --arm" in capsys.readouterr().err
    assert main(["ik", "--poses", str(poses), "--out", str(poses)]) == 2
    assert f"--out and --poses name one file ({poses}): an output never replaces an input" \
        in capsys.readouterr().err
    assert main(["ik", "--poses", str(poses), "--out", str(tmp_path / "no" / "q.csv")]) == 2
    assert "directory" in capsys.readouterr().err and not (tmp_path / "no").exists()
    with pytest.raises(SystemExit):
        main(["ik", "--poses", str(poses), "--out", str(out), "--width", "4"])
    assert "--width must be an integer [16, 39], not '4'" in capsys.readouterr().err


def test_csv_with_bom_crlf_and_trailing_blank_lines_reads(tmp_path):
    poses = tmp_path / "poses.csv"
    write_poses(poses, count=3)
    text = poses.read_text().replace("\n", "\r\n")
    poses.write_bytes(b"\xef\xbb\xbf" + (text + "\r\n\r\n").encode())
    out = tmp_path / "q.csv"
    assert main(["ik", "--poses", str(poses), "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 4


def test_csv_duplicated_column_is_an_error(tmp_path, capsys):
    poses = tmp_path / "poses.csv"
    write_poses(poses, count=2)
    lines = poses.read_text().splitlines()
    lines = [line + "," + line.split(",")[0] for line in lines]
    poses.write_text("\n".join(lines) + "\n")
    assert main(["ik", "--poses", str(poses), "--out", str(tmp_path / "q.csv")]) == 2
    assert "line 1, column nx: appears 2 times" in capsys.readouterr().err


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_on_a_terminal_is_one_line_redrawn():
    terminal = Terminal()
    progress = Progress(4, terminal)
    progress.step("first")
    progress.update(2, "second")          # within the interval: not drawn
    progress.update(3, "third", force=True)
    text = terminal.getvalue()
    assert "\n" not in text                # one line, redrawn in place
    draws = text.split("\r")[1:]
    assert re.fullmatch(r"\[1/4] #####--------------- first \(\d+\.\d s, ~\d+ s left\)"
                        r"\x1b\[K", draws[0])
    assert draws[1].startswith("[3/4] ###############----- third") and len(draws) == 2
    progress.step("fourth")               # done: the line ends
    assert terminal.getvalue().endswith("\x1b[K\n")
    Progress(2, terminal).update(1, "stopped short", force=True)
    Progress.end_line()                   # the command ended: so does the line
    assert terminal.getvalue().endswith("stopped short (0.0 s, ~0 s left)\x1b[K\n")
    Progress.silenced = True
    try:
        Progress(2, terminal).step("quiet")
    finally:
        Progress.silenced = False
    assert "quiet" not in terminal.getvalue()


def test_progress_in_a_log_is_a_line_when_a_long_step_starts_and_one_when_it_ends(
        monkeypatch):
    import robohw.support.progress as progress_module
    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "perf_counter", lambda: clock[0])
    log = io.StringIO()
    short = Progress(3, log)
    for done in (1, 2, 3):
        short.step(f"row {done}")
    assert log.getvalue() == ""           # a short run says nothing
    build = Progress(1, log)
    build.update(0, "model: Verilator builds it", force=True)
    clock[0] += 79
    build.update(0, "model: runs", force=True)
    clock[0] += 3
    Progress.end_line()
    assert log.getvalue().splitlines() == [
        "model: Verilator builds it ...", "model: Verilator builds it: done in 79.0 s",
        "model: runs ...", "model: runs: done in 3.0 s"]
    log.truncate(0), log.seek(0)
    run = Progress(100, log)
    for done in range(1, 101):
        clock[0] += 0.5                   # 50 s in all: long
        run.update(done, "hardware FK")
    lines = log.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("[20/100] ####---------------- hardware FK (10.0 s, ~40 s left)")
    assert lines[1] == "hardware FK: 100 of 100 done in 50.0 s"


def test_sim_quiet_option(capsys):
    assert main(["sim", "cordic-pipelined", "--count", "3", "--quiet"]) == 0
    assert capsys.readouterr().err == ""



def test_the_help_names_every_shipped_robot():
    from robohw.commands.options import SHIPPED_NAMES
    from robohw.robots import ALL_SHIPPED
    assert SHIPPED_NAMES == ALL_SHIPPED


def _waited(condition, seconds=5.0):
    """Whether ``condition()`` holds within ``seconds`` (polled: the heartbeat is a thread)."""
    import time
    ends = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > ends:
            return False
        time.sleep(0.05)
    return True


def test_a_run_under_way_is_never_quiet_for_long(monkeypatch):
    import time
    monkeypatch.setattr(Progress, "HEARTBEAT", 0.2)
    monkeypatch.setattr(Progress, "silenced", False)     # whatever a --quiet run left
    log = io.StringIO()
    run = Progress(18, log)
    run.update(3, "sections", force=True)
    # A long section: heartbeats, not silence.
    assert _waited(lambda: len(log.getvalue().splitlines()) >= 2)
    assert all(re.fullmatch(r"still running \(\d+ s, 3 of 18 done; last: sections\)", line)
               for line in log.getvalue().splitlines())
    run.update(18, "sections")            # done: the watch ends
    time.sleep(0.5)
    finished = log.getvalue()
    time.sleep(1.5)
    assert log.getvalue() == finished
    terminal = Terminal()
    drawn = Progress(4, terminal)
    drawn.step("first")                   # on a terminal, the line redrawn with its time
    assert _waited(lambda: terminal.getvalue().count("\r") >= 2)
    Progress.end_line()
    ended = terminal.getvalue()
    time.sleep(1.5)
    assert terminal.getvalue() == ended
