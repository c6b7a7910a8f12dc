"""Where robohw keeps what it builds and measures once: compiled models
(:mod:`robohw.sim.compiled`) and synthesis results (:mod:`robohw.flows.synth`), in the user's
cache folder, shared by every checkout, the tests and the command line.

The folder is ``$ROBOHW_CACHE`` if set, else ``$XDG_CACHE_HOME/robohw``, else
``~/.cache/robohw``; each kind of result has a folder of its own inside it. Results are keyed by
what determines them, never by where a checkout lies: the design's text without its source
locations (:func:`location_free`), or its identity with the source of the code that builds it.
"""

import os
import pathlib
import re

__all__ = ["CACHE_ENV", "cache_root", "cache_dir", "location_free"]

CACHE_ENV = "ROBOHW_CACHE"

# Amaranth's source-location attributes: ``(* src = "path:line" *)`` in Verilog, ``attribute
# \src "path:line"`` in RTLIL.
_VERILOG_SRC_LINE = re.compile(r'^[ \t]*\(\* src = "[^"]*" \*\)[ \t]*\n', re.M)
_VERILOG_SRC = re.compile(r'\(\* src = "[^"]*" \*\) ?')
_RTLIL_SRC = re.compile(r'^[ \t]*attribute \\src "[^"]*"\n', re.M)


def cache_root():
    """The cache folder: ``$ROBOHW_CACHE``, else ``$XDG_CACHE_HOME/robohw``, else
    ``~/.cache/robohw``."""
    if os.environ.get(CACHE_ENV):
        return pathlib.Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache"
    return pathlib.Path(base) / "robohw"


def cache_dir(kind):
    """The folder of one kind of result (``"compiled"``, ``"synth"``) in :func:`cache_root`."""
    if not kind or "/" in kind:
        raise ValueError(f"kind must be a folder name, not {kind!r}")
    return cache_root() / kind


def location_free(text):
    """Verilog or RTLIL ``text`` without its source locations: what the design is, wherever
    the checkout lies and whatever lines moved around it."""
    return _RTLIL_SRC.sub("", _VERILOG_SRC.sub("", _VERILOG_SRC_LINE.sub("", text)))
