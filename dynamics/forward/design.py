"""Forward dynamics on the engine as a top-level design for the flows
(:class:`~robohw.sim.design.Design`): ``robohw sim``, ``export`` and ``synth`` of
``forward-dynamics`` (:class:`~robohw.dynamics.forward.engine.ForwardDynamicsEngine`), for the
PUMA 560 or any serial arm the certified model serves.

Its plan and width for a robot are the model's
(:func:`~robohw.dynamics.forward.files.certified_plan`: the narrowest width whose probe
certifies within :data:`~robohw.dynamics.forward.files.FORWARD_PROMISE`, the inertia matrix
solved unless the articulated-body algorithm is proven there), so the hardware's outputs are
the model's bit for bit; its interval
:func:`~robohw.dynamics.forward.engine.forward_interval`'s (the PUMA 560's
:data:`~robohw.dynamics.forward.engine.FORWARD_INTERVAL`). A row it marks valid (``in_bounds``
and ``checked``) is a candidate: it is valid once certified
(:mod:`~robohw.dynamics.forward.certificate`), as ``robohw forward-dynamics --backend rtl``
certifies it. Its errors are measured against the float64 articulated-body algorithm on the
robot the hardware is generated from, as shares of each joint's acceleration limit (the largest
joint's), over the rows valid so.
"""

import numpy as np

from robohw.dataflow.plan import checked_model_codes, in_bounds
from robohw.dynamics.forward.codec import (
    acceleration_codes,
    acceleration_field,
    acceleration_payloads,
    decode_accelerations,
    encode_forward,
)
from robohw.dynamics.forward.engine import FORWARD_INTERVAL, ForwardDynamicsEngine, forward_interval
from robohw.dynamics.forward.files import FORWARD_PROMISE, certificate_bounds, certified_plan
from robohw.dynamics.forward.plan import MAX_WIDTH, MIN_WIDTH
from robohw.dynamics.forward.reference import articulated_body_accelerations
from robohw.dynamics.inverse.codec import field_formats, state_field
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.engine.design import OnEngine
from robohw.robots.sampling import sample_states
from robohw.sim.design import TAG_WIDTH, Design, Workload, tagged_payloads
from robohw.sim.place_and_route import PlaceAndRoute

__all__ = ["ForwardDesign", "FORWARD_WIDTH", "FORWARD_WORKLOAD_SHARE", "DESIGNS"]

# The PUMA 560's width: the certified model's (certified_plan; tested).
FORWARD_WIDTH = 30
# The workload's accelerations are drawn within this share of their limits, so that few rows
# fall within a check's error bound of a limit (such rows are flagged, not measured).
FORWARD_WORKLOAD_SHARE = 0.9


class ForwardDesign(OnEngine, Design):
    """``forward-dynamics``: the joint accelerations of a serial robot on the engine; its fold
    is its initiation interval (``robohw sim --ii``). At a width other than its default, the
    plan is the one :func:`~robohw.dynamics.forward.files.certified_plan` takes at that
    width."""
    family = "dynamics"
    error_unit = "of the acceleration limit"
    takes_robot = True
    # Not among every robot's default designs (robots.md's widths, export --robot): its width
    # is the certified model's, searched by a probe, and its engine the largest we build.
    every_robot = False
    default_fold = FORWARD_INTERVAL

    def __init__(self, name, robot="puma560"):
        self.robot = robot
        super().__init__(name, self.summary_for(robot if isinstance(robot, str) else robot.name),
                         FORWARD_WIDTH, (FORWARD_WIDTH,), (MIN_WIDTH, MAX_WIDTH))

    def summary_for(self, robot_name):
        return (f"joint accelerations of {robot_name}, the certified model's formulation (the "
                f"inertia matrix solved, or the articulated-body algorithm where proven) "
                f"modulo-scheduled on multipliers, adders and reciprocal units")

    def for_robot(self, robot, label, digest, hardware=None):
        twin = super().for_robot(robot, label, digest, hardware)
        plan = certified_plan(twin.hardware_robot)      # refused in one line
        twin.default_width = plan.width
        twin.widths = (plan.width,)
        twin.default_fold = forward_interval(plan)
        return twin

    def build(self, width=None, fold=None):
        plan = certified_plan(self.hardware_robot, width or self.default_width)
        return ForwardDynamicsEngine.for_plan(plan, interval=fold or self.default_fold,
                                              tag_width=TAG_WIDTH)

    def _limits(self, dut):
        return np.array([j.acceleration_limit for j in dut.plan.robot.joints], dtype=float)

    def workload(self, dut, count, seed=0):
        robot = dut.plan.robot
        q, qd, qdd = sample_states(robot, count, np.random.default_rng(seed))
        tau = inverse_dynamics(robot, q, qd, FORWARD_WORKLOAD_SHARE * qdd)
        codes = encode_forward(dut.plan, q, qd, tau)
        return Workload(tagged_payloads(codes, count),
                        {"states": (q, qd, tau), "codes": codes})

    def _model(self, dut, workload):
        codes = workload.context["codes"]
        out, passed = checked_model_codes(dut.plan, codes)
        return out, in_bounds(dut.plan, codes), passed

    def model_outputs(self, dut, workload):
        out, inside, passed = self._model(dut, workload)
        return acceleration_payloads(out, in_bounds=inside, checked=passed)

    def check(self, dut, workload, outputs):
        """The errors of the rows the machine flags valid and the certificate certifies
        within :data:`~robohw.dynamics.forward.files.FORWARD_PROMISE` (0 on the others)."""
        equal = self.equals_model(dut, workload, outputs)
        got = decode_accelerations(dut.plan, acceleration_codes(dut.plan, outputs))
        states = workload.context["states"]
        reference = articulated_body_accelerations(dut.plan.robot, *states)
        flagged = np.array([o["in_bounds"] and o["checked"] for o in outputs], dtype=bool)
        bounds = certificate_bounds(dut.plan.robot, flagged, *states, got)
        valid = flagged & (bounds <= FORWARD_PROMISE * self._limits(dut)).all(-1)
        shares = (np.abs(got - reference) / self._limits(dut)).max(-1)
        return equal, np.where(valid, shares, 0.0)

    def accuracy(self, dut):
        """The a-priori bound of each acceleration where the plan proves one; ``None`` for a
        plan whose rows are certified one by one (the solved inertia matrix)."""
        if not dut.plan.proven:
            return None
        return {acceleration_field(k): bound for k, bound in dut.plan.output_bounds.items()}

    def error_bound(self, dut, workload):
        """The largest share of an acceleration limit a valid row's error may reach: the proven
        plan's bound, else the certificate's promise (:meth:`check` holds each row to it)."""
        if not dut.plan.proven:
            return FORWARD_PROMISE
        bounds = np.array([dut.plan.output_bounds[k] for k in range(1, dut.plan.dof + 1)])
        return float((bounds / self._limits(dut)).max())

    def formats(self, dut):
        return field_formats(dut.plan, "in_bounds", ("qd", "tau"), acceleration_field,
                             ("checked",))

    def checked_limits(self, dut):
        """The codes of each fixed-point input field that ``in_bounds`` accepts and their
        values (:attr:`robohw.dataflow.plan.TracedPlan.checked_limits`)."""
        return dut.plan.checked_limits

    def sign_constants(self, dut):
        """``{input: {...}}``: each joint's Coulomb friction as the machine holds it, taken off
        its torque by the sign of its velocity's code, or ``None`` without friction."""
        plan = dut.plan
        if not plan.sign_inputs:
            return None
        return {name: {"term": "Coulomb friction",
                       "value": plan.robot.joints[plan.input_joints[name] - 1].friction,
                       "code": sign.code, "format": f"fixed({plan.width}, "
                                                   f"{plan.traced_inputs[name]})",
                       "selected_by": sign.field,
                       "taken_from": state_field("tau", plan.input_joints[name])}
                for name, sign in plan.sign_inputs.items()}


# The articulated-body engine the design built before (II 144): HeAP's placement left router2
# with about 20,000 overused wires from its 6th iteration on, with or without a target; the
# static placer's routed without one (with a 100 MHz target, router2's timing rip-up kept about
# 300 wires overused at 75 minutes), as the solved engine's does flat and by locality
# (docs/notes/2026-12-forward-dynamics-hardware.md).
_STATIC_ROUTER2 = PlaceAndRoute(
    placer="static", router="router2",
    reason="HeAP's placement of the forward engine did not route (router2 stalled at about "
           "20,000 overused wires); the static placer's routes without a target clock, not "
           "with 100 MHz's rip-up (docs/notes/2026-12-forward-dynamics-hardware.md)")

# The registered forward-dynamics designs, with their placement.
DESIGNS = (ForwardDesign("forward-dynamics").placed_by(_STATIC_ROUTER2),)
