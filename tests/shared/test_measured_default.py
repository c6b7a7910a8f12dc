"""A design's searched default (robohw.sim.measured_default): computed once, held for the run,
cached on disk for the next under its key and the code's digest; a cached value in another
shape computed again; a failed search caches nothing."""

import json

import pytest

import robohw.sim.measured_default as measured
from robohw.sim.measured_default import measured_default


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBOHW_CACHE", str(tmp_path))
    return tmp_path


def test_a_default_is_searched_once_across_runs(cache, monkeypatch):
    calls = []

    def search():
        calls.append(1)
        return 7

    assert measured_default("intervals", "engine abc 21", search, int) == 7
    assert measured_default("intervals", "engine abc 21", search, int) == 7
    (path,) = (cache / "intervals").glob("*.json")
    assert json.loads(path.read_text()) == 7
    monkeypatch.setattr(measured, "_HELD", {})      # a new run reads the file
    assert measured_default("intervals", "engine abc 21", search, int) == 7
    assert calls == [1]
    assert measured_default("intervals", "engine abd 21", search, int) == 7
    assert calls == [1, 1]


def test_a_cached_value_of_another_shape_is_searched_again(cache, monkeypatch):
    measured_default("widths", "k", lambda: {"width": 3}, lambda v: v["width"])
    (path,) = (cache / "widths").glob("*.json")
    path.write_text("[1, 2]")
    monkeypatch.setattr(measured, "_HELD", {})
    assert measured_default("widths", "k", lambda: {"width": 4}, lambda v: v["width"]) == 4
    assert json.loads(path.read_text()) == {"width": 4}


def test_a_failed_search_caches_nothing(cache):
    def search():
        raise ValueError("no interval")
    with pytest.raises(ValueError, match="^no interval$"):
        measured_default("intervals", "x", search)
    assert not (cache / "intervals").exists() or not list((cache / "intervals").iterdir())
    assert measured_default("intervals", "x", lambda: 5) == 5
