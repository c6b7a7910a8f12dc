"""Fixtures shared by the test files, and the tiers' automatic marks."""

import pytest


def pytest_collection_modifyitems(items):
    """A test that builds compiled models (it takes :func:`compiled_models`) is heavy: it runs
    in ``make test``, not in the fast loop ``make check``."""
    for item in items:
        if "compiled_models" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.heavy)


@pytest.fixture(scope="session")
def compiled_models():
    """The user's cache of compiled models (:func:`robohw.sim.compiled.cache_dir`;
    ``ROBOHW_CACHE`` overrides), shared by the tests, the command line and every checkout:
    models are keyed by the design's text without source locations, so a model built once is
    found by the next run and by a clone in another folder."""
    from robohw.sim.compiled import cache_dir
    return cache_dir()
