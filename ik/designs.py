"""The PUMA IK family's top-level designs for the flows (:class:`~robohw.sim.design.Design`):
:class:`~robohw.taskgraph.pipeline.TaskGraphPipeline` of the best CCM graph and of the
reconstruction
of Lee & Chang's, on pipelined or word-serial CCMs."""

import numpy as np

from robohw.ik.accuracy import well_conditioned
from robohw.ik.codec import encode_poses, field_formats, payload_joint_angles, pose_inputs
from robohw.ik.puma_graph import GRAPHS, IK_WIDTHS, puma_format
from robohw.ik.reference import puma_ik
from robohw.robots import load_robot
from robohw.robots.kinematics import forward_kinematics
from robohw.robots.sampling import sample_joints
from robohw.sim.design import TAG_WIDTH, Design, Workload, tagged_payloads
from robohw.taskgraph.model import evaluate_model, output_codes, task_graph_outputs
from robohw.taskgraph.pipeline import MEMORY_ABOVE, TaskGraphPipeline

__all__ = ["IkDesign", "DESIGNS", "PIPELINED_IK_WIDTH"]

# Pipelined, 18 bits is the widest that fits an ECP5-85F at one pose per clock (24 bits wants
# ~105k LUT-sized cells of its 83.6k; docs/ik.md).
PIPELINED_IK_WIDTH = 18


class IkDesign(Design):
    family = "ik"
    error_unit = "rad"

    def __init__(self, name, graph, timing):
        label = "best" if graph == "best" else "reconstruction of Lee & Chang's"
        default = PIPELINED_IK_WIDTH if timing == "pipelined" else 24
        super().__init__(name, f"PUMA 560 inverse kinematics, {label} CCM graph, "
                               f"{timing.replace('_', '-')} CCMs", default,
                         tuple(sorted({16, default, 24})), IK_WIDTHS)
        self.graph, self.timing = graph, timing
        self.word_serial = timing == "word_serial"

    def hardware(self, robot, width, *, tag_width=TAG_WIDTH):
        """The pipeline of this design's graph for ``robot`` (a DH robot of the PUMA family) at
        ``width`` bits, a user tag of ``tag_width`` bits; pipelined, its long delay lines in
        memories (:data:`~robohw.taskgraph.pipeline.MEMORY_ABOVE`). The ``ik`` command's hardware
        backends build through it: what they simulate is what is synthesized."""
        memory = MEMORY_ABOVE if self.timing == "pipelined" else None
        return TaskGraphPipeline(GRAPHS[self.graph](robot), **puma_format(width),
                                 tag_width=tag_width, timing=self.timing, memory_above=memory)

    def build(self, width=None, fold=None):
        return self.hardware(load_robot(), width or self.default_width)

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
        codes = encode_poses(inputs, dut.width, dut.plan.frac_bits)
        return Workload(tagged_payloads(codes, len(q)), {"inputs": inputs, "pose": pose})

    def check(self, dut, workload, outputs):
        graph, width = dut.graph, dut.width
        _, valid, codes = evaluate_model(graph, workload.context["inputs"], **puma_format(width))
        equal = [o["unreachable"] for o in outputs] == (~valid).astype(int).tolist()
        for name, values in output_codes(graph, codes, width, dut.plan.guard_bits).items():
            equal &= [o[name] for o in outputs] == values.tolist()
        q_float, _ = puma_ik(load_robot(), workload.context["pose"], 1, 1, 1)
        got = payload_joint_angles(outputs, width)
        errors = np.abs(np.angle(np.exp(1j * (got - q_float)))).max(-1)
        return bool(equal), errors

    def model_outputs(self, dut, workload):
        return task_graph_outputs(dut, workload.context["inputs"], puma_format(dut.width))

    def structure(self, dut):
        # Shared data lines, as the paper counts them (the 1-bit branch lines come on top).
        return "buffer stages", sum(length for (source, _), length in
                                    dut.schedule.line_lengths.items()
                                    if source not in dut.graph.branches)

    def formats(self, dut):
        return field_formats(dut.width, dut.plan.frac_bits, dut.graph.branches)


DESIGNS = (
    IkDesign("ik-best-pipelined", "best", "pipelined"),
    IkDesign("ik-best-word-serial", "best", "word_serial"),
    IkDesign("ik-paper-pipelined", "paper", "pipelined"),
    IkDesign("ik-paper-word-serial", "paper", "word_serial"),
)
