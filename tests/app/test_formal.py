"""The formal flow's own checks (the proofs are in test_proofs_*.py, ``make prove``)."""

import pytest
from amaranth.hdl import Assert, Module, Mux, Signal

from robohw.flows.formal import prove


def test_proof_arguments_are_checked(tmp_path):
    m = Module()
    with pytest.raises(ValueError, match="mode must be one of prove, bmc, not 'cover'"):
        prove(m, [], "x", tmp_path, mode="cover")
    with pytest.raises(ValueError, match="depth must be a positive integer, not 0"):
        prove(m, [], "x", tmp_path, depth=0)
    with pytest.raises(ValueError, match="name must be an identifier"):
        prove(m, [], "a/b", tmp_path)


def _counter(limit):
    """A 3-bit counter that wraps at 5, and the claim that it stays below ``limit``."""
    m = Module()
    count = Signal(3)
    m.d.sync += count.eq(Mux(count == 4, 0, count + 1))
    m.d.comb += Assert(count < limit)
    return m


@pytest.mark.heavy
def test_a_verdict_is_cached_by_the_netlist_and_kept_with_its_trace(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBOHW_CACHE", str(tmp_path / "cache"))
    first = prove(_counter(5), [], "counter", tmp_path / "a", mode="bmc", depth=8)
    assert first.passed and not first.cached
    # The same netlist run in another folder: the verdict and the logs, without solving.
    again = prove(_counter(5), [], "counter", tmp_path / "b", mode="bmc", depth=8)
    assert again.cached and again.passed and (again.folder / "status").exists()
    # Another claim is another netlist: solved, and its failure's trace kept and restored.
    failed = prove(_counter(4), [], "counter", tmp_path / "c", mode="bmc", depth=8)
    assert failed.status == "FAIL" and not failed.cached
    restored = prove(_counter(4), [], "counter", tmp_path / "d", mode="bmc", depth=8)
    assert restored.cached and restored.status == "FAIL"
    assert (restored.folder / "engine_0" / "trace.vcd").exists()
    # Another depth is another run; without the cache every run solves.
    assert not prove(_counter(5), [], "counter", tmp_path / "e", mode="bmc", depth=9).cached
    assert not prove(_counter(5), [], "counter", tmp_path / "f", mode="bmc", depth=8,
                     cache=False).cached
