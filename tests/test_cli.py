import json
import re

import pytest

from sim.cli import main


def test_bench_cordic_prints_measured_cycles(capsys, tmp_path):
    out_json = tmp_path / "bench.json"
    assert main(["bench", "cordic", "--widths", "8", "--no-verilator", "--json", str(out_json)]) == 0
    table = capsys.readouterr().out
    assert "| pipelined | 8 | 9 | 11 | 1 |" in table
    assert "| word_serial | 8 | 9 | 10 | 9 |" in table
    rows = json.loads(out_json.read_text())
    assert all(r["latency"] == r["stated_latency"] and r["interval"] == r["stated_interval"]
               for r in rows)


def test_report_quick_writes_markdown_and_json(tmp_path, capsys):
    assert main(["report", "--quick", "--no-verilator", "--out", str(tmp_path)]) == 0
    assert "| circular rotation | interleaved | 16 | x |" in (tmp_path / "cordic.md").read_text()
    data = json.loads((tmp_path / "cordic.json").read_text())
    assert all(row["max_lsb"] <= row["bound_lsb"] for row in data["accuracy"])
    captured = capsys.readouterr()
    assert "| pipelined | 16 | 17 | 19 | 1 |" in captured.out
    assert "[1/2] accuracy at width 16" in captured.err


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


def test_ik_graph_writes_the_balanced_graph(tmp_path, capsys):
    out = tmp_path / "graph.json"
    assert main(["ik-graph", "--graph", "best", "--json", str(out)]) == 0
    assert "ccms                   18" in capsys.readouterr().out
    graph = json.loads(out.read_text())
    assert {"nodes", "edges", "inputs", "outputs", "total_buffer_stages", "shared_buffer_stages",
            "tapped_delay_lines", "depth"} <= set(graph)
    assert graph["depth"] == 10 and graph["shared_buffer_stages"] <= graph["total_buffer_stages"]
    start = {n["name"]: n["start"] for n in graph["nodes"]} | dict.fromkeys(graph["inputs"], 0)
    latency = {n["name"]: n["latency"] for n in graph["nodes"]} | dict.fromkeys(graph["inputs"], 0)
    for e in graph["edges"]:  # balanced: every operand waits exactly its buffers
        if e["dst"] in start:
            assert start[e["dst"]] == start[e["src"]] + latency[e["src"]] + e["buffers"]


def test_ik_graph_pipelined_timing_uses_cordic_latency(capsys):
    assert main(["ik-graph", "--timing", "pipelined", "--width", "16", "--align-outputs"]) == 0
    text = capsys.readouterr().out
    depth = int(re.search(r"depth\s+(\d+)", text).group(1))
    assert depth > 10 * 18  # ten CCMs deep, each 19 to 22 cycles at 16 bits


def test_ik_graph_bad_robot_is_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[[joint]]\ntype = "revolute"\n')
    assert main(["ik-graph", "--robot", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "joint 1: a: missing" in err
