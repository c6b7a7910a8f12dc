"""The results page: rows stamped with the Verilog they were measured on, and a row the current
code builds into other Verilog marked stale, never shown as current."""

import json

import pytest

from robohw.commands import main
from robohw.registry import DESIGNS
from robohw.report import write_results
from robohw.results import CURRENT, STALE, UNCHECKED, UNSTAMPED, row_status
from robohw.sim.provenance import verilog_digest, verilog_sha256
from robohw.support.formats import FORMAT_VERSION, rows_of, versioned

DESIGN = DESIGNS["cordic-word-serial"]      # the smallest design: its export takes a second


def _row(**fields):
    return {"design": DESIGN.name, "width": 8, "fold": 1, "latency": 1, "interval": 1,
            "stated_latency": 1, "stated_interval": 1, "equals_model": True, "max_error": 0.5,
            "error_unit": "LSB", "register_bits": 10, "simulated": True, **fields}


def test_the_digest_is_the_exported_verilog_without_locations(tmp_path):
    digest = verilog_digest(DESIGN, 8)
    assert len(digest) == 64 and digest == verilog_digest(DESIGN, 8)
    assert digest != verilog_digest(DESIGN, 9)
    # Source locations (a checkout elsewhere, lines moved) do not change it.
    assert verilog_sha256('(* src = "/a/b.py:1" *)\nmodule m;\nendmodule\n') == \
        verilog_sha256('(* src = "/c/d.py:7" *)\nmodule m;\nendmodule\n')


def test_a_row_is_current_only_on_the_verilog_it_was_measured_on():
    now = verilog_digest(DESIGN, 8)
    assert row_status(_row(verilog_sha256=now)) == (CURRENT, now)
    assert row_status(_row(verilog_sha256="0" * 64)) == (STALE, now)
    assert row_status(_row(verilog_sha256=None)) == (UNSTAMPED, None)
    assert row_status(_row(design="gone", verilog_sha256=now)) == (STALE, None)


def test_a_robots_row_is_checked_against_the_design_generated_for_it():
    from robohw.registry import design
    now = verilog_digest(design("dynamics-engine", "stanford"), 18, 5)
    row = _row(design="dynamics-engine", width=18, fold=5, robot="stanford",
               verilog_sha256=now)
    assert row_status(row) == (CURRENT, now)
    # The design's own robot (the PUMA 560) builds other Verilog at that width and II.
    assert row_status({**row, "robot": None})[0] == STALE
    assert row_status({**row, "robot": "no_such_arm"}) == (UNCHECKED, None)


def test_the_page_marks_stale_rows(tmp_path):
    now = verilog_digest(DESIGN, 8)
    synth = {"design": DESIGN.name, "width": 8, "fold": 1, "device": "ecp5-85k",
             "speed_grade": 6, "seed": 2, "seeds": [1, 2],
             "fmax_by_seed": {"1": 210.0, "2": 200.0},
             "luts": 5, "flip_flops": 6, "dsp": 0, "bram": 0, "fmax_mhz": 200.0,
             "verilog_sha256": "f" * 64, "commit": "abc+changes"}
    (tmp_path / "synth.json").write_text(json.dumps(versioned({"rows": [synth]})))
    page = tmp_path / "page.md"
    document = write_results(tmp_path, [_row(verilog_sha256=now, commit="0123456789abcdef"),
                                        _row(verilog_sha256=None)], page)
    assert document["format_version"] == FORMAT_VERSION
    assert [r["status"] for r in document["simulated"]] == [CURRENT, UNSTAMPED]
    (placed,) = document["synthesized"]
    assert placed["status"] == STALE and placed["verilog_sha256_now"] == \
        verilog_digest(DESIGN, 8, None, "ecp5-85k")
    text = page.read_text()
    assert text == (tmp_path / "results.md").read_text()
    assert "2 of 3 rows are not current." in text
    assert f"| `0123456789` | `{now[:12]}` | current |" in text
    assert "| `abc` + changes | `ffffffffffff` | **stale** (now" in text
    row = "| ecp5-85k-6 | 1,2 | heap, router1, no target | 5 | 6 | 0 | 0 | 200.0 (210.0, 200.0) |"
    assert row in text
    assert json.loads((tmp_path / "results.json").read_text()) == document
    # Every registry design but this one, on two of its three seeds, has no row.
    assert "Without a row of all their seeds: cordic-pipelined (no row), " \
        f"{DESIGN.name} (seeds 1,2), " in text


def test_the_page_names_designs_without_all_their_seeds(tmp_path):
    rows = [{"design": name, "width": 8, "fold": 1, "device": "ecp5-85k", "speed_grade": 6,
             "seed": 1, "seeds": [1, 2, 3], "fmax_by_seed": {"1": 1.0, "2": 2.0, "3": 3.0},
             "luts": 5, "flip_flops": 6, "dsp": 0, "bram": 0, "fmax_mhz": 1.0}
            for name in DESIGNS]
    # A netlist beyond the device holds for any seed.
    rows[-1] = {**rows[-1], "seeds": [1], "fmax_mhz": None, "fmax_by_seed": {"1": None},
                "note": "does not fit: 2 flip-flops of 1 (200 %)"}
    rows[0]["critical_path"] = {"from": "a_q", "to": "b_d", "ns": 9.5, "logic_ns": 1.5,
                                "routing_ns": 8.0}
    (tmp_path / "synth.json").write_text(json.dumps(versioned({"rows": rows})))
    write_results(tmp_path, [], tmp_path / "page.md")
    text = (tmp_path / "page.md").read_text()
    assert "Every design has a row of all its seeds." in text
    assert "| ecp5-85k-6 | any | heap, router1, no target |" in text
    assert f"- {rows[0]['design']}, 8 bits: `a_q` to `b_d`, 9.5 ns (8.0 of it routing)" in text
    rows[0] = {**rows[0], "seeds": [2]}
    (tmp_path / "synth.json").write_text(json.dumps(versioned({"rows": rows})))
    write_results(tmp_path, [], tmp_path / "page.md")
    assert f"Without a row of all their seeds: {rows[0]['design']} (seeds 2)." in \
        (tmp_path / "page.md").read_text()


def test_results_files_of_either_format_read():
    assert rows_of([{"a": 1}]) == [{"a": 1}]
    assert rows_of(versioned({"rows": [{"a": 1}]})) == [{"a": 1}]
    with pytest.raises(ValueError, match="reads up to"):
        rows_of({"format_version": FORMAT_VERSION + 1, "rows": []})
    with pytest.raises(ValueError, match="not a results file"):
        rows_of({"format_version": 1})
    with pytest.raises(TypeError, match="document must be a dict, not list"):
        versioned([])


def test_report_refuses_a_results_page_in_a_missing_folder(tmp_path, capsys):
    assert main(["report", "--quick", "--out", str(tmp_path),
                 "--results", str(tmp_path / "no" / "r.md")]) == 2
    assert "directory" in capsys.readouterr().err


@pytest.mark.heavy
def test_the_table_alone_writes_the_table_and_the_page(tmp_path, capsys):
    page = tmp_path / "page.md"
    assert main(["report", "--quick", "--table-only", "--out", str(tmp_path),
                 "--results", str(page)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "page.md", "results.json", "results.md", "summary.json", "summary.md"]
    rows = json.loads((tmp_path / "summary.json").read_text())["rows"]
    assert [r["design"] for r in rows] == list(DESIGNS)
    assert page.read_text().count("| not stamped |") == len(rows)
