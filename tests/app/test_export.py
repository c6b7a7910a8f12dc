"""Exported Verilog: sidecars that match the components, lint clean under justified waivers."""

import json

import pytest
from netlist import phase_rings

from robohw.flows import export
from robohw.flows.export import LINT_WAIVERS, LintError, export_design, lint
from robohw.hw.payload import layout_fields
from robohw.registry import DESIGNS
from robohw.sim.provenance import verilog_digest, verilog_sha256
from robohw.support.formats import FORMAT_VERSION

# Exports and their lint: in `make test`, not in the fast loop `make check`.
pytestmark = pytest.mark.heavy


@pytest.mark.parametrize("name, width, fold, suffix", [
    ("cordic-pipelined", 16, None, ""), ("cordic-word-serial", 24, 3, ""),  # no fold: ignored
    ("inertia-logdepth", 18, None, "_f8"),
    # A fold given on the command line; a minute of lint: in `make slow`.
    pytest.param("inertia-linear", 18, 3, "_f3", marks=pytest.mark.slow),
    ("dynamics-array", 18, None, "")])
def test_export_is_lint_clean_and_documented(tmp_path, name, width, fold, suffix):
    design = DESIGNS[name]
    sidecar = export_design(design, width, tmp_path, fold=fold)
    module = f"{design.module_name}_w{width}{suffix}"
    assert sidecar["fold"] == ((fold or design.default_fold) if design.default_fold else 1)
    assert sidecar["module"] == module and (tmp_path / f"{module}.v").exists()
    assert json.loads((tmp_path / f"{module}.json").read_text()) == sidecar
    # The sidecar names its format and what the module is: the digest of its Verilog without
    # source locations, which the results page compares with the current design's.
    assert sidecar["format_version"] == FORMAT_VERSION
    assert sidecar["verilog_sha256"] == verilog_sha256((tmp_path / f"{module}.v").read_text())
    assert sidecar["verilog_sha256"] == verilog_digest(design, width, fold)
    # Lint: only justified rules waived, and nothing left with the waiver file.
    assert sidecar["lint"]["clean"] and set(sidecar["lint"]["waivers"]) <= set(LINT_WAIVERS)
    assert all(w["reason"] == LINT_WAIVERS[r] for r, w in sidecar["lint"]["waivers"].items())
    assert lint(tmp_path / f"{module}.v", tmp_path / f"{module}.vlt") == {}
    # Ports, offsets and timing are the component's own.
    dut = design.build(width, fold)
    for stream in ("i", "o"):
        fields = layout_fields(getattr(dut, stream).payload.shape())
        assert sidecar["ports"][stream]["fields"] == {
            n: {"offset": o, "width": w, "signed": s} for n, (o, w, s) in fields.items()}
        assert set(sidecar["formats"]) >= set(fields)
    assert sidecar["latency_cycles"] == dut.latency
    assert sidecar["interval_cycles"] == dut.interval
    # The accuracy promise: each output's proven bound, where the design states one.
    if name.startswith("cordic"):
        lsb = 2.0 ** -dut.config.frac_bits
        assert sidecar["accuracy_bounds"] == {"x": 1.25 * lsb, "y": 1.25 * lsb}
    elif name.startswith("dynamics"):
        assert sidecar["accuracy_bounds"] == {
            f"tau{k}": b for k, b in enumerate(dut.plan.accuracy.bounds, 1)}
    else:
        assert set(sidecar["accuracy_bounds"]) == set(sidecar["ports"]["o"]["fields"]) - {"tag"}
    # What in_bounds checks: each rate's and acceleration's limit, to half an LSB.
    limits = sidecar["in_bounds_limits"]
    if not name.startswith("dynamics"):
        assert limits is None
        return
    robot = dut.plan.robot
    assert set(limits) == {f"{kind}{k}" for kind in ("qd", "qdd")
                           for k in range(1, robot.dof + 1)}
    for k, joint in enumerate(robot.joints, 1):
        for field, limit in ((f"qd{k}", joint.velocity_limit),
                             (f"qdd{k}", joint.acceleration_limit)):
            low, high = limits[field]["values"]
            lsb = 2.0 ** -dut.plan.input_fracs[field]
            assert abs(high - limit) <= lsb / 2 and abs(low + limit) <= lsb / 2
            assert limits[field]["codes"] == [round(low / lsb), round(high / lsb)]


def test_an_export_for_an_ecp5_instantiates_its_tiles_and_models_them(tmp_path):
    # The folded linear array at 12 bits: its shared multipliers as DSP tiles with their
    # registers, its phase enables through clock buffers, models of both beside the module
    # for simulation, all lint clean.
    design = DESIGNS["inertia-linear"]
    sidecar = export_design(design, 12, tmp_path, device="ecp5-85k")
    module = sidecar["module"]
    assert sidecar["device"] == "ecp5-85k"
    assert sidecar["primitive_models"] == f"{module}.primitives.v"
    models = tmp_path / f"{module}.primitives.v"
    assert "module MULT18X18D(" in models.read_text() and "module DCCA(" in models.read_text()
    units = design.build(12).plan.schedule.multipliers
    ecp5_text = (tmp_path / f"{module}.v").read_text()
    assert ecp5_text.count("MULT18X18D #(") == units
    assert lint(tmp_path / f"{module}.v", tmp_path / f"{module}.vlt", models) == {}
    assert sidecar["lint"]["command"].endswith(f"{module}.vlt {models.name} {module}.v")
    # A generic export into the same folder leaves no stale model behind.
    generic = export_design(design, 12, tmp_path, check_lint=False)
    assert generic["device"] is None and generic["primitive_models"] is None
    assert not models.exists()
    # Each tile holds two operand registers and a product register: 12 + 12 + 24 bits. The
    # phases enable the registers from a ring copy per part in the generic netlist, from one
    # ring on the clock networks (a DCCA per phase) in the ECP5's.
    fold = design.build(12).fold
    assert ecp5_text.count("DCCA ") == fold
    rings = [phase_rings(text) for text in (ecp5_text, (tmp_path / f"{module}.v").read_text())]
    assert rings[0] == {"phase", "global_ring"} and len(rings[1]) > 2
    assert (generic["register_bits"] - sidecar["register_bits"] ==
            units * 48 + (len(rings[1]) - len(rings[0])) * fold)
    with pytest.raises(ValueError, match="device must be one of ecp5-25k, .*, not 'xc7'"):
        export_design(design, 12, tmp_path, device="xc7")



def test_a_warning_that_is_not_waivable_fails_the_export(tmp_path, monkeypatch):
    monkeypatch.setattr(export, "LINT_WAIVERS", {k: v for k, v in LINT_WAIVERS.items()
                                                 if k != "WIDTHEXPAND"})
    with pytest.raises(LintError, match="WIDTHEXPAND \\(not waivable\\)"):
        export_design(DESIGNS["cordic-pipelined"], 16, tmp_path)


def test_lint_sees_real_problems(tmp_path):
    bad = tmp_path / "bad.v"
    bad.write_text("module bad(input wire [3:0] a, output wire [1:0] y);\n"
                   "  assign y = a;\nendmodule\n")
    assert "WIDTHTRUNC" in lint(bad)


@pytest.mark.slow
def test_every_design_exports_lint_clean(tmp_path):
    for sidecar in export.export_all(tmp_path):
        assert sidecar["lint"]["clean"], sidecar["module"]


def test_a_robot_is_loaded_and_converted_once(tmp_path, monkeypatch):
    # robohw export --robot ur5: every design generated for the UR5 from one loaded chain and
    # one hardware form (robohw.registry.designs), none loading or converting it again.
    import robohw.robots.hardware_form as hardware_form
    import robohw.robots.loading as loading
    from robohw.commands import main
    calls = []
    load, convert = loading.load_robot, hardware_form.hardware_form

    def counted_load(path, *args, **kwargs):
        calls.append(("load", str(path)))
        return load(path, *args, **kwargs)

    def counted_convert(chain):
        calls.append(("convert", chain.name))
        return convert(chain)

    monkeypatch.setattr(loading, "load_robot", counted_load)
    monkeypatch.setattr(loading, "hardware_form", counted_convert)
    monkeypatch.setattr(hardware_form, "hardware_form", counted_convert)
    assert main(["export", "--robot", "ur5", "--designs", "inertia-linear,dynamics-engine",
                 "--out", str(tmp_path), "--no-lint", "--quiet"]) == 0
    assert calls.count(("load", "ur5")) == 1
    assert calls.count(("convert", "ur5")) == 1
    assert sorted(p.name for p in tmp_path.glob("*.v")) == [
        "dynamics_engine_ur5_w20_f5.v", "inertia_linear_ur5_w20_f6.v"]


@pytest.mark.heavy
def test_modules_exported_side_by_side_are_the_same_files_in_order(tmp_path):
    from robohw.flows.export import export_all
    one = export_all(tmp_path / "one", ["cordic-pipelined", "cordic-word-serial"], [12, 16],
                     jobs=1)
    two = export_all(tmp_path / "two", ["cordic-pipelined", "cordic-word-serial"], [12, 16],
                     jobs=2)
    assert [s["module"] for s in two] == [s["module"] for s in one]
    assert [s["verilog_sha256"] for s in two] == [s["verilog_sha256"] for s in one]
    for sidecar in one:
        name = f"{sidecar['module']}.vlt"
        assert (tmp_path / "one" / name).read_text() == (tmp_path / "two" / name).read_text()
    with pytest.raises(ValueError, match="jobs must be a positive integer, not 0"):
        export_all(tmp_path / "three", ["cordic-pipelined"], [12], jobs=0)
