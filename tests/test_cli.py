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
