"""Forward dynamics on the engine as a top-level design for the flows
(:class:`~robohw.sim.design.Design`): ``robohw sim``, ``export`` and ``synth`` of
``forward-dynamics`` (:class:`~robohw.dynamics.forward.engine.ForwardDynamicsEngine`), for the
PUMA 560 or any robot whose accelerations the analysis proves.

Its interval for a robot is
:func:`~robohw.dynamics.forward.engine.forward_interval`'s (the PUMA 560's
:data:`~robohw.dynamics.forward.engine.FORWARD_INTERVAL`); its width the narrowest of
:data:`~robohw.dynamics.forward.files.FORWARD_WIDTHS` whose proven bound is within
:data:`~robohw.dynamics.forward.files.FORWARD_BOUND_FRACTION` of every joint's acceleration
limit, else (the UR5) the narrowest with any proven bound, which the sidecar's accuracy states;
a robot with neither is refused in one line. Its errors are measured against the float64
articulated-body algorithm on the robot the hardware is generated from, as shares of each
joint's acceleration limit (the largest joint's), over the rows the machine marks valid.
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
from robohw.dynamics.forward.files import FORWARD_BOUND_FRACTION, FORWARD_WIDTHS, plan_forward
from robohw.dynamics.forward.plan import MAX_WIDTH
from robohw.dynamics.forward.reference import articulated_body_accelerations
from robohw.dynamics.inverse.codec import field_formats, state_field
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.engine.design import OnEngine
from robohw.robots.sampling import sample_states
from robohw.sim.design import TAG_WIDTH, Design, Workload, tagged_payloads
from robohw.sim.place_and_route import PlaceAndRoute

__all__ = ["ForwardDesign", "FORWARD_WIDTH", "FORWARD_WORKLOAD_SHARE", "DESIGNS"]

# The PUMA 560's width: the narrowest of FORWARD_WIDTHS whose proven bound is within
# FORWARD_BOUND_FRACTION of its acceleration limits (docs/dynamics.md, "Forward dynamics").
FORWARD_WIDTH = 40
# The workload's accelerations are drawn within this share of their limits, so that few rows
# fall within a check's error bound of a limit (such rows are flagged, not measured).
FORWARD_WORKLOAD_SHARE = 0.9


class ForwardDesign(OnEngine, Design):
    """``forward-dynamics``: the joint accelerations of a serial robot on the engine; its fold
    is its initiation interval (``robohw sim --ii``)."""
    family = "dynamics"
    error_unit = "of the acceleration limit"
    takes_robot = True
    every_robot = False         # the Panda, the iiwa and the Stanford arm do not plan
    default_fold = FORWARD_INTERVAL

    def __init__(self, name, robot="puma560"):
        self.robot = robot
        super().__init__(name, self.summary_for(robot if isinstance(robot, str) else robot.name),
                         FORWARD_WIDTH, (FORWARD_WIDTH,), (FORWARD_WIDTHS[0], MAX_WIDTH))

    def summary_for(self, robot_name):
        return (f"joint accelerations of {robot_name}, the articulated-body algorithm "
                f"modulo-scheduled on multipliers, adders and reciprocal units")

    def for_robot(self, robot, label, digest, hardware=None):
        twin = super().for_robot(robot, label, digest, hardware)
        try:
            plan = plan_forward(twin.hardware_robot, None, FORWARD_BOUND_FRACTION)
        except ValueError:
            plan = plan_forward(twin.hardware_robot, None, None)    # refused in one line
        twin.default_width = plan.width
        twin.widths = (plan.width,)
        twin.default_fold = forward_interval(plan)
        return twin

    def build(self, width=None, fold=None):
        return ForwardDynamicsEngine(self.hardware_robot, width=width or self.default_width,
                                     interval=fold or self.default_fold, tag_width=TAG_WIDTH)

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
        equal = self.equals_model(dut, workload, outputs)
        got = decode_accelerations(dut.plan, acceleration_codes(dut.plan, outputs))
        reference = articulated_body_accelerations(dut.plan.robot, *workload.context["states"])
        valid = np.array([o["in_bounds"] and o["checked"] for o in outputs], dtype=bool)
        shares = (np.abs(got - reference) / self._limits(dut)).max(-1)
        return equal, np.where(valid, shares, 0.0)

    def accuracy(self, dut):
        return {acceleration_field(k): bound for k, bound in dut.plan.output_bounds.items()}

    def error_bound(self, dut, workload):
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


# The forward engine at II 144: HeAP's placement left router2 with about 20,000 overused wires
# from its 6th iteration on, with or without a target; the static placer's routed without one
# (with a 100 MHz target, router2's timing rip-up kept about 300 wires overused at 75 minutes)
# (docs/notes/2026-12-forward-dynamics-hardware.md).
_STATIC_ROUTER2 = PlaceAndRoute(
    placer="static", router="router2",
    reason="HeAP's placement does not route (router2 stalls at about 20,000 overused wires); "
           "the static placer's routes without a target clock, not with 100 MHz's rip-up "
           "(docs/notes/2026-12-forward-dynamics-hardware.md)")

# The registered forward-dynamics designs, with their placement.
DESIGNS = (ForwardDesign("forward-dynamics").placed_by(_STATIC_ROUTER2),)
