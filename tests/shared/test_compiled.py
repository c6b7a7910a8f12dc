"""The compiled backend (Verilator or CXXRTL, and g++): the same transfers in the same cycles
as the Amaranth simulator under one stall pattern, the bit-exact model's outputs on 10,000
vectors with random stalls, waveforms with the hierarchy and the payload fields, the build
cache, and its errors."""

import json
import pathlib
import re
import subprocess

import numpy as np
import pytest

from robohw.commands import main
from robohw.hw.payload import pack, pack_words, unpack, unpack_words
from robohw.ik.codec import POSE_INPUTS, pose_inputs
from robohw.registry import DESIGNS
from robohw.robots import load_robot
from robohw.robots.kinematics import forward_kinematics
from robohw.robots.platform import load_platform
from robohw.robots.sampling import sample_joints, sample_poses
from robohw.sim import compiled
from robohw.sim.compiled import CompiledBuildError, build_compiled, run_stream_compiled
from robohw.sim.harness import run_stream

# C++ builds: in `make test`, not in the fast loop `make check`.
pytestmark = pytest.mark.heavy

# Small configurations of every family (the arrays at their default folds): a cold Verilator
# build of each takes 5-25 seconds. CXXRTL's builds take a minute for the arrays and are left
# to the CORDICs here.
SMALL = [("cordic-pipelined", 12, "verilator"), ("cordic-word-serial", 12, "verilator"),
         ("inertia-linear", 12, "verilator"),
         pytest.param("inertia-logdepth", 12, "verilator", marks=pytest.mark.slow),
         # Two minutes to build: in `make slow`; the byte-identical IK file below runs the
         # same pipeline compiled (untagged) in `make test`.
         pytest.param("ik-best-pipelined", 16, "verilator", marks=pytest.mark.slow),
         ("ik-best-word-serial", 16, "verilator"),
         ("cordic-pipelined", 12, "cxxrtl"), ("cordic-word-serial", 12, "cxxrtl")]
SOURCE, SINK = [1, 0, 1, 1, 0, 1], [1, 1, 0, 1, 0, 0, 1]


def _stalls(seed, length=101):
    rng = np.random.default_rng(seed)
    return (rng.random(length) < 0.7).tolist(), (rng.random(length) < 0.6).tolist()


@pytest.mark.parametrize("name, width, simulator", SMALL)
def test_transfers_fall_on_the_same_cycles_as_in_the_amaranth_simulator(
        name, width, simulator, compiled_models):
    design = DESIGNS[name]
    dut = design.build(width)
    payloads = design.workload(dut, 12, seed=3).payloads
    expected = run_stream(dut, payloads, source_valid=lambda c: SOURCE[c % len(SOURCE)],
                          sink_ready=lambda c: SINK[c % len(SINK)])
    run = run_stream_compiled(dut, payloads, source_pattern=SOURCE, sink_pattern=SINK,
                              simulator=simulator, directory=compiled_models)
    assert run.outputs == expected.outputs
    assert run.input_cycles == expected.input_cycles
    assert run.output_cycles == expected.output_cycles
    assert run.cycles == expected.cycles


@pytest.mark.parametrize("name, width, simulator", SMALL)
def test_ten_thousand_vectors_under_random_stalls_equal_the_model(
        name, width, simulator, compiled_models):
    design = DESIGNS[name]
    dut = design.build(width)
    workload = design.workload(dut, 10_000, seed=7)
    source, sink = _stalls(seed=width)
    run = run_stream_compiled(dut, workload.payloads, source_pattern=source, sink_pattern=sink,
                              simulator=simulator, directory=compiled_models)
    equal, _ = design.check(dut, workload, run.outputs)
    assert equal
    assert [o["tag"] for o in run.outputs] == [p["tag"] for p in workload.payloads]
    # Nothing taken twice or out of order; every result after its input by the latency at
    # least (the queue holds it longer while the sink stalls).
    assert np.all(np.diff(run.input_cycles) > 0) and np.all(np.diff(run.output_cycles) > 0)
    assert min(np.subtract(run.output_cycles, run.input_cycles)) == dut.latency


@pytest.mark.parametrize("simulator", ["verilator", "cxxrtl"])
def test_the_waveform_names_every_payload_field_and_keeps_the_hierarchy(
        simulator, compiled_models, tmp_path):
    design = DESIGNS["cordic-pipelined"]
    dut = design.build(12)
    vcd = tmp_path / "cordic.vcd"
    payloads = design.workload(dut, 3).payloads
    with_waves = run_stream_compiled(dut, payloads, vcd=vcd, simulator=simulator,
                                     directory=compiled_models)
    without = run_stream_compiled(dut, payloads, simulator=simulator, directory=compiled_models)
    assert with_waves.output_cycles == without.output_cycles
    assert with_waves.outputs == without.outputs
    lines = vcd.read_text().splitlines()
    names = {line.split()[4] for line in lines if line.split()[:1] == ["$var"]}
    assert {"clk", "i__payload.x", "i__payload.tag", "o__payload.y", "cordic_step3_z"} <= names
    # Yosys' internal wires (``$123``, ``$auto$...``) stay out (Verilator: renamed to
    # ``_internal...`` names, which it does not trace).
    assert not [name for name in names if re.match(r"\$\d|\$auto|_internal", name)]
    scopes = {line.split()[2] for line in lines if line.split()[:1] == ["$scope"]}
    assert {"top", "out_queue_x"} <= scopes
    # Value changes at both edges of a 10 ns clock.
    assert "#10" in lines and "#15" in lines


def test_a_second_build_comes_from_the_cache(compiled_models, monkeypatch):
    dut = DESIGNS["cordic-pipelined"].build(12)
    build_compiled(dut, directory=compiled_models)
    again = build_compiled(dut, directory=compiled_models)
    assert again.cached and again.library.exists()
    # With an identity the cache is found without elaborating the design (20 s for a large
    # one); a different identity is a different model.
    first = build_compiled(dut, identity="cordic-pipelined width=12", directory=compiled_models)
    assert first.library != again.library

    def elaborate(*args):
        raise AssertionError("elaborated although cached")
    monkeypatch.setattr(compiled, "_design_text", elaborate)
    cached = build_compiled(dut, identity="cordic-pipelined width=12", directory=compiled_models)
    assert cached.cached and cached.library == first.library
    with pytest.raises(AssertionError, match="elaborated although cached"):
        build_compiled(dut, identity="cordic-pipelined width=13", directory=compiled_models)


@pytest.mark.slow   # builds Verilator's runtime from nothing, twice, on every run
def test_verilators_runtime_and_header_are_built_once_per_cache_and_used(tmp_path):
    said = []
    for width in (8, 9):
        run = run_stream_compiled(DESIGNS["cordic-word-serial"].build(width),
                                  [{"x": 1, "y": 2, "z": 3}], directory=tmp_path,
                                  say=said.append)
        assert len(run.outputs) == 1
    # One header for the __Slow files' flags, one for the rest; nothing again for width 9.
    assert said.count("g++ precompiles Verilator's header (once)") == 2
    assert said.count("g++ compiles Verilator's runtime (once)") == 1
    headers = sorted(tmp_path.glob("verilated-h-*"))
    assert len(headers) == 2
    # g++ takes each precompiled header with its flags ("!" in -H's list of what it read)
    # rather than parsing verilated.h again, which it would do silently.
    include = compiled._verilator_root() / "include"
    for flags in (compiled._CXXFLAGS["verilator"], compiled._VERILATOR_SLOW_FLAGS):
        (header,) = [h for h in headers if h == compiled._verilator_header(
            tmp_path, compiled._compiler(), flags, None)]
        probe = subprocess.run(
            [compiled._compiler(), *flags, f"-I{header}", f"-I{include}",
             f"-I{include / 'vltstd'}", "-include", "verilated.h", "-H", "-fsyntax-only",
             "-x", "c++", "/dev/null"], capture_output=True, text=True)
        assert probe.returncode == 0, probe.stderr
        assert probe.stderr.startswith(f"! {header / 'verilated.h.gch'}"), probe.stderr[:200]

def test_errors_are_one_clear_line(compiled_models, monkeypatch):
    dut = DESIGNS["cordic-pipelined"].build(12)
    with pytest.raises(ValueError, match=r"payload fields \['w'\] are not fields of the input"):
        run_stream_compiled(dut, [{"w": 1}], directory=compiled_models)
    with pytest.raises(TimeoutError, match="0 of 2 results after 5 cycles"):
        run_stream_compiled(dut, [{"x": 1}, {"x": 2}], max_cycles=5, directory=compiled_models)
    with pytest.raises(ValueError, match="sink_pattern must not be empty"):
        run_stream_compiled(dut, [{"x": 1}], sink_pattern=[], directory=compiled_models)
    untraced = build_compiled(dut, directory=compiled_models)
    with pytest.raises(ValueError, match="built without waveforms: build it with trace=True"):
        untraced.run(np.zeros((1, untraced.input_words), np.uint32), max_cycles=9, vcd="x.vcd")
    with pytest.raises(ValueError, match="threads must be a positive integer, not 0"):
        build_compiled(dut, threads=0, directory=compiled_models)
    with pytest.raises(ValueError, match="threads > 1 needs the verilator simulator"):
        build_compiled(dut, simulator="cxxrtl", threads=2, directory=compiled_models)
    with pytest.raises(ValueError, match="simulator must be one of verilator, cxxrtl"):
        build_compiled(dut, simulator="icarus", directory=compiled_models)
    monkeypatch.setenv("CXX", "no-such-compiler")
    with pytest.raises(CompiledBuildError, match="needs a C\\+\\+ compiler"):
        build_compiled(dut, directory=compiled_models)


def test_a_failed_build_is_one_line_naming_its_log(compiled_models, tmp_path, monkeypatch,
                                                   capsys):
    # A "compiler" that fails: the command says so in one line, exit 2, and keeps the output.
    compiler = tmp_path / "broken-g++"
    compiler.write_text("#!/bin/sh\necho 'cc1plus: out of memory' >&2\nexit 1\n")
    compiler.chmod(0o755)
    monkeypatch.setenv("CXX", str(compiler))
    monkeypatch.setenv("ROBOHW_CACHE", str(tmp_path))
    assert main(["sim", "cordic-pipelined", "--backend", "compiled", "--width", "12",
                 "--count", "2"]) == 2
    # In a log, the build's steps have their start and end lines (docs/conventions.md); the
    # failure is one line of its own, the last.
    err = [line for line in capsys.readouterr().err.strip().splitlines()
           if not line.endswith(" ...") and not re.search(r": done in [\d.]+ s$", line)]
    assert len(err) == 1 and "failed building the compiled model; its output is in" in err[0]
    log = pathlib.Path(err[0].rsplit(" ", 1)[1])
    assert "cc1plus: out of memory" in log.read_text()


def test_payload_words_round_trip_against_the_integer_packing():
    fields = {"a": (0, 16, True), "b": (16, 40, True), "c": (56, 1, False),
              "d": (57, 33, False), "e": (90, 0, False)}
    rng = np.random.default_rng(0)
    rows = [{name: int(rng.integers(-(1 << (w - 1)), 1 << (w - 1))) if signed else
             int(rng.integers(0, 1 << w)) for name, (_, w, signed) in fields.items() if w}
            for _ in range(500)]
    rows[0] = {"a": -1 << 15, "b": -1 << 39, "c": 1, "d": (1 << 33) - 1}
    words = pack_words(fields, {k: [r[k] for r in rows] for k in rows[0]}, len(rows), 3)
    for row, word in zip(rows, words):
        assert sum(int(w) << (32 * k) for k, w in enumerate(word)) == pack(fields, row)
    columns = unpack_words(fields, words)
    for k, row in enumerate(rows):
        assert {name: int(columns[name][k]) for name in row} == row
        assert unpack(fields, pack(fields, row)) == {**row, "e": 0}


def _write_poses(path, count, seed):
    robot = load_robot()
    q = sample_joints(robot, count, np.random.default_rng(seed))
    inputs = pose_inputs(forward_kinematics(robot, q))
    rows = [",".join(POSE_INPUTS)] + [",".join(repr(float(inputs[n][k])) for n in POSE_INPUTS)
                                      for k in range(count)]
    path.write_text("\n".join(rows) + "\n")


@pytest.mark.parametrize("command", ["ik", "inertia", "dynamics", "platform"])
def test_compiled_files_are_byte_identical_to_the_models(command, compiled_models, tmp_path,
                                                         monkeypatch, capsys):
    monkeypatch.setenv("ROBOHW_CACHE", str(compiled_models.parent))
    source = tmp_path / "in.csv"
    if command == "ik":
        _write_poses(source, 300, seed=5)
        argv = ["ik", "--poses", str(source), "--width", "16", "--all-branches", "--reasons"]
    elif command == "inertia":
        q = np.random.default_rng(6).uniform(-3, 3, (300, 6))
        source.write_text("q1,q2,q3,q4,q5,q6\n" + "".join(
            ",".join(repr(float(v)) for v in row) + "\n" for row in q))
        argv = ["inertia", "--q", str(source), "--width", "14", "--array", "logdepth",
                "--reasons"]
    elif command == "platform":
        # The planar platform's legs and Jacobian rows (the leg processors' exported Verilog
        # under Verilator): poses up to eight times the workspace, a third of them with a leg
        # outside its stroke.
        platform = load_platform("planar_3rpr")
        poses = sample_poses(platform, 300, np.random.default_rng(8), scale=8)
        source.write_text("x,y,phi\n" + "".join(
            ",".join(repr(float(v)) for v in row) + "\n" for row in poses))
        argv = ["platform", "jacobian", "--platform", "planar_3rpr", "--poses", str(source),
                "--width", "16", "--reasons"]
    else:
        # Rates and accelerations up to 1.05 times the PUMA's limits (1 rad/s, 2 rad/s^2):
        # about half the rows out of bounds.
        scale = np.repeat([3.0, 1.05, 2.1], 6)
        states = np.random.default_rng(7).uniform(-1, 1, (300, 18)) * scale
        header = [f"{kind}{k}" for kind in ("q", "qd", "qdd") for k in range(1, 7)]
        source.write_text(",".join(header) + "\n" + "".join(
            ",".join(repr(float(v)) for v in row) + "\n" for row in states))
        # At 16 bits the bound is 3.3 % of the largest torque: refused at the default 1 %.
        argv = ["dynamics", "--states", str(source), "--width", "16", "--reasons",
                "--bound-fraction", "0.05"]
    outputs = {}
    for backend in ("model", "compiled"):
        outputs[backend] = tmp_path / f"{backend}.csv"
        assert main([*argv, "--out", str(outputs[backend]), "--backend", backend]) == 0
    assert outputs["compiled"].read_bytes() == outputs["model"].read_bytes()
    lines = outputs["model"].read_text().splitlines()
    assert len(lines) > 300
    if command in ("dynamics", "platform"):
        assert 50 < sum(line.endswith(",0,outside_limits") for line in lines) < 250


def test_bench_sim_measures_every_simulator(compiled_models, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("ROBOHW_CACHE", str(compiled_models.parent))
    out = tmp_path / "sim.json"
    assert main(["bench", "sim", "--designs", "cordic-word-serial", "--cycles", "20000",
                 "--simulators", "verilator,cxxrtl", "--cocotb", "500", "--json",
                 str(out)]) == 0
    table = capsys.readouterr().out
    assert "| cordic-word-serial | 16 | — | 51 | 48 |" in table
    assert "cocotb + Verilator (cycles/s)" in table
    (row,) = json.loads(out.read_text())["rows"]
    # A run of count results ends in the cycle after the last: latency + interval * (count - 1).
    count = 20000 // 48
    assert row["verilator_cycles"] == row["cxxrtl_cycles"] == 51 + 48 * (count - 1) + 1
    assert row["verilator_cycles_per_s"] > 0 and row["amaranth_cycles_per_s"] > 0
    assert row["cocotb_cycles"] == 51 + 48 * ((500 - 51) // 48 - 1) + 1


@pytest.mark.parametrize("argv, message", [
    (["bench", "sim", "--simulators", "icarus"], "unknown simulator 'icarus'; known: verilator"),
    (["sim", "cordic-pipelined", "--backend", "spice"], "invalid choice: 'spice'"),
    (["ik", "--poses", "p.csv", "--out", "o.csv", "--backend", "gpu"], "invalid choice: 'gpu'"),
])
def test_usage_errors_exit_2_with_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert re.search(message, capsys.readouterr().err)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(DESIGNS))
def test_a_million_vectors_of_every_default_design_under_random_stalls(name, compiled_models):
    # In runs of 200,000 (each a fresh model: the payload dicts of a million poses would take
    # gigabytes), each with its own stall patterns. The processor array takes a state per
    # 256 cycles: one run of 200,000 states (51 million cycles). Gosselin's machines take one
    # per 12,000 or 20,000 cycles (and the servo loop's model 0.7 s a row): one run of 10
    # million cycles.
    design = DESIGNS[name]
    dut = design.build()
    count = min(200_000, 10_000_000 // dut.interval) if design.one_at_a_time else 200_000
    for run_index in range(5 if dut.interval < 100 else 1):
        workload = design.workload(dut, count, seed=100 + run_index)
        source, sink = _stalls(seed=run_index, length=997)
        run = run_stream_compiled(dut, workload.payloads, source_pattern=source,
                                  sink_pattern=sink, directory=compiled_models)
        equal, _ = design.check(dut, workload, run.outputs)
        assert equal, run_index
        assert [o["tag"] for o in run.outputs] == [p["tag"] for p in workload.payloads]


def test_the_source_digest_covers_every_installed_package():
    # The top-level packages it hashes, each with its subpackages (source_digest reads their
    # folders whole), are those setup.py installs.
    import runpy

    from robohw.sim.compiled import _robohw_packages
    root = pathlib.Path(__file__).resolve().parents[2]
    packages, _ = runpy.run_path(str(root / "setup.py"), run_name="layout")["package_layout"]()
    assert _robohw_packages() == {p for p in packages if p.count(".") <= 1}


def test_robohw_sim_compiled_measures_the_stated_timing(compiled_models, monkeypatch, capsys,
                                                        tmp_path):
    monkeypatch.setenv("ROBOHW_CACHE", str(compiled_models.parent))
    vcd, out = tmp_path / "ws.vcd", tmp_path / "ws.json"
    assert main(["sim", "cordic-word-serial", "--backend", "compiled", "--width", "12",
                 "--count", "40", "--vcd", str(vcd), "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["equals_model"] and result["backend"] == "compiled"
    assert (result["latency"], result["interval"]) == (result["stated_latency"],
                                                        result["stated_interval"])
    assert result["cycles_per_second"] > 0
    assert "o__payload.x" in vcd.read_text()
