"""The gradient of inverse dynamics on the engine as a top-level design for the flows
(:class:`~robohw.sim.design.Design`): ``robohw sim``, ``export`` and ``synth`` of
``dynamics-gradient`` (:class:`~robohw.dynamics.gradient.engine.GradientEngine`), for the PUMA
560 or any serial arm with ``--robot``.

Its plan and width for a robot are the model's
(:func:`~robohw.dynamics.gradient.accuracy.gradient_plan`: the narrowest width whose every
entry's proven bound is within
:data:`~robohw.dynamics.gradient.accuracy.GRADIENT_FRACTION` of its matrix's scale), so the
hardware's outputs are the model's bit for bit; its interval
:func:`~robohw.dynamics.gradient.engine.gradient_interval`'s. Its errors are measured against
the float64 reference (:mod:`robohw.dynamics.gradient.reference`) on the robot the user gave
(a URDF arm's chain), as shares of each matrix's scale, over the rows it flags ``in_bounds``.
"""

import numpy as np

from robohw.dynamics.gradient.accuracy import gradient_plan, gradient_promise, gradient_scales
from robohw.dynamics.gradient.codec import decode_gradient, gradient_codes, gradient_payloads
from robohw.dynamics.gradient.engine import GRADIENT_INTERVAL, GradientEngine, gradient_interval
from robohw.dynamics.gradient.reference import inverse_dynamics_gradient
from robohw.dynamics.inverse.codec import encode_states, field_formats
from robohw.dynamics.inverse.model import model_outputs
from robohw.dynamics.inverse.pipeline import MAX_WIDTH, MIN_WIDTH
from robohw.engine.design import OnEngine
from robohw.robots.sampling import sample_states
from robohw.sim.design import TAG_WIDTH, Design, Workload, tagged_payloads
from robohw.sim.place_and_route import PlaceAndRoute

__all__ = ["GradientDesign", "GRADIENT_WIDTH", "DESIGNS"]

# The PUMA 560's width: the model's (gradient_width; tested).
GRADIENT_WIDTH = 21


class GradientDesign(OnEngine, Design):
    """``dynamics-gradient``: ``dtau/dq`` and ``dtau/dqd`` of a serial robot on the engine; its
    fold is its initiation interval (``robohw sim --ii``). At a width other than its default,
    the plan is the same algorithm at that width."""
    family = "dynamics"
    error_unit = "of the matrix's scale"
    takes_robot = True
    # Not among every robot's default designs (robots.md's widths, export --robot): the
    # largest engine we build, placed for the arms the results page names.
    every_robot = False
    default_fold = GRADIENT_INTERVAL

    def __init__(self, name, robot="puma560"):
        self.robot = robot
        super().__init__(name, self.summary_for(robot if isinstance(robot, str) else robot.name),
                         GRADIENT_WIDTH, (GRADIENT_WIDTH,), (MIN_WIDTH, MAX_WIDTH))

    def summary_for(self, robot_name):
        return (f"dtau/dq and dtau/dqd of {robot_name} by forward mode through the link-frame "
                f"recursion, modulo-scheduled by locality on multipliers and adders")

    def for_robot(self, robot, label, digest, hardware=None):
        twin = super().for_robot(robot, label, digest, hardware)
        plan = gradient_plan(twin.hardware_robot)
        twin.default_width = plan.width
        twin.widths = (plan.width,)
        twin.default_fold = gradient_interval(plan)
        return twin

    def build(self, width=None, fold=None):
        plan = gradient_plan(self.hardware_robot, width or self.default_width)
        return GradientEngine(plan, interval=fold or self.default_fold, tag_width=TAG_WIDTH)

    def workload(self, dut, count, seed=0):
        q, qd, qdd = sample_states(dut.plan.robot, count, np.random.default_rng(seed))
        codes = encode_states(dut.plan, q, qd, qdd)
        return Workload(tagged_payloads(codes, count), {"states": (q, qd, qdd), "codes": codes})

    def model_outputs(self, dut, workload):
        out, inside = model_outputs(dut.plan, workload.context["codes"])
        return gradient_payloads(out, in_bounds=inside)

    def check(self, dut, workload, outputs):
        """Whether the outputs are the model's, and each row's largest error over each
        matrix's scale (0 on a row not ``in_bounds``)."""
        equal = self.equals_model(dut, workload, outputs)
        got = decode_gradient(dut.plan, gradient_codes(dut.plan, outputs))
        reference = inverse_dynamics_gradient(self.reference_robot(dut),
                                              *workload.context["states"])
        inside = np.array([o["in_bounds"] for o in outputs], dtype=bool)
        shares = np.max([np.abs(mine - theirs).max((-2, -1)) / scale for mine, theirs, scale
                         in zip(got, reference, gradient_scales(dut.plan.robot))], axis=0)
        return equal, np.where(inside, shares, 0.0)

    def accuracy(self, dut):
        """Each entry's proven bound (N m per rad, per rad/s)."""
        return dict(gradient_promise(dut.plan).bounds)

    def error_bound(self, dut, workload):
        """The largest of the entries' bounds over their matrix's scale."""
        return gradient_promise(dut.plan).fraction

    def formats(self, dut):
        return field_formats(dut.plan, "in_bounds", output=lambda key: key)

    def checked_limits(self, dut):
        """The codes of each fixed-point input field that ``in_bounds`` accepts and their
        values (:attr:`robohw.dataflow.plan.TracedPlan.checked_limits`)."""
        return dut.plan.checked_limits


# Placed as the forward engine is: the static placer and router2, no target clock (HeAP's
# placement of the large engines did not route; docs/notes/2026-12-forward-dynamics-hardware.md).
_STATIC_ROUTER2 = PlaceAndRoute(
    placer="static", router="router2",
    reason="the largest engines route with the static placer and router2, without a target "
           "clock (docs/notes/2026-12-forward-dynamics-hardware.md)")

# The registered gradient designs, with their placement.
DESIGNS = (GradientDesign("dynamics-gradient").placed_by(_STATIC_ROUTER2),)
