"""The inverse-dynamics family's top-level designs for the flows
(:class:`~robohw.sim.design.Design`): :class:`~robohw.dynamics.NewtonEulerPipeline`, Lee &
Chang's processor array (:class:`~robohw.dynamics.array.NewtonEulerArray`) and the
modulo-scheduled engine (:class:`~robohw.dynamics.engine.NewtonEulerEngine`) for the PUMA
560."""

import numpy as np

from robohw.dataflow.component import configuration_line
from robohw.dataflow.folding import fold_for_tiles
from robohw.dynamics.accuracy import BOUND_FRACTION, accuracy_promise
from robohw.dynamics.array import NewtonEulerArray
from robohw.dynamics.array_plan import ArrayPlan
from robohw.dynamics.engine import ENGINE_INTERVAL, NewtonEulerEngine, ScanPlan
from robohw.dataflow.states import (decode_torques, encode_states, field_formats, torque_codes,
                                    torque_field, torque_payloads)
from robohw.dynamics.model import model_outputs as model_outputs_dynamics
from robohw.dynamics.pipeline import MAX_WIDTH, MIN_WIDTH, NewtonEulerPipeline, NewtonEulerPlan
from robohw.dynamics.reference import inverse_dynamics
from robohw.robots.sampling import sample_states
from robohw.sim.design import TAG_WIDTH, Design, Workload, tagged_payloads
from robohw.sim.place_and_route import PlaceAndRoute

__all__ = ["DynamicsDesign", "DESIGNS", "DYNAMICS_WIDTH", "DYNAMICS_FOLD", "ENGINE_WIDTH"]

# The Newton-Euler pipeline at 18 bits, folded by 6: 98 shared 18 x 18 products of the PUMA
# 560's 586 (the ECP5-85F has 156 tiles), at 3e-4 of max |tau| (24 bits: 5e-6).
DYNAMICS_WIDTH = 18
DYNAMICS_FOLD = 6
# The engine at 20 bits: the narrowest whose model is within 1e-4 of max |tau| on the PUMA 560
# (8.8e-5 over 100,000 states; 18 bits: 3.5e-4), each product one DSP tile and the fabric's
# partial products (robohw.hw.multiplier.split_product).
ENGINE_WIDTH = 20


class DynamicsDesign(Design):
    """The Newton-Euler pipeline (``array=None``), Lee & Chang's processor array
    (``array=(processors, network)``) or, with ``engine``, the modulo-scheduled engine (its
    fold is its initiation interval, cycles per state)."""
    family = "dynamics"
    error_unit = "of max abs(tau)"

    takes_robot = True

    def __init__(self, name, robot="puma560", array=None, *, engine=False):
        self.robot, self.array, self.engine = robot, array, engine
        width, widths = DYNAMICS_WIDTH, (18, 24)
        if engine:
            self.default_fold, self.fold_name = ENGINE_INTERVAL, "ii"
            width, widths = ENGINE_WIDTH, (ENGINE_WIDTH, 24)
        elif array is None:
            self.default_fold = DYNAMICS_FOLD
        super().__init__(name, self.summary_for(robot if isinstance(robot, str) else robot.name),
                         width, widths, (MIN_WIDTH, MAX_WIDTH))

    def summary_for(self, robot_name):
        if self.engine:
            return (f"joint torques of {robot_name}, Newton-Euler modulo-scheduled on "
                    f"multipliers and adders over rotating register files")
        if self.array is None:
            return (f"joint torques of {robot_name}, Newton-Euler with recursive-doubling "
                    f"scans, fully pipelined")
        return (f"joint torques of {robot_name}, Lee & Chang's array of {self.array[0]} "
                f"elements, {self.array[1]} network")

    def for_robot(self, robot, label, digest):
        """The design for ``robot``: the array has one element per joint, as the PUMA's six;
        the default width is the narrowest from the design's own (:data:`DYNAMICS_WIDTH`,
        the engine's :data:`ENGINE_WIDTH`) whose proven bound
        meets :data:`~robohw.dynamics.accuracy.BOUND_FRACTION` of the largest torque (the
        hardware's refusal rule; for the shipped arms also the narrowest whose model is within
        1e-4 of max |tau| over 100,000 states, docs/robots.md), and it is exported at that
        width and at 24; the pipeline's fold is the smallest from the registry's at which its
        shared products fit the ECP5-85F's DSP tiles at that width; the engine's interval
        stays :data:`~robohw.dynamics.engine.ENGINE_INTERVAL` (its units scale with the
        robot)."""
        twin = super().for_robot(robot, label, digest)
        if twin.array is not None:
            twin.array = (robot.dof, twin.array[1])
            twin.summary = twin.summary_for(robot.name)
        low, high = twin.width_range
        if twin.engine:
            def plan(w):
                return ScanPlan(robot, width=w, bound_fraction=None)
        elif twin.array is None:
            def plan(w):
                return NewtonEulerPlan(robot, width=w, bound_fraction=None)
        else:
            def plan(w):
                return ArrayPlan(robot, processors=robot.dof, width=w, bound_fraction=None)
        twin.default_width = next(
            (w for w in range(self.default_width, high + 1)
             if accuracy_promise(plan(w)).fraction <= BOUND_FRACTION), high)
        twin.widths = tuple(sorted({twin.default_width, max(24, twin.default_width)}))
        if twin.array is None and not twin.engine:   # the fold whose products fit the tiles
            twin.default_fold = fold_for_tiles(plan(twin.default_width),
                                               least=self.default_fold)
        return twin

    def build(self, width=None, fold=None):
        width = width or self.default_width
        if self.engine:
            return NewtonEulerEngine(self.robot, width=width, interval=fold or self.default_fold,
                                     tag_width=TAG_WIDTH)
        if self.array is None:
            return NewtonEulerPipeline(self.robot, width=width, fold=fold or self.default_fold,
                                       tag_width=TAG_WIDTH)
        processors, network = self.array
        return NewtonEulerArray(self.robot, processors=processors, network=network,
                                width=width, tag_width=TAG_WIDTH)

    def width_of(self, dut):
        return dut.plan.width

    def configuration(self, dut):
        if self.engine:
            machine, program = dut.program.machine, dut.program
            return (f"N = {dut.plan.dof}, II = {machine.interval}, {machine.multipliers} "
                    f"multipliers ({machine.multiplier_latency} cycles), {machine.adders} "
                    f"adders ({machine.adder_latency}), {machine.loaders} loaders, "
                    f"{machine.cordics} CORDICs ({machine.trig_latency}), {dut.plan.width}-bit "
                    f"datapath, {len(program.files)} register files of "
                    f"{sum(program.depth.values())} words, {program.connections()} write "
                    f"multiplexer inputs")
        if self.array is None:
            return configuration_line(dut, f"{dut.plan.cordic.width}-bit CORDICs, ")
        plan = dut.plan
        return (f"N = {plan.dof}, {plan.processors} elements, {plan.network.name} network, "
                f"{plan.width}-bit datapath, multiplier {plan.multiplier_latency} and adder "
                f"{plan.adder_latency} cycles, {plan.program_cycles}-cycle program")

    def workload(self, dut, count, seed=0):
        q, qd, qdd = sample_states(dut.plan.robot, count, np.random.default_rng(seed))
        codes = encode_states(dut.plan, q, qd, qdd)
        return Workload(tagged_payloads(codes, count), {"states": (q, qd, qdd), "codes": codes})

    def check(self, dut, workload, outputs):
        equal = self.equals_model(dut, workload, outputs)
        got = decode_torques(dut.plan, torque_codes(dut.plan, outputs))
        reference = inverse_dynamics(self.reference_robot(dut), *workload.context["states"])
        errors = np.abs(got - reference).max(-1) / np.abs(reference).max()
        return equal, errors

    def accuracy(self, dut):
        return {torque_field(k): bound for k, bound in enumerate(dut.plan.accuracy.bounds, 1)}

    def error_bound(self, dut, workload):
        reference = inverse_dynamics(self.reference_robot(dut), *workload.context["states"])
        return dut.plan.accuracy.bound / np.abs(reference).max() + self.snapped_share

    def model_outputs(self, dut, workload):
        out, inside = model_outputs_dynamics(dut.plan, workload.context["codes"])
        return torque_payloads(out, in_bounds=inside)

    def structure(self, dut):
        if self.engine:
            return "multipliers", dut.program.machine.multipliers
        if self.array is not None:
            return "processing elements", dut.plan.processors
        return "multipliers", dut.resources()["multipliers"]

    def formats(self, dut):
        return field_formats(dut.plan, "in_bounds")


# router2 finishes the congested dynamics designs where router1 stalls (docs/dynamics.md).
_ROUTER2_FOR_100 = PlaceAndRoute(router="router2", target_mhz=100,
                                 reason="router1 stalled on its congestion; router2 routed for "
                                        "100 MHz reached 103.6 MHz (docs/dynamics.md)")

DESIGNS = (
    DynamicsDesign("dynamics-pipelined").placed_by(
        _ROUTER2_FOR_100, unplaced="does not route on the ECP5-85F at any fold tried (6 to 48) "
                                   "with any placer or router: docs/dynamics.md"),
    DynamicsDesign("dynamics-array", array=(6, "direct")).placed_by(_ROUTER2_FOR_100),
    DynamicsDesign("dynamics-engine", engine=True).placed_by(_ROUTER2_FOR_100),
)
