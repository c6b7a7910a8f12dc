"""Forward dynamics on the engine as a top-level design for the flows
(:class:`~robohw.sim.design.Design`): ``robohw sim``, ``export`` and ``synth`` of
``forward-dynamics`` (:class:`~robohw.dynamics.forward_engine.ForwardDynamicsEngine`), for the
PUMA 560 or any robot whose accelerations the analysis proves.

Its interval for a robot is
:func:`~robohw.dynamics.forward_engine.forward_interval`'s (the PUMA 560's
:data:`~robohw.dynamics.forward_engine.FORWARD_INTERVAL`); its width the narrowest of
:data:`~robohw.dynamics.forward_files.FORWARD_WIDTHS` whose proven bound is within
:data:`~robohw.dynamics.forward_files.FORWARD_BOUND_FRACTION` of every joint's acceleration
limit, else (the UR5) the narrowest with any proven bound, which the sidecar's accuracy states;
a robot with neither is refused in one line. Its errors are measured against the float64
articulated-body algorithm on the robot the hardware is generated from, as shares of each
joint's acceleration limit (the largest joint's), over the rows the machine marks valid.
"""

import numpy as np

from robohw.dataflow.plan import checked_model_codes, in_bounds
from robohw.dynamics.codec import (acceleration_codes, acceleration_field, acceleration_payloads,
                                    decode_accelerations, encode_forward, field_formats,
                                    state_field)
from robohw.dynamics.forward import articulated_body_accelerations
from robohw.dynamics.forward_engine import (FORWARD_INTERVAL, ForwardDynamicsEngine,
                                            forward_interval)
from robohw.dynamics.forward_files import FORWARD_BOUND_FRACTION, FORWARD_WIDTHS, plan_forward
from robohw.dynamics.forward_plan import MAX_WIDTH
from robohw.dynamics.reference import inverse_dynamics
from robohw.robots.sampling import sample_states
from robohw.sim.design import TAG_WIDTH, Design, Workload, tagged_payloads

__all__ = ["ForwardDesign", "FORWARD_WIDTH", "FORWARD_WORKLOAD_SHARE"]

# The PUMA 560's width: the narrowest of FORWARD_WIDTHS whose proven bound is within
# FORWARD_BOUND_FRACTION of its acceleration limits (docs/dynamics.md, "Forward dynamics").
FORWARD_WIDTH = 40
# The workload's accelerations are drawn within this share of their limits, so that few rows
# fall within a check's error bound of a limit (such rows are flagged, not measured).
FORWARD_WORKLOAD_SHARE = 0.9


class ForwardDesign(Design):
    """``forward-dynamics``: the joint accelerations of a serial robot on the engine; its fold
    is its initiation interval (``robohw sim --ii``)."""
    family = "dynamics"
    error_unit = "of the acceleration limit"
    takes_robot = True
    every_robot = False         # the Panda, the iiwa and the Stanford arm do not plan
    default_fold = FORWARD_INTERVAL
    fold_name = "ii"

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

    def width_of(self, dut):
        return dut.plan.width

    def progress_label(self, dut):
        return dut.progress_label()

    def configuration(self, dut):
        return f"N = {dut.plan.dof}, {dut.configuration()}"

    def structure(self, dut):
        return "multipliers", dut.program.machine.multipliers

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
        """``{field: {"codes": [low, high], "values": [low, high]}}``: the codes of each
        fixed-point input field that ``in_bounds`` accepts and their values."""
        plan, fracs = dut.plan, dut.plan.input_fracs
        return {field: {"codes": [low, high],
                        "values": [low * 2.0 ** -fracs[field], high * 2.0 ** -fracs[field]]}
                for field, (low, high) in plan.field_limits.items()}

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
