"""The version of robohw's file formats. Every JSON sidecar and results file the project writes
carries it as ``format_version``; it rises whenever a key changes its meaning or goes away
(``CHANGELOG.md`` says what changed). CSV files are versioned by their header."""

import json
import pathlib

__all__ = ["FORMAT_VERSION", "versioned", "rows_of", "read_rows", "SYNTH_FILE"]

# The synthesis results a report folder holds (``make synth``'s rows, copied there).
SYNTH_FILE = "synth.json"

FORMAT_VERSION = 1


def versioned(document):
    """``document`` (a dict) with ``format_version`` first."""
    if not isinstance(document, dict):
        raise TypeError(f"document must be a dict, not {type(document).__name__}")
    return {"format_version": FORMAT_VERSION, **document}


def rows_of(document):
    """The rows of a results file: its ``rows`` (a versioned file), or the file itself when it
    is a list (written before files carried a version). ``ValueError`` for anything else, or a
    newer version than this code reads."""
    if isinstance(document, list):
        return document
    if not isinstance(document, dict) or not isinstance(document.get("rows"), list):
        raise ValueError("not a results file: expected a list of rows or a 'rows' key")
    version = document.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ValueError(f"format_version {version!r}: this robohw reads up to "
                         f"{FORMAT_VERSION}")
    return document["rows"]


def read_rows(path):
    """:func:`rows_of` the JSON file at ``path``, or no rows when there is none."""
    path = pathlib.Path(path)
    return rows_of(json.loads(path.read_text())) if path.exists() else []
