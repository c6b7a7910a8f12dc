"""Every top-level design of the project, by name, with what the report, ``robohw sim``,
``robohw export`` and ``robohw synth`` need to know of it.

A :class:`Design` builds its component at a width (plain ready/valid stream ports, a tag),
draws a seeded workload, checks simulated outputs against its bit-exact model and measures
their error against its float reference, and describes its ports' number formats.

=========================  ====================================================================
name                       component
=========================  ====================================================================
``cordic-pipelined``       :class:`robohw.cordic.pipelined.PipelinedCordic`, circular rotation
``cordic-word-serial``     :class:`robohw.cordic.word_serial.WordSerialCordic`, circular rotation
``ik-best-pipelined``      :class:`robohw.ik.pipeline.TaskGraphPipeline`, best PUMA IK graph
``ik-best-word-serial``    the same graph on word-serial CCMs
``ik-paper-pipelined``     the reconstruction of Lee & Chang's graph
``ik-paper-word-serial``   the same on word-serial CCMs
``inertia-linear``         :class:`robohw.systolic.LinearInertiaArray` for the PUMA 560
``inertia-logdepth``       :class:`robohw.systolic.LogDepthInertiaArray` for the PUMA 560
``dynamics-pipelined``     :class:`robohw.dynamics.NewtonEulerPipeline` for the PUMA 560
``dynamics-array``         :class:`robohw.dynamics.array.NewtonEulerArray`, 6 elements, direct
``platform-ik-pipelined``  :class:`robohw.ik.pipeline.TaskGraphPipeline` of the hexapod's legs
                           (:func:`robohw.legs.ik_graph.leg_ik_graph`): one processor per leg
``platform-ik-word-serial`` the same on word-serial CCMs
``platform-dynamics-machine`` :class:`robohw.legs.leg_machine.LegMachine` of the hexapod's inverse
                           dynamics (:func:`robohw.legs.dynamics_graph.dynamics_graph`):
                           Gosselin's machine
``platform-fk-machine``    :class:`robohw.legs.servo.FkServo` of the hexapod on Gosselin's
                           machine: the forward kinematics' servo loop, two iterations a row
=========================  ====================================================================
"""

import functools
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from robohw.accuracy.cordic import output_errors, sample_inputs
from robohw.accuracy.ik import well_conditioned
from robohw.cordic import ARCHITECTURES
from robohw.cordic.config import CordicConfig
from robohw.cordic.model import cordic_model
from robohw.dynamics import NewtonEulerPipeline
from robohw.dynamics.array import NewtonEulerArray
from robohw.dynamics.model import decode_torques, encode_states
from robohw.dynamics.model import model_outputs as model_outputs_dynamics
from robohw.hw.fixed import FixedFormat
from robohw.hw.payload import layout_fields
from robohw.ik.model import evaluate_model, output_codes
from robohw.ik.pipeline import MEMORY_ABOVE, TaskGraphPipeline
from robohw.ik.puma_graph import GRAPHS, POSE_INPUTS, pose_inputs, puma_format
from robohw.legs.dynamics_graph import (dynamics_format, dynamics_graph, dynamics_scale,
                                        reference_dynamics, state_codes, state_inputs)
from robohw.legs.dynamics_graph import sample_states as sample_states_within
from robohw.legs.ik_graph import angle_fields, leg_ik_graph, platform_format, pose_codes
from robohw.legs.leg_machine import LegMachine
from robohw.legs.servo import SERVO_ITERATIONS, FkServo, servo_model
from robohw.legs.ik_graph import pose_inputs as platform_pose_inputs
from robohw.reference.dynamics import inverse_dynamics
from robohw.reference.inertia import jacobian_inertia
from robohw.reference.kinematics import forward_kinematics, puma_ik
from robohw.reference.platform_kinematics import inverse_kinematics
from robohw.robots import load_robot
from robohw.robots.platform import load_platform
from robohw.robots.sampling import (sample_joints, sample_poses, sample_states,
                                    sample_trajectory)
from robohw.systolic import ARRAYS, DEFAULT_FOLDS
from robohw.systolic.model import decode_outputs, encode_joints, model_outputs

__all__ = ["Design", "Workload", "InertiaDesign", "DynamicsDesign", "PlatformIkDesign",
           "PlatformDynamicsDesign", "PlatformFkDesign", "DESIGNS", "design"]

TAG_WIDTH = 8
PIPELINED_IK_WIDTH = 18
# The inertia arrays at 18 bits: one 18 x 18 DSP tile per shared product (24 bits takes four
# and its placement on an ECP5-85F did not finish routing; README, "FPGA synthesis"), at 7.1e-5
# of max |H| from float64 (24 bits: 9.5e-7).
INERTIA_WIDTH = 18
# The Newton-Euler pipeline at 18 bits, folded by 6: 98 shared 18 x 18 products of the PUMA
# 560's 586 (the ECP5-85F has 156 tiles), at 3e-4 of max |tau| (24 bits: 5e-6).
DYNAMICS_WIDTH = 18
DYNAMICS_FOLD = 6


def _tagged_payloads(codes, count):
    """``count`` input payloads from ``{field: codes}`` (indexable columns), each tagged by
    its index modulo the tag's range."""
    return [{**{n: int(v[k]) for n, v in codes.items()}, "tag": k % (1 << TAG_WIDTH)}
            for k in range(count)]


@dataclass
class Workload:
    """Input payloads (dicts of ints) and what the check needs to judge the outputs."""
    payloads: list
    context: dict


class Design:
    """One top-level design; subclasses fill in the family's parts.

    :attr:`default_fold` is ``None`` for a design without a folding factor; a folded design's
    default is the smallest fold that fits an ECP5-85F at its default width (README,
    "FPGA synthesis"). :attr:`one_at_a_time`: the design holds one input at a time for
    thousands of cycles (Gosselin's machine), so a few results show its timing.
    """
    family = None
    error_unit = None
    default_fold = None
    one_at_a_time = False

    def __init__(self, name, summary, default_width, widths):
        self.name, self.summary = name, summary
        self.default_width, self.widths = default_width, widths

    @property
    def module_name(self):
        """The Verilog module name: the design's name with underscores."""
        return self.name.replace("-", "_")

    def module(self, dut):
        """The exported module of ``dut``: :attr:`module_name`, the width and, for a design
        with a folding factor, the fold (``inertia_linear_w18_f7``)."""
        fold = "" if self.default_fold is None else f"_f{dut.fold}"
        return f"{self.module_name}_w{self.width_of(dut)}{fold}"

    def width_of(self, dut):
        """The data width ``dut`` was built at."""
        raise NotImplementedError

    def fold_of(self, dut):
        """Cycles per result the fold gives (1 for a design without one)."""
        return 1 if self.default_fold is None else dut.fold

    def build(self, width=None, fold=None):
        """The component at ``width`` (default :attr:`default_width`) folded by ``fold``
        (default :attr:`default_fold`; ignored by a design without one), tag of 8 bits."""
        raise NotImplementedError

    def configuration(self, dut):
        """One line: what this instance is."""
        raise NotImplementedError

    def workload(self, dut, count, seed=0):
        """A :class:`Workload` of ``count`` seeded inputs from the design's domain."""
        raise NotImplementedError

    def check(self, dut, workload, outputs):
        """``(equals_model, errors)``: whether ``outputs`` equal the bit-exact model, and the
        per-result errors against float64 in :attr:`error_unit`."""
        raise NotImplementedError

    def model_outputs(self, dut, workload):
        """The output payloads (dicts) the bit-exact model gives for the workload."""
        raise NotImplementedError

    def equals_model(self, dut, workload, outputs):
        """Whether every output carries the fields of :meth:`model_outputs` with the model's
        values, in order (the tag and any extra fields are not compared)."""
        expected = self.model_outputs(dut, workload)
        return len(outputs) == len(expected) and \
            [{k: o[k] for k in e} for o, e in zip(outputs, expected)] == expected

    def structure(self, dut):
        """Buffer stages or processing elements: ``(label, value)``."""
        raise NotImplementedError

    def formats(self, dut):
        """``{field: format}`` for every payload field: ``"fixed(W, F)"`` (W bits, F fraction
        bits), ``"turns(W, F)"`` (the same bits counting turns), ``"angle(W)"`` (binary angle,
        one turn = 2**W), ``"bit"`` or ``"tag"``."""
        raise NotImplementedError

    def ports(self, dut):
        """Ports of the exported module with payload fields at their bit offsets."""
        return {
            stream: {"valid": f"{stream}__valid", "ready": f"{stream}__ready",
                     "payload": f"{stream}__payload",
                     "fields": {name: {"offset": offset, "width": width, "signed": signed}
                                for name, (offset, width, signed) in
                                layout_fields(getattr(dut, stream).payload.shape()).items()}}
            for stream in ("i", "o")}


# --- CORDIC ------------------------------------------------------------------------------------

class CordicDesign(Design):
    family = "cordic"
    error_unit = "LSB"

    def __init__(self, name, architecture):
        super().__init__(name, f"CORDIC processor, {architecture.replace('_', '-')}, circular "
                               f"rotation", 16, (16, 24, 32))
        self.architecture = architecture

    def _config(self, width):
        return CordicConfig("circular", "rotation", width=width)

    def build(self, width=None, fold=None):
        return ARCHITECTURES[self.architecture](self._config(width or self.default_width),
                                                tag_width=TAG_WIDTH)

    def width_of(self, dut):
        return dut.config.width

    def configuration(self, dut):
        c = dut.config
        return (f"circular rotation, {c.width} bits ({c.frac_bits} fraction), "
                f"{c.iterations} iterations, {c.normalization.value} normalization")

    def workload(self, dut, count, seed=0):
        x, y, z = sample_inputs(dut.config, count, np.random.default_rng(seed))
        return Workload(_tagged_payloads({"x": x, "y": y, "z": z}, len(x)),
                        {"x": x, "y": y, "z": z})

    def check(self, dut, workload, outputs):
        c = workload.context
        want = cordic_model(dut.config, c["x"], c["y"], c["z"])
        equal = all([o[n] for o in outputs] == getattr(want, n).tolist() for n in "xyz")
        got = {n: np.array([o[n] for o in outputs]) for n in "xyz"}
        errors = output_errors(dut.config, c["x"], c["y"], c["z"], SimpleNamespace(**got))
        return equal, np.max(np.stack(list(errors.values())), axis=0)

    def model_outputs(self, dut, workload):
        c = workload.context
        want = cordic_model(dut.config, c["x"], c["y"], c["z"])
        return [{n: int(getattr(want, n)[k]) for n in "xyz"} for k in range(len(c["x"]))]

    def structure(self, dut):
        return "pipeline stages", dut.latency

    def formats(self, dut):
        c = dut.config
        fixed = f"fixed({c.width}, {c.frac_bits})"
        return {"x": fixed, "y": fixed, "z": f"angle({c.width})", "tag": "tag",
                "domain_error": "bit", "overflow": "bit"}


# --- PUMA IK -----------------------------------------------------------------------------------

def _task_graph_outputs(dut, inputs, formats):
    """The output payloads of a :class:`~robohw.ik.pipeline.TaskGraphPipeline` by its graph's
    bit-exact model, for graph ``inputs`` (reals, radians) at ``formats``."""
    _, valid, codes = evaluate_model(dut.graph, inputs, **formats)
    out = [{"unreachable": int(not v)} for v in valid]
    for name, values in output_codes(dut.graph, codes, dut.width, dut.plan.guard_bits).items():
        for row, value in zip(out, values.tolist()):
            row[name] = value
    return out


class IkDesign(Design):
    family = "ik"
    error_unit = "rad"

    def __init__(self, name, graph, timing):
        label = "best" if graph == "best" else "reconstruction of Lee & Chang's"
        # Pipelined, 18 bits is the widest that fits an ECP5-85F at one pose per clock (24 bits
        # wants ~105k LUT-sized cells of its 83.6k; README, "FPGA synthesis").
        default = PIPELINED_IK_WIDTH if timing == "pipelined" else 24
        super().__init__(name, f"PUMA 560 inverse kinematics, {label} CCM graph, "
                               f"{timing.replace('_', '-')} CCMs", default,
                         tuple(sorted({16, default, 24})))
        self.graph, self.timing = graph, timing

    def build(self, width=None, fold=None):
        memory = MEMORY_ABOVE if self.timing == "pipelined" else None
        return TaskGraphPipeline(GRAPHS[self.graph](load_robot()),
                                 **puma_format(width or self.default_width),
                                 tag_width=TAG_WIDTH, timing=self.timing, memory_above=memory)

    def width_of(self, dut):
        return dut.width

    def configuration(self, dut):
        return (f"{len(dut.graph.ccms)} CCMs, {dut.width}-bit data "
                f"(+{dut.plan.guard_bits} inside), "
                f"{self.timing.replace('_', '-')} CCMs, outputs aligned")

    def workload(self, dut, count, seed=0):
        robot = load_robot()
        q = sample_joints(robot, 8 * count, np.random.default_rng(seed))
        q = q[well_conditioned(robot, q)][:count]
        pose = forward_kinematics(robot, q)
        inputs = pose_inputs(pose)
        scale = 2.0 ** dut.plan.frac_bits
        codes = {n: np.rint(v * scale).astype(np.int64) for n, v in inputs.items()}
        return Workload(_tagged_payloads({n: codes[n] for n in POSE_INPUTS}, len(q)),
                        {"inputs": inputs, "pose": pose})

    def check(self, dut, workload, outputs):
        graph, width = dut.graph, dut.width
        _, valid, codes = evaluate_model(graph, workload.context["inputs"], **puma_format(width))
        equal = [o["unreachable"] for o in outputs] == (~valid).astype(int).tolist()
        for name, values in output_codes(graph, codes, width, dut.plan.guard_bits).items():
            equal &= [o[name] for o in outputs] == values.tolist()
        q_float, _ = puma_ik(load_robot(), workload.context["pose"], 1, 1, 1)
        got = np.array([[o[f"q{k}"] for k in range(1, 7)] for o in outputs], dtype=np.float64)
        got *= 2 * np.pi / 2 ** width
        errors = np.abs(np.angle(np.exp(1j * (got - q_float)))).max(-1)
        return bool(equal), errors

    def model_outputs(self, dut, workload):
        return _task_graph_outputs(dut, workload.context["inputs"], puma_format(dut.width))

    def structure(self, dut):
        # Shared data lines, as the paper counts them (the 1-bit branch lines come on top).
        return "buffer stages", sum(length for (source, _), length in
                                    dut.schedule.line_lengths.items()
                                    if source not in dut.graph.branches)

    def formats(self, dut):
        width = dut.width
        out = {n: f"fixed({width}, {dut.plan.frac_bits})" for n in POSE_INPUTS}
        out.update({b: "bit" for b in dut.graph.branches})
        out.update({f"q{k}": f"angle({width})" for k in range(1, 7)})
        out.update({"unreachable": "bit", "tag": "tag"})
        return out


# --- inertia matrix ----------------------------------------------------------------------------

def _traced_configuration(dut, cordics=""):
    """One line of a design built on :mod:`robohw.dataflow`: size, width, fold."""
    plan = dut.plan
    folded = (f"folded by {plan.fold}: {dut.resources()['multipliers']} shared "
              f"multipliers" if plan.fold > 1 else "unfolded")
    return (f"N = {plan.dof}, {plan.width}-bit datapath, {cordics}per-signal fraction bits, "
            f"{folded}")


class InertiaDesign(Design):
    family = "inertia"
    error_unit = "of max abs(H)"

    def __init__(self, name, array, default_fold, robot="puma560"):
        kind = "O(N) linear systolic array" if array == "linear" else \
            "O(log2 N) recursive-doubling array"
        label = robot if isinstance(robot, str) else robot.name
        super().__init__(name, f"inertia matrix of {label}, {kind}", INERTIA_WIDTH, (18, 24))
        self.array, self.robot, self.default_fold = array, robot, default_fold

    def build(self, width=None, fold=None):
        return ARRAYS[self.array](self.robot, width=width or self.default_width,
                                  fold=fold or self.default_fold, tag_width=TAG_WIDTH)

    def width_of(self, dut):
        return dut.plan.width

    def configuration(self, dut):
        return _traced_configuration(dut)

    def workload(self, dut, count, seed=0):
        q = sample_joints(dut.plan.robot, count, np.random.default_rng(seed))
        codes = encode_joints(dut.plan, q)
        return Workload(_tagged_payloads(codes, count), {"q": q, "codes": codes})

    def check(self, dut, workload, outputs):
        expected = model_outputs(dut.plan, workload.context["codes"])
        equal = all([o[f"h{j}_{i}"] for o in outputs] == v.tolist()
                    for (j, i), v in expected.items())
        got = decode_outputs(dut.plan, {key: np.array([o[f"h{key[0]}_{key[1]}"] for o in outputs])
                          for key in expected})
        reference = jacobian_inertia(dut.plan.robot, workload.context["q"])
        errors = np.abs(got - reference).max((1, 2)) / np.abs(reference).max()
        return equal, errors

    def model_outputs(self, dut, workload):
        expected = model_outputs(dut.plan, workload.context["codes"])
        return [{f"h{j}_{i}": int(v[b]) for (j, i), v in expected.items()}
                for b in range(len(workload.payloads))]

    def structure(self, dut):
        return "processing elements", dut.resources()["processing_elements"]

    def formats(self, dut):
        width = dut.plan.width
        out = {}
        for k, frame in enumerate(dut.plan.frames, start=1):
            out[f"q{k}"] = f"angle({width})" if frame.revolute else \
                f"fixed({width}, {dut.input_fracs.get(k, width - 1)})"
        out.update({f"h{j}_{i}": f"fixed({width}, {frac})"
                    for (j, i), frac in dut.output_fracs.items()})
        out["tag"] = "tag"
        return out


# --- inverse dynamics --------------------------------------------------------------------------

class DynamicsDesign(Design):
    """The Newton-Euler pipeline (``array=None``) or Lee & Chang's processor array
    (``array=(processors, network)``)."""
    family = "dynamics"
    error_unit = "of max abs(tau)"

    def __init__(self, name, robot="puma560", array=None):
        label = robot if isinstance(robot, str) else robot.name
        if array is None:
            summary = (f"joint torques of {label}, Newton-Euler with recursive-doubling scans, "
                       f"fully pipelined")
            self.default_fold = DYNAMICS_FOLD
        else:
            summary = (f"joint torques of {label}, Lee & Chang's array of {array[0]} elements, "
                       f"{array[1]} network")
        super().__init__(name, summary, DYNAMICS_WIDTH, (18, 24))
        self.robot, self.array = robot, array

    def build(self, width=None, fold=None):
        width = width or self.default_width
        if self.array is None:
            return NewtonEulerPipeline(self.robot, width=width, fold=fold or self.default_fold,
                                       tag_width=TAG_WIDTH)
        processors, network = self.array
        return NewtonEulerArray(self.robot, processors=processors, network=network,
                                width=width, tag_width=TAG_WIDTH)

    def width_of(self, dut):
        return dut.plan.width

    def configuration(self, dut):
        if self.array is None:
            return _traced_configuration(dut, f"{dut.plan.cordic.width}-bit CORDICs, ")
        plan = dut.plan
        return (f"N = {plan.dof}, {plan.processors} elements, {plan.network.name} network, "
                f"{plan.width}-bit datapath, multiplier {plan.multiplier_latency} and adder "
                f"{plan.adder_latency} cycles, {plan.program_cycles}-cycle program")

    def workload(self, dut, count, seed=0):
        q, qd, qdd = sample_states(dut.plan.robot, count, np.random.default_rng(seed))
        codes = encode_states(dut.plan, q, qd, qdd)
        return Workload(_tagged_payloads(codes, count), {"states": (q, qd, qdd), "codes": codes})

    def check(self, dut, workload, outputs):
        equal = self.equals_model(dut, workload, outputs)
        got = decode_torques(dut.plan, {k: np.array([o[f"tau{k}"] for o in outputs],
                                                     dtype=object)
                                        for k in range(1, dut.dof + 1)})
        reference = inverse_dynamics(dut.plan.robot, *workload.context["states"])
        errors = np.abs(got - reference).max(-1) / np.abs(reference).max()
        return equal, errors

    def model_outputs(self, dut, workload):
        out, inside = model_outputs_dynamics(dut.plan, workload.context["codes"])
        return [{**{f"tau{k}": int(v[b]) for k, v in out.items()}, "in_bounds": int(inside[b])}
                for b in range(len(workload.payloads))]

    def structure(self, dut):
        if self.array is not None:
            return "processing elements", dut.plan.processors
        return "multipliers", dut.resources()["multipliers"]

    def formats(self, dut):
        plan = dut.plan
        out = {}
        for k, joint in enumerate(plan.robot.joints, start=1):
            out[f"q{k}"] = f"angle({plan.cordic.width})" if joint.type == "revolute" else \
                f"fixed({plan.width}, {plan.input_fracs[f'q{k}']})"
        for kind in ("qd", "qdd"):
            out.update({f"{kind}{k}": f"fixed({plan.width}, {plan.input_fracs[f'{kind}{k}']})"
                        for k in range(1, plan.dof + 1)})
        out.update({f"tau{k}": f"fixed({plan.width}, {frac})"
                    for k, frac in plan.output_fracs.items()})
        out["in_bounds"] = "bit"
        out["tag"] = "tag"
        return out


# --- parallel manipulators ----------------------------------------------------------------------

class _PlatformDesign(Design):
    """What the platform designs share: the platform file and the formats of a CCM graph's
    fields."""
    family = "platform"

    def __init__(self, name, summary, platform):
        super().__init__(name, summary, 24, (16, 24))
        self.platform_name = platform

    @functools.cached_property
    def platform(self):
        """The :class:`~robohw.robots.platform.Platform`, read from its file once."""
        return load_platform(self.platform_name)

    @staticmethod
    def _graph_formats(graph, width, frac):
        """The formats of a CCM graph's inputs (angles are binary angles) and outputs, and
        the ``unreachable`` flag."""
        out = {name: (f"angle({width})" if name in graph.angle_inputs
                      else f"fixed({width}, {frac})") for name in graph.inputs}
        out.update({name: f"fixed({width}, {frac})" for name in graph.outputs})
        out.update({"unreachable": "bit", "tag": "tag"})
        return out


class PlatformIkDesign(_PlatformDesign):
    """A platform's leg lengths on one identical CCM processor per leg
    (:mod:`robohw.legs.ik_graph`), the CCMs pipelined or word-serial."""
    error_unit = "m"

    def __init__(self, name, timing, platform="hexapod"):
        super().__init__(name, f"leg lengths of the {platform} platform, one CCM processor per "
                               f"leg, {timing.replace('_', '-')} CCMs", platform)
        self.timing = timing

    def build(self, width=None, fold=None):
        platform = self.platform
        return TaskGraphPipeline(leg_ik_graph(platform),
                                 **platform_format(platform, width or self.default_width),
                                 tag_width=TAG_WIDTH, timing=self.timing)

    def width_of(self, dut):
        return dut.width

    def configuration(self, dut):
        return (f"{len(dut.graph.ccms)} CCMs ({len(self.platform.legs)} legs), {dut.width}-bit "
                f"data (+{dut.plan.guard_bits} inside), {self.timing.replace('_', '-')} CCMs")

    def workload(self, dut, count, seed=0):
        platform = self.platform
        poses = sample_poses(platform, count, np.random.default_rng(seed))
        return Workload(_tagged_payloads(pose_codes(platform, poses, dut.width), count),
                        {"poses": poses})

    def check(self, dut, workload, outputs):
        equal = self.equals_model(dut, workload, outputs)
        got = np.array([[o[name] for name in dut.graph.outputs] for o in outputs],
                       dtype=np.float64) * 2.0 ** -dut.plan.frac_bits
        reference = inverse_kinematics(self.platform, workload.context["poses"])
        return equal, np.abs(got - reference).max(-1)

    def model_outputs(self, dut, workload):
        platform = self.platform
        return _task_graph_outputs(dut, platform_pose_inputs(platform, workload.context["poses"]),
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

    def __init__(self, name, platform="hexapod"):
        super().__init__(name, f"inverse dynamics of the {platform} platform on Gosselin's "
                               f"machine: a CORDIC processor per leg and for the platform, "
                               f"a one-word bus", platform)

    @functools.cached_property
    def scale(self):
        return dynamics_scale(self.platform)

    def build(self, width=None, fold=None):
        platform = self.platform
        return LegMachine(dynamics_graph(platform, self.scale),
                          **dynamics_format(platform, width or self.default_width),
                          tag_width=TAG_WIDTH)

    def width_of(self, dut):
        return dut.width

    def configuration(self, dut):
        processors = len(set(dut.plan.processor.values()))
        return (f"{len(dut.graph.ccms)} CCMs on {processors} processors, {dut.width}-bit data "
                f"(+{dut.formats['guard_bits']} inside), a one-word bus")

    def workload(self, dut, count, seed=0):
        platform = self.platform
        states = sample_states_within(platform, count, np.random.default_rng(seed))
        return Workload(_tagged_payloads(state_codes(platform, states, dut.width, self.scale),
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

    def __init__(self, name, platform="hexapod", iterations=SERVO_ITERATIONS):
        super().__init__(name, f"forward kinematics of the {platform} platform in a servo loop "
                               f"on Gosselin's machine, {iterations} Newton iterations a row",
                         platform)
        self.iterations = iterations

    def build(self, width=None, fold=None):
        return FkServo(self.platform, self.iterations, width=width or self.default_width,
                       timing="machine", tag_width=TAG_WIDTH)

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
        return Workload(_tagged_payloads(codes, count), {"poses": poses, "lengths": lengths})

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


DESIGNS = {d.name: d for d in (
    CordicDesign("cordic-pipelined", "pipelined"),
    CordicDesign("cordic-word-serial", "word_serial"),
    IkDesign("ik-best-pipelined", "best", "pipelined"),
    IkDesign("ik-best-word-serial", "best", "word_serial"),
    IkDesign("ik-paper-pipelined", "paper", "pipelined"),
    IkDesign("ik-paper-word-serial", "paper", "word_serial"),
    InertiaDesign("inertia-linear", "linear", default_fold=DEFAULT_FOLDS["linear"]),
    InertiaDesign("inertia-logdepth", "logdepth", default_fold=DEFAULT_FOLDS["logdepth"]),
    DynamicsDesign("dynamics-pipelined"),
    DynamicsDesign("dynamics-array", array=(6, "direct")),
    PlatformIkDesign("platform-ik-pipelined", "pipelined"),
    PlatformIkDesign("platform-ik-word-serial", "word_serial"),
    PlatformDynamicsDesign("platform-dynamics-machine"),
    PlatformFkDesign("platform-fk-machine"),
)}


def design(name):
    """The :class:`Design` called ``name``; ``ValueError`` naming the known ones otherwise."""
    try:
        return DESIGNS[name]
    except KeyError:
        raise ValueError(f"unknown design {name!r}; known: {', '.join(DESIGNS)}") from None
