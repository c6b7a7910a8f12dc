"""The inertia family's top-level designs for the flows (:class:`~robohw.sim.design.Design`):
:class:`~robohw.systolic.LinearInertiaArray` and :class:`~robohw.systolic.LogDepthInertiaArray`
for the PUMA 560."""

import functools
import pathlib

import numpy as np

from robohw.dataflow.component import configuration_line
from robohw.dataflow.folding import fold_for_tiles
from robohw.robots.loading import load_robot
from robohw.robots.sampling import sample_joints, within_a_turn
from robohw.robots.toml_file import inertia_digest
from robohw.sim.design import TAG_WIDTH, Design, Workload, tagged_payloads
from robohw.sim.measured_width import measured_width
from robohw.sim.place_and_route import PlaceAndRoute
from robohw.sim.robot_table import measured_table
from robohw.systolic.array import MIN_WIDTH
from robohw.systolic.arrays import ARRAYS, DEFAULT_FOLDS, PLANS
from robohw.systolic.codec import (
    decode_outputs,
    encode_joints,
    field_formats,
    inertia_field,
    output_codes,
    output_payloads,
)
from robohw.systolic.model import MAX_WIDTH, model_inertia, model_outputs
from robohw.systolic.reference import jacobian_inertia

__all__ = ["InertiaDesign", "LinearInertiaDesign", "LogDepthInertiaDesign", "DESIGN_CLASSES",
           "DESIGNS", "INERTIA_WIDTH", "WIDTHS_FILE", "robot_widths", "inertia_digest"]

# The inertia arrays at 18 bits: one 18 x 18 DSP tile per shared product (24 bits takes four
# and its placement on an ECP5-85F did not finish routing), at 7.1e-5 of max |H| from float64
# (24 bits: 9.5e-7).
INERTIA_WIDTH = 18


# Each shipped arm's default widths, measured, by inertia_digest (robohw.sim.robot_table: a
# row whose robot's file changed is not used).
WIDTHS_FILE = pathlib.Path(__file__).with_name("robot_widths.toml")


def robot_widths():
    """``{inertia_digest: {array: width}}``: the shipped arms' default widths
    (:data:`WIDTHS_FILE`), the narrowest at which the bit-exact model is within 1e-4 of max
    |H| over 100,000 states within the limits."""
    return measured_table(WIDTHS_FILE, inertia_digest)


@functools.cache
def _own_digest():
    """The :func:`inertia_digest` of the PUMA 560, the arrays' own robot."""
    return inertia_digest(load_robot("puma560"))


class InertiaDesign(Design):
    family = "inertia"
    error_unit = "of max abs(H)"

    takes_robot = True

    array = None            # a subclass's: its name in robohw.systolic.arrays

    def __init__(self, name, default_fold, robot="puma560"):
        self.robot, self.default_fold = robot, default_fold
        super().__init__(name, self.summary_for(robot if isinstance(robot, str) else robot.name),
                         INERTIA_WIDTH, (INERTIA_WIDTH,), (MIN_WIDTH, MAX_WIDTH))

    def summary_for(self, robot_name):
        kind = "O(N) linear systolic array" if self.array == "linear" else \
            "O(log2 N) recursive-doubling array"
        return f"inertia matrix of {robot_name}, {kind}"

    def for_robot(self, robot, label, digest, hardware=None, width=None):
        """The design for ``robot``: its default width ``width``, else the narrowest that keeps
        the model within 1e-4 of max |H| (:meth:`measured_width`), its default fold the
        smallest from the registry's at which the shared products fit the ECP5-85F's DSP
        tiles at that width (:func:`~robohw.dataflow.folding.fold_for_tiles`); exported at that
        width alone."""
        twin = super().for_robot(robot, label, digest, hardware)
        width = width or twin.measured_width(robot)
        twin.default_width, twin.widths = width, (width,)
        twin.default_fold = fold_for_tiles(twin.plan(twin.hardware_robot, width),
                                           least=self.default_fold)
        return twin

    def measured_width(self, robot):
        """The narrowest width that keeps ``robot``'s model within 1e-4 of max |H|:
        :data:`INERTIA_WIDTH` for the PUMA 560, a shipped arm's from :func:`robot_widths` (by
        :func:`inertia_digest`), else measured (:func:`~robohw.sim.measured_width.measured_width`,
        from :data:`INERTIA_WIDTH` up)."""
        digest = inertia_digest(robot)
        if digest == _own_digest():
            return INERTIA_WIDTH
        measured = robot_widths().get(digest, {})
        if self.array in measured:
            return measured[self.array]
        return measured_width(self, robot, digest, INERTIA_WIDTH).width

    def sample_error(self, robot, width, count, seed):
        """The largest error of the model at ``width`` bits against the float64 reference over
        ``count`` configurations within ``robot``'s limits (drawn with ``seed``), a share of
        the largest entry among them."""
        plan = self.plan(self.hardware_of(robot), width)
        q = within_a_turn(plan.robot, sample_joints(plan.robot, count,
                                                    np.random.default_rng(seed)))
        reference = jacobian_inertia(robot, q)
        return np.abs(model_inertia(plan, q) - reference).max() / np.abs(reference).max()

    def plan(self, robot, width):
        """The array's plan for ``robot`` at ``width`` bits, as the bit-exact model takes it
        (the same bits at every fold)."""
        return PLANS[self.array](robot, width=width)

    def hardware(self, robot, width, fold, *, tag_width=TAG_WIDTH):
        """The array for ``robot`` at ``width`` bits folded by ``fold``, a user tag of
        ``tag_width`` bits; the ``inertia`` command's hardware backends build through it."""
        return ARRAYS[self.array](robot, width=width, fold=fold, tag_width=tag_width)

    def build(self, width=None, fold=None):
        return self.hardware(self.hardware_robot, width or self.default_width,
                             fold or self.default_fold)

    def width_of(self, dut):
        return dut.plan.width

    def configuration(self, dut):
        return configuration_line(dut)

    def workload(self, dut, count, seed=0):
        q = sample_joints(dut.plan.robot, count, np.random.default_rng(seed))
        codes = encode_joints(dut.plan, q)
        return Workload(tagged_payloads(codes, count), {"q": q, "codes": codes})

    def check(self, dut, workload, outputs):
        expected = model_outputs(dut.plan, workload.context["codes"])
        codes = output_codes(dut.plan, outputs)
        equal = all(codes[key].tolist() == v.tolist() for key, v in expected.items())
        got = decode_outputs(dut.plan, codes)
        reference = jacobian_inertia(self.reference_robot(dut), workload.context["q"])
        return equal, _share(np.abs(got - reference).max((1, 2)), reference)

    def accuracy(self, dut):
        return {inertia_field(j, i): bound for (j, i), bound in dut.plan.output_bounds.items()}

    def error_bound(self, dut, workload):
        reference = jacobian_inertia(self.reference_robot(dut), workload.context["q"])
        return _share(max(dut.plan.output_bounds.values()), reference) + self.snapped_share

    def model_outputs(self, dut, workload):
        return output_payloads(model_outputs(dut.plan, workload.context["codes"]))

    def structure(self, dut):
        return "processing elements", dut.resources()["processing_elements"]

    def formats(self, dut):
        return field_formats(dut.plan)


class LinearInertiaDesign(InertiaDesign):
    """The O(N) linear systolic array (:class:`~robohw.systolic.LinearInertiaArray`, Table 1)."""
    array = "linear"


class LogDepthInertiaDesign(InertiaDesign):
    """The O(log2 N) recursive-doubling array (:class:`~robohw.systolic.LogDepthInertiaArray`,
    Table 2)."""
    array = "logdepth"


# Each array's design class, by its name (the inertia command's --array).
DESIGN_CLASSES = {"linear": LinearInertiaDesign, "logdepth": LogDepthInertiaDesign}

DESIGNS = (
    LinearInertiaDesign("inertia-linear", default_fold=DEFAULT_FOLDS["linear"]).placed_by(
        PlaceAndRoute(placer="static",
                      reason="HeAP's placement does not route; the static placer's routes "
                             "without a target clock, not in the time limit with 100 MHz's "
                             "rip-up (docs/inertia.md)")),
    LogDepthInertiaDesign("inertia-logdepth", default_fold=DEFAULT_FOLDS["logdepth"]).placed_by(
        PlaceAndRoute(reason="router1 without a target routes it; the static placer routed "
                             "for 100 MHz does not finish its timing rip-up in the time limit "
                             "(docs/inertia.md)")),
)


def _share(errors, reference):
    """``errors`` as shares of the largest ``|H|`` of ``reference``; absolute where every
    matrix is 0 (a robot of massless links and no armature: no share is defined)."""
    largest = np.abs(reference).max() if np.size(reference) else 0.0
    return np.asarray(errors) / largest if largest else np.asarray(errors, dtype=np.float64)
