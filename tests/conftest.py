"""Fixtures shared by the test files."""

import pytest


@pytest.fixture(scope="session")
def compiled_models(tmp_path_factory):
    """One build folder of compiled models for the session (xdist's workers share the parent),
    so tests that simulate the same Verilog build it once."""
    return tmp_path_factory.getbasetemp().parent / "compiled"
