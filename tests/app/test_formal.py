"""The formal flow's own checks (the proofs are in test_proofs_*.py, ``make prove``)."""

import pytest

from amaranth.hdl import Module

from robohw.flows.formal import prove


def test_proof_arguments_are_checked(tmp_path):
    m = Module()
    with pytest.raises(ValueError, match="mode must be one of prove, bmc, not 'cover'"):
        prove(m, [], "x", tmp_path, mode="cover")
    with pytest.raises(ValueError, match="depth must be a positive integer, not 0"):
        prove(m, [], "x", tmp_path, depth=0)
    with pytest.raises(ValueError, match="name must be an identifier"):
        prove(m, [], "a/b", tmp_path)
