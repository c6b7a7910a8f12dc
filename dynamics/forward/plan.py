"""Forward dynamics traced for hardware: the articulated-body algorithm in link frames
(:func:`~robohw.dynamics.forward.articulated_frames.articulated_body_steps`) over a robot's
constants, from its joints' cos and sin (CORDICs), rates and torques, every value's fixed-point
format from its proven range (:class:`~robohw.dynamics.forward.bounds.ForwardBounds`, from the
joints' velocity, torque and acceleration limits), a reciprocal and a reciprocal square root of each
joint's divisor. A state outside the limits is flagged (``in_bounds`` low), and a row whose
accelerations its checks cannot place within their limits too: neither is marked valid.

:class:`ArticulatedBodyPlan` is the plan a machine is built from and the bit-exact model
evaluates (:func:`robohw.dataflow.plan.model_codes`); its payloads are
:mod:`robohw.dynamics.inverse.codec`'s (``q``, ``qd``, ``tau`` in, ``qdd`` out).
"""

from robohw.dataflow.plan import TracedPlan
from robohw.dynamics.forward.articulated_frames import articulated_body_steps
from robohw.dynamics.forward.bounds import ForwardBounds
from robohw.dynamics.inverse.codec import position_inputs, state_field
from robohw.hw.checks import check_integer
from robohw.robots import hardware_robot
from robohw.robots.algebra import difference, product, total
from robohw.robots.loading import require_dynamics
from robohw.robots.magnitudes import values_origin

__all__ = ["ForwardPlan", "ArticulatedBodyPlan", "forward_inputs", "MIN_WIDTH", "MAX_WIDTH",
           "MAX_TRIG_WIDTH"]

MIN_WIDTH = 16
# Payload codes are numpy int64 (the model's inputs and the CSV files' codes).
MAX_WIDTH = 56
# The CORDIC's widest configuration (robohw.cordic.config.MAX_WIDTH).
MAX_TRIG_WIDTH = 40


def forward_inputs(plan, robot, bounds):
    """``(joints, qd, tau)``: the traced inputs of forward dynamics on ``plan`` (tracing) for
    ``robot`` with its :class:`~robohw.dynamics.forward.bounds.ForwardBounds` ``bounds``: each
    joint's position (:func:`~robohw.dynamics.inverse.codec.position_inputs`), rate and torque
    less its own terms, damping ``qd`` and Coulomb friction ``sign(qd)`` (the sign of ``qd``'s
    code: docs/accuracy.md), each list by joint; ``plan.input_joints`` names each input's
    joint."""
    qd, tau = [], []
    plan.input_joints = {}           # input node name -> its joint (1-based)
    joints = position_inputs(plan, robot)
    for k, joint in enumerate(robot.joints, start=1):
        v, limit = joint.velocity_limit, joint.torque_limit
        qd.append(plan.value_input(f"qd{k}", state_field("qd", k), -v, v))
        applied = plan.value_input(f"tau{k}", state_field("tau", k), -limit, limit)
        lost = []
        if joint.damping:
            lost.append(product(plan.tracer.const(joint.damping), qd[-1]))
        if joint.friction:
            lost.append(plan.sign_input(f"fc{k}", state_field("qd", k), joint.friction))
        with plan.tracer.cell("tau", None, k - 1):
            tau.append(difference(applied, total(lost)) if lost else applied)
            if lost:
                plan.tracer.bound([tau[-1]], bounds.tau[k - 1])
        plan.input_joints.update({name: k for name in (
            f"cos{k}", f"sin{k}", f"d{k}", f"qd{k}", f"tau{k}", f"fc{k}")})
    return joints, qd, tau


class ForwardPlan(TracedPlan):
    """Base of the forward-dynamics plans: the joint accelerations of a serial robot from its
    state and torques (:func:`forward_inputs`), traced by a subclass's :meth:`_trace`.

    Parameters
    ----------
    robot : :class:`robohw.robots.Robot` or str
        A robot with inertial data and every joint's ``velocity_limit``,
        ``acceleration_limit`` and ``torque_limit`` (its hardware form, or a robot file or
        shipped name). Damping and Coulomb friction are computed (friction by the sign of
        ``qd``'s code, as the inverse-dynamics engine's).
    width : int
        Bits of every datapath value, 16 to 56. Each value has its own fraction bits, as many
        as its proven range leaves.
    trig_width : int
        Bits of the joints' angles and of the CORDICs (default ``min(width, 40)``).

    Its cos and sin carry one fraction bit more than the CORDIC's default
    (:attr:`~robohw.dataflow.plan.TracedPlan.trig_integer_bits` 2), as the link-frame inverse
    dynamics' do. :attr:`formulation` names the algorithm in words.
    """
    trig_integer_bits = 2
    formulation = None

    def __init__(self, robot, *, width, trig_width=None):
        check_integer("width", width, minimum=MIN_WIDTH, maximum=MAX_WIDTH)
        trig_width = min(width, MAX_TRIG_WIDTH) if trig_width is None else trig_width
        check_integer("trig_width", trig_width, minimum=MIN_WIDTH,
                      maximum=min(width, MAX_TRIG_WIDTH))
        robot = hardware_robot(robot, terms=())
        require_dynamics(robot, "forward dynamics")
        self._robot = robot
        self.bounds = ForwardBounds(robot)
        super().__init__(width=width, fold=1, trig_width=trig_width)

    @property
    def robot(self):
        return self._robot

    @property
    def dof(self):
        return self._robot.dof

    def _values_origin(self, largest=True):
        return values_origin(self._robot, largest)


class ArticulatedBodyPlan(ForwardPlan):
    """The joint accelerations of a serial robot by the articulated-body algorithm
    (:func:`~robohw.dynamics.forward.articulated_frames.articulated_body_steps`), traced: the
    graph, every value's format and the schedule (parameters: :class:`ForwardPlan`'s)."""
    formulation = "the articulated-body algorithm"

    def _trace(self):
        robot, bounds = self._robot, self.bounds
        joints, qd, tau = forward_inputs(self, robot, bounds)
        qdd = articulated_body_steps(robot, joints, qd, tau, self.tracer, bounds)
        return {k: value for k, value in enumerate(qdd, start=1)}
