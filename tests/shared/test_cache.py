"""Where robohw keeps what it builds, and the keys that find it from any checkout."""

import pathlib

import pytest
from amaranth.back import rtlil, verilog
from amaranth.hdl import Module, Signal

from robohw.sim.cache import cache_dir, cache_root, location_free


def test_the_cache_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("ROBOHW_CACHE", str(tmp_path / "mine"))
    assert cache_root() == tmp_path / "mine"
    assert cache_dir("compiled") == tmp_path / "mine" / "compiled"
    monkeypatch.delenv("ROBOHW_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "robohw"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_root() == pathlib.Path.home() / ".cache" / "robohw"
    with pytest.raises(ValueError, match="kind must be a folder name"):
        cache_dir("../elsewhere")


def _design_here():
    m = Module()
    a, b = Signal(4, name="a"), Signal(4, name="b")
    m.d.sync += b.eq(a + 1)
    return m, [a, b]


def _design_there():
    # The same design, built on other lines: other source locations.

    m = Module()

    a, b = Signal(4, name="a"), Signal(4, name="b")

    m.d.sync += b.eq(a + 1)
    return m, [a, b]


@pytest.mark.parametrize("convert", [verilog.convert, rtlil.convert])
def test_the_text_without_locations_is_the_design_wherever_it_was_written(convert):
    here, there = (convert(m, ports=ports) for m, ports in (_design_here(), _design_there()))
    assert here != there and "src" in here
    assert location_free(here) == location_free(there)
    assert "src" not in location_free(here)
    m, ports = _design_here()
    assert location_free(here) == convert(m, ports=ports, emit_src=False)


def test_a_robots_identity_is_its_numbers_not_where_its_file_lies(tmp_path):
    import shutil
    import warnings

    from robohw.robots import load_robot
    from robohw.robots.platform import load_platform
    from robohw.robots.toml_file import description_identity
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shipped = load_robot("puma560")
        copy = tmp_path / "elsewhere.toml"
        shutil.copy(shipped.source, copy)
        moved = load_robot(copy)
    assert shipped.source != moved.source
    assert description_identity(shipped) == description_identity(moved)
    assert str(tmp_path) not in description_identity(moved)
    platform = load_platform("hexapod")
    assert platform.source and platform.source not in description_identity(platform)
