"""The parallel manipulators' top-level designs for the flows
(:class:`~robohw.sim.design.Design`), on the hexapod: its legs' inverse kinematics on one CCM
processor per leg (pipelined or word-serial CCMs), its inverse dynamics on Gosselin's machine
(:class:`~robohw.legs.leg_machine.LegMachine`), and its forward kinematics in a servo loop on
the same machine (:class:`~robohw.legs.servo.FkServo`). A design class is one computation, its
timing (:data:`TIMINGS`) the processors it runs on; the ``platform`` command's hardware
backends build through the same classes (:func:`command_design`, :meth:`hardware`)."""

import functools

import numpy as np

from robohw.cordic.config import MAX_WIDTH as CORDIC_MAX_WIDTH
from robohw.hw.fixed import FixedFormat
from robohw.legs.dynamics_graph import (
    DYNAMICS_GUARD_BITS,
    dynamics_format,
    dynamics_graph,
    dynamics_scale,
    reference_dynamics,
    state_codes,
    state_inputs,
)
from robohw.legs.dynamics_graph import sample_states as sample_states_within
from robohw.legs.fk_graph import FK_GUARD_BITS
from robohw.legs.ik_graph import GUARD_BITS, angle_fields, leg_ik_graph, platform_format, pose_codes
from robohw.legs.ik_graph import pose_inputs as platform_pose_inputs
from robohw.legs.leg_machine import LegMachine
from robohw.legs.platform_kinematics import inverse_kinematics
from robohw.legs.servo import SERVO_ITERATIONS, FkServo, servo_model
from robohw.robots.platform import load_platform
from robohw.robots.sampling import sample_poses, sample_trajectory
from robohw.sim.design import TAG_WIDTH, Design, Workload, tagged_payloads
from robohw.sim.place_and_route import PlaceAndRoute
from robohw.taskgraph.model import evaluate_model, output_codes, task_graph_outputs
from robohw.taskgraph.pipeline import TaskGraphPipeline

__all__ = ["PlatformIkDesign", "PlatformDynamicsDesign", "PlatformFkDesign", "DESIGNS",
           "PLATFORM_MIN_WIDTH", "TIMINGS", "command_design"]

# The CCMs pipelined, each CCM a word-serial CORDIC of its own, or Gosselin's machine (a
# processor per leg running its CCMs in sequence, robohw.legs.leg_machine).
TIMINGS = ("pipelined", "word_serial", "machine")

# The platform designs' narrowest width: the narrowest the legs report measures
# (robohw.legs.report.LEG_WIDTHS).
PLATFORM_MIN_WIDTH = 16

class _PlatformDesign(Design):
    """What the platform designs share: the platform file and the formats of a CCM graph's
    fields."""
    family = "platform"

    def __init__(self, name, summary, platform, guard_bits):
        # Up to the CORDIC's widest less the design's guard bits (its CCMs are that much
        # wider than its ports).
        super().__init__(name, summary, 24, (16, 24),
                         (PLATFORM_MIN_WIDTH, CORDIC_MAX_WIDTH - guard_bits))
        self.platform_name = platform

    @functools.cached_property
    def platform(self):
        """The :class:`~robohw.robots.platform.Platform`, read from its file once."""
        return load_platform(self.platform_name)

    def hardware(self, platform, width, *, tag_width=TAG_WIDTH):
        """The design's hardware for ``platform`` (a
        :class:`~robohw.robots.platform.Platform`) at ``width``-bit ports: what :meth:`build`
        builds for the design's own platform, and the ``platform`` command for any."""
        raise NotImplementedError

    def build(self, width=None, fold=None):
        return self.hardware(self.platform, width or self.default_width)

    @staticmethod
    def _graph_formats(graph, width, frac):
        """The formats of a CCM graph's inputs (angles are binary angles) and outputs, and
        the ``unreachable`` flag."""
        out = {name: (f"angle({width})" if name in graph.angle_inputs
                      else f"fixed({width}, {frac})") for name in graph.inputs}
        out.update({name: f"fixed({width}, {frac})" for name in graph.outputs})
        out.update({"unreachable": "bit", "tag": "tag"})
        return out


def _leg_processors(graph, formats, timing, tag_width):
    """``graph`` on one CCM processor per leg, its CCMs pipelined or word-serial
    (:class:`~robohw.taskgraph.pipeline.TaskGraphPipeline`), or on Gosselin's machine
    (:class:`~robohw.legs.leg_machine.LegMachine`, ``timing`` ``"machine"``)."""
    if timing == "machine":
        return LegMachine(graph, **formats, tag_width=tag_width)
    return TaskGraphPipeline(graph, **formats, tag_width=tag_width, timing=timing)


class PlatformIkDesign(_PlatformDesign):
    """A platform's leg lengths on one identical CCM processor per leg
    (:mod:`robohw.legs.ik_graph`), the CCMs pipelined or word-serial."""
    error_unit = "m"

    def __init__(self, name, timing, platform="hexapod", *, jacobian=False):
        where = "on Gosselin's machine" if timing == "machine" else \
            f"one CCM processor per leg, {timing.replace('_', '-')} CCMs"
        super().__init__(name, f"leg lengths of the {platform} platform, {where}", platform,
                         GUARD_BITS)
        self.timing = timing
        self.word_serial = timing == "word_serial"
        self.jacobian = jacobian        # the rows of K / rho too (robohw platform jacobian)

    def hardware(self, platform, width, *, tag_width=TAG_WIDTH):
        return _leg_processors(leg_ik_graph(platform, jacobian=self.jacobian),
                               platform_format(platform, width), self.timing, tag_width)

    def width_of(self, dut):
        return dut.width

    def configuration(self, dut):
        return (f"{len(dut.graph.ccms)} CCMs ({len(self.platform.legs)} legs), {dut.width}-bit "
                f"data (+{dut.plan.guard_bits} inside), {self.timing.replace('_', '-')} CCMs")

    def workload(self, dut, count, seed=0):
        platform = self.platform
        poses = sample_poses(platform, count, np.random.default_rng(seed))
        return Workload(tagged_payloads(pose_codes(platform, poses, dut.width), count),
                        {"poses": poses})

    def check(self, dut, workload, outputs):
        equal = self.equals_model(dut, workload, outputs)
        got = np.array([[o[name] for name in dut.graph.outputs] for o in outputs],
                       dtype=np.float64) * 2.0 ** -dut.plan.frac_bits
        reference = inverse_kinematics(self.platform, workload.context["poses"])
        return equal, np.abs(got - reference).max(-1)

    def model_outputs(self, dut, workload):
        platform = self.platform
        return task_graph_outputs(dut, platform_pose_inputs(platform, workload.context["poses"]),
                                   platform_format(platform, dut.width))

    def structure(self, dut):
        return "buffer stages", sum(dut.schedule.line_lengths.values())

    def formats(self, dut):
        return self._graph_formats(dut.graph, dut.width, dut.plan.frac_bits)


class PlatformDynamicsDesign(_PlatformDesign):
    """A platform's inverse dynamics on Gosselin's machine (:mod:`robohw.legs.leg_machine`):
    a word-serial CORDIC and a register file per leg and for the platform, a one-word bus."""
    error_unit = "N"
    one_at_a_time = True

    def __init__(self, name, platform="hexapod", *, timing="machine"):
        where = ("on Gosselin's machine: a CORDIC processor per leg and for the platform, a "
                 "one-word bus") if timing == "machine" else \
            f"on {timing.replace('_', '-')} CCMs"
        super().__init__(name, f"inverse dynamics of the {platform} platform {where}", platform,
                         DYNAMICS_GUARD_BITS)
        self.timing = timing

    @functools.cached_property
    def scale(self):
        return dynamics_scale(self.platform)

    def hardware(self, platform, width, *, tag_width=TAG_WIDTH):
        scale = self.scale if platform is self.platform else dynamics_scale(platform)
        return _leg_processors(dynamics_graph(platform, scale), dynamics_format(platform, width),
                               self.timing, tag_width)

    def width_of(self, dut):
        return dut.width

    def configuration(self, dut):
        processors = len(set(dut.plan.processor.values()))
        return (f"{len(dut.graph.ccms)} CCMs on {processors} processors, {dut.width}-bit data "
                f"(+{dut.formats['guard_bits']} inside), a one-word bus")

    def workload(self, dut, count, seed=0):
        platform = self.platform
        states = sample_states_within(platform, count, np.random.default_rng(seed))
        return Workload(tagged_payloads(state_codes(platform, states, dut.width, self.scale),
                                       count), {"states": states})

    def model_outputs(self, dut, workload):
        platform = self.platform
        _, valid, codes = evaluate_model(
            dut.graph, state_inputs(platform, workload.context["states"], self.scale),
            **dut.formats)
        out = [{"unreachable": int(not v)} for v in valid]
        for name, values in output_codes(dut.graph, codes, dut.width,
                                         dut.formats["guard_bits"]).items():
            for row, value in zip(out, values.tolist()):
                row[name] = value
        return out

    def check(self, dut, workload, outputs):
        equal = self.equals_model(dut, workload, outputs)
        got = np.array([[o[name] for name in dut.graph.outputs] for o in outputs],
                       dtype=np.float64) * 2.0 ** -dut.formats["frac_bits"] * self.scale.force
        reference, _ = reference_dynamics(self.platform, workload.context["states"])
        return equal, np.abs(got - reference).max(-1)

    def structure(self, dut):
        return "bus words", len(dut.plan.transfers)

    def formats(self, dut):
        return self._graph_formats(dut.graph, dut.width, dut.formats["frac_bits"])


class PlatformFkDesign(_PlatformDesign):
    """A platform's forward kinematics in a servo loop (:class:`robohw.legs.servo.FkServo`,
    :data:`~robohw.legs.servo.SERVO_ITERATIONS` Newton steps a row, each row from the answer
    before it) on Gosselin's machine. The workload is a smooth 1 kHz trajectory from home
    (:func:`~robohw.robots.sampling.sample_trajectory`); the error is the positions' (m)."""
    error_unit = "m"
    one_at_a_time = True

    def __init__(self, name, platform="hexapod", iterations=SERVO_ITERATIONS, *,
                 timing="machine"):
        where = "Gosselin's machine" if timing == "machine" else \
            f"{timing.replace('_', '-')} CCMs"
        super().__init__(name, f"forward kinematics of the {platform} platform in a servo loop "
                               f"on {where}, {iterations} Newton iterations a row",
                         platform, FK_GUARD_BITS)
        self.iterations = iterations
        self.timing = timing

    def hardware(self, platform, width, *, tag_width=TAG_WIDTH):
        return FkServo(platform, self.iterations, width=width, timing=self.timing,
                       tag_width=tag_width)

    def width_of(self, dut):
        return dut.pipeline.width

    def _frac_bits(self, dut):
        return dut.pipeline.formats["frac_bits"]

    def configuration(self, dut):
        machine = dut.pipeline
        processors = len(set(machine.plan.processor.values()))
        return (f"{self.iterations} iterations a row, {len(machine.graph.ccms)} CCMs on "
                f"{processors} processors, {machine.width}-bit data "
                f"(+{machine.formats['guard_bits']} inside)")

    def workload(self, dut, count, seed=0):
        platform = self.platform
        poses = sample_trajectory(platform, count, np.random.default_rng(seed))
        lengths = inverse_kinematics(platform, poses)
        real = FixedFormat(self.width_of(dut), self._frac_bits(dut))
        codes = {f"rho_m{i + 1}": real.from_float(column) for i, column in enumerate(lengths.T)}
        return Workload(tagged_payloads(codes, count), {"poses": poses, "lengths": lengths})

    def model_outputs(self, dut, workload):
        codes, valid = servo_model(self.platform, self.iterations, workload.context["lengths"],
                                   width=self.width_of(dut))
        return [{**{f: int(c[k]) for f, c in codes.items()}, "unreachable": int(not v)}
                for k, v in enumerate(valid)]

    def check(self, dut, workload, outputs):
        equal = self.equals_model(dut, workload, outputs)
        angles = angle_fields(self.platform)
        positions = [f for f in self.platform.pose_fields if f not in angles]
        got = np.array([[o[f] for f in positions] for o in outputs],
                       dtype=np.float64) * 2.0 ** -self._frac_bits(dut)
        index = [self.platform.pose_fields.index(f) for f in positions]
        return equal, np.abs(got - workload.context["poses"][:, index]).max(-1)

    def structure(self, dut):
        return "bus words", len(dut.pipeline.plan.transfers)

    def formats(self, dut):
        width, frac = self.width_of(dut), self._frac_bits(dut)
        angles = angle_fields(self.platform)
        out = {f"rho_m{i + 1}": f"fixed({width}, {frac})"
               for i in range(len(self.platform.legs))}
        out.update({f: f"turns({width}, {frac})" if f in angles else f"fixed({width}, {frac})"
                    for f in self.platform.pose_fields})
        out.update({"unreachable": "bit", "tag": "tag"})
        return out


# Routed for 100 MHz, router1 reroutes the paths that miss it: the legs' designs clock faster
# so than without a target or with router2 (the figures: docs/legs.md).
_ROUTER1_FOR_100 = PlaceAndRoute(target_mhz=100,
                                 reason="router1 routed for 100 MHz clocks them faster than "
                                        "router2 or no target (docs/legs.md)")

DESIGNS = (
    PlatformIkDesign("platform-ik-pipelined", "pipelined").placed_by(
        unplaced="172,867 register bits at 24 bits, more than the ECP5-85F's 83,640 "
                 "flip-flops: docs/legs.md"),
    PlatformIkDesign("platform-ik-word-serial", "word_serial").placed_by(_ROUTER1_FOR_100),
    PlatformDynamicsDesign("platform-dynamics-machine").placed_by(_ROUTER1_FOR_100),
    PlatformFkDesign("platform-fk-machine").placed_by(_ROUTER1_FOR_100),
)


def command_design(command, timing, *, iterations=SERVO_ITERATIONS):
    """The design the ``platform`` command's hardware backends build ``command`` (``ik``,
    ``jacobian``, ``dynamics`` or ``fk``) through on ``timing``'s processors (:data:`TIMINGS`):
    the registered design where one computes it so, else the same class at that timing;
    ``iterations``: the servo loop's Newton steps a row (``fk``)."""
    name = f"platform-{command}-{timing.replace('_', '-')}"
    registered = {d.name: d for d in DESIGNS}.get(name)
    if command == "ik" and registered is not None:
        return registered
    if command in ("ik", "jacobian"):
        return PlatformIkDesign(name, timing, jacobian=command == "jacobian")
    if command == "dynamics":
        return registered or PlatformDynamicsDesign(name, timing=timing)
    if command == "fk":
        if registered is not None and registered.iterations == iterations:
            return registered
        return PlatformFkDesign(name, iterations=iterations, timing=timing)
    raise ValueError(f"command must be one of ik, jacobian, dynamics, fk, not {command!r}")
