"""What a measurement was made on: the checkout's commit, and the digest of a design's Verilog.
A figure stamped with both can be told apart from one the current code no longer gives
(``robohw report --results``)."""

import functools
import hashlib
import json
import os
import pathlib
import subprocess
import tempfile

from robohw.hw.devices import DEVICES
from robohw.sim.cache import cache_dir, location_free
from robohw.sim.compiled import source_digest
from robohw.sim.verilator import export_verilog

__all__ = ["checkout_commit", "verilog_sha256", "verilog_digest"]


@functools.cache
def checkout_commit():
    """The commit of the checkout robohw runs from, with ``+changes`` when its code differs
    from it (edits to the tests, the docs or other Markdown do not count: they change no
    figure); ``None`` outside a git checkout (an installed copy)."""
    here = pathlib.Path(__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        status = subprocess.run(["git", "-C", str(here), "status", "--porcelain",
                                 "--untracked-files=no"],
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    changed = [line[3:] for line in status.splitlines()]
    dirty = [p for p in changed if not p.startswith(_NOT_CODE) and not p.endswith(".md")]
    return commit + ("+changes" if dirty else "")


# Paths of a checkout that hold no code a measurement runs.
_NOT_CODE = ("tests/", "docs/", "report/", "build/")


def verilog_sha256(text):
    """The digest of exported Verilog ``text`` without its source locations
    (:func:`robohw.sim.cache.location_free`): the same design gives the same digest wherever
    its checkout lies."""
    return hashlib.sha256(location_free(text).encode()).hexdigest()


def verilog_digest(design, width=None, fold=None, device=None):
    """:func:`verilog_sha256` of ``design`` (a :class:`robohw.sim.design.Design`) exported at
    ``width`` and ``fold`` (defaults: the design's), elaborated for ``device`` (a name in
    :data:`robohw.hw.devices.DEVICES`; default none: generic), as ``robohw export`` writes
    it. Kept in ``digests`` in the user's cache folder, keyed by the design's name, summary
    and parameters and the source of robohw (:func:`robohw.sim.compiled.source_digest`), so
    it elaborates once per change of the code."""
    key = hashlib.sha256(json.dumps([design.name, design.summary, width, fold, device,
                                     source_digest()]).encode()).hexdigest()[:24]
    path = cache_dir("digests") / f"{key}.txt"
    try:
        return path.read_text().strip()
    except OSError:
        pass
    dut = design.build(width, fold)
    platform = DEVICES[device] if device is not None else None
    with tempfile.TemporaryDirectory() as work:
        verilog = export_verilog(dut, design.module(dut), pathlib.Path(work) / "design.v",
                                 platform)
        digest = verilog_sha256(verilog.read_text())
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False) as f:
        f.write(digest + "\n")
    os.replace(f.name, path)        # atomic: two processes digesting one design agree
    return digest
