"""The Newton-Euler inverse dynamics as one fully pipelined datapath: one torque vector per clock.

Lee & Chang's base-coordinate steps (15)-(31)
(:func:`robohw.dynamics.inverse.reference.base_coordinate_steps`) are traced over the robot's
constants from the joints' cos and sin (pipelined CORDICs), rates and accelerations, every
recurrence a recursive-doubling scan (Kogge-Stone: ``ceil(log2 K)`` levels for ``K`` elements), so
the depth grows with ``log2 N``. Every value's fixed-point format comes
from its proven range (:class:`robohw.dynamics.inverse.bounds.DynamicsBounds`, from the joints'
velocity and acceleration limits); a state outside them leaves the pipeline with ``in_bounds``
low.
"""

from robohw.dataflow.component import TracedPipeline
from robohw.dataflow.plan import TracedPlan
from robohw.dynamics.inverse.accuracy import (
    BOUND_FRACTION,
    accuracy_promise,
    check_accuracy,
    check_bound_fraction,
)
from robohw.dynamics.inverse.bounds import DynamicsBounds
from robohw.dynamics.inverse.codec import position_inputs, state_field, state_fields, torque_field
from robohw.dynamics.inverse.reference import base_coordinate_steps
from robohw.dynamics.inverse.scans import doubling_schedule, run_schedule
from robohw.hw.checks import check_integer
from robohw.robots import hardware_robot
from robohw.robots.algebra import product, total
from robohw.robots.loading import require_dynamics
from robohw.robots.magnitudes import values_origin

__all__ = ["NewtonEulerPlan", "NewtonEulerPipeline", "MIN_WIDTH", "MAX_WIDTH", "MAX_TRIG_WIDTH"]

MIN_WIDTH = 16
# Payload codes are numpy int64 (the model's inputs and the CSV files' codes).
MAX_WIDTH = 56
# The CORDIC's widest configuration (robohw.cordic.config.MAX_WIDTH: its bit-exact model runs in
# int64); a wider datapath takes cos and sin at this width.
MAX_TRIG_WIDTH = 40


class NewtonEulerPlan(TracedPlan):
    """What :class:`NewtonEulerPipeline` is built from: the traced equations, every value's
    format and the schedule (:mod:`robohw.dynamics.inverse.model` evaluates it bit for bit).

    Parameters
    ----------
    robot : :class:`robohw.robots.Robot` or str
        A robot with inertial data and every joint's ``velocity_limit`` and
        ``acceleration_limit`` (its hardware form, or a robot file or shipped name).
    width : int
        Bits of every datapath value, 16 to 56 (default 24). Each value has its own fraction
        bits, as many as its proven range leaves.
    fold : int
        Cycles per state (default 1: every operation its own hardware; see
        :class:`~robohw.dataflow.plan.TracedPlan`).
    trig_width : int
        Bits of the joints' angles and of the CORDICs (default ``min(width, 40)``).
    bound_fraction : float or None
        The largest :attr:`accuracy` fraction accepted (default
        :data:`~robohw.dynamics.inverse.accuracy.BOUND_FRACTION`, 1 %): a plan whose proven bound
        exceeds this fraction of the largest torque the robot's limits allow is refused with
        a ``ValueError`` naming the limit that weighs most and the width that would meet it
        (:func:`~robohw.dynamics.inverse.accuracy.check_accuracy`). ``None``: not checked.
    """
    max_width = MAX_WIDTH
    # The design a refusal names (robohw dynamics --design).
    design = "pipelined"
    # Whether the machine computes Coulomb friction, F_c sign(qd): a sign input
    # (robohw.dataflow.plan.TracedPlan.sign_input), which only the engine builds.
    coulomb = False
    # Folded, one ring copy per group of registers of this many flip-flops: the traced cells
    # are whole phases of the equations, far more flip-flops than one enable net drives at
    # speed (docs/dynamics.md).
    ring_fanout = 256

    def __init__(self, robot, *, width=24, fold=1, trig_width=None,
                 bound_fraction=BOUND_FRACTION):
        check_integer("width", width, minimum=MIN_WIDTH, maximum=MAX_WIDTH)
        trig_width = min(width, MAX_TRIG_WIDTH) if trig_width is None else trig_width
        check_integer("trig_width", trig_width, minimum=MIN_WIDTH,
                      maximum=min(width, MAX_TRIG_WIDTH))
        robot = hardware_robot(robot, terms=() if self.coulomb else ("friction",),
                               instead="the engine (dynamics-engine) or the float backend")
        require_dynamics(robot, "the dynamics")
        bound_fraction = check_bound_fraction(bound_fraction)
        self._robot = robot
        self.bounds = DynamicsBounds(robot)
        super().__init__(width=width, fold=fold, trig_width=trig_width)
        self._accuracy = None
        if bound_fraction is not None:
            self._accuracy = check_accuracy(self, bound_fraction, self._replan)

    def _replan(self, robot, width):
        """This design for ``robot`` at ``width`` bits, its accuracy unchecked."""
        return NewtonEulerPlan(robot, width=width, bound_fraction=None)

    @property
    def accuracy(self):
        """The :class:`~robohw.dynamics.inverse.accuracy.AccuracyPromise`: per joint, the proven
        worst-case error of its torque against float64 for a state within the limits, and
        the largest torque those limits allow."""
        if self._accuracy is None:
            self._accuracy = accuracy_promise(self)
        return self._accuracy

    def _state_inputs(self):
        """``(joints, qd, qdd)``: the traced inputs of a state (``joints`` as
        :func:`~robohw.dynamics.inverse.codec.position_inputs` gives them), every rate and
        acceleration within its joint's limit; :attr:`input_joints` names their joints."""
        robot, bounds = self._robot, self.bounds
        qd, qdd = [], []
        self.input_joints = {}           # input node name -> its joint (1-based)
        joints = position_inputs(self, robot)
        for k in range(1, robot.dof + 1):
            v, a = bounds.velocity[k - 1], bounds.acceleration[k - 1]
            qd.append(self.value_input(f"qd{k}", state_field("qd", k), -v, v))
            qdd.append(self.value_input(f"qdd{k}", state_field("qdd", k), -a, a))
            self.input_joints.update({name: k for name in (
                f"cos{k}", f"sin{k}", f"d{k}", f"qd{k}", f"qdd{k}")})
        return joints, qd, qdd

    def _trace(self):
        robot = self._robot
        joints, qd, qdd = self._state_inputs()
        tau = self._torques(joints, qd, qdd)
        # The joint terms the rigid body has not (robohw.robots.chain.JOINT_TERMS): armature
        # qdd, damping qd and, on a machine with :attr:`coulomb`, friction sign(qd) (the sign
        # of qd's code: docs/accuracy.md), in the link's torque cell.
        for i, joint in enumerate(robot.joints):
            friction = []
            if joint.friction:
                friction = [self.sign_input(f"fc{i + 1}", state_field("qd", i + 1),
                                            joint.friction)]
                self.input_joints[f"fc{i + 1}"] = i + 1
            with self.tracer.cell("tau", None, i):
                tau[i] = total([tau[i], *(product(self.tracer.const(c), x) for c, x in (
                    (joint.armature, qdd[i]), (joint.damping, qd[i])) if c), *friction])
        return {k: value for k, value in enumerate(tau, start=1)}

    def _torques(self, joints, qd, qdd):
        """The rigid body's joint torques traced over the inputs: Lee & Chang's
        base-coordinate steps, their recurrences as :meth:`_scan` scans."""
        return base_coordinate_steps(self._robot, joints, qd, qdd, None, self.tracer,
                                     self._scan, self.bounds)

    def _scan(self, phase, elements, combine):
        """The prefixes of one recurrence: recursive doubling (a balanced tree of depth
        ``ceil(log2 K)``), every combination in the cell ``(phase, step, position)``."""
        return run_schedule(doubling_schedule(len(elements)), elements, combine,
                            at=lambda step, pe: self.tracer.cell(phase, step, pe))

    @property
    def robot(self):
        return self._robot

    def _values_origin(self, largest=True):
        return values_origin(self._robot, largest)

    @property
    def dof(self):
        return self._robot.dof


class NewtonEulerPipeline(TracedPipeline):
    """The joint torques of a serial robot, one state per clock (one per ``fold`` clocks).

    Parameters
    ----------
    robot, width, fold, trig_width, bound_fraction
        See :class:`NewtonEulerPlan`.
    tag_width : int
        User tag carried from ``i`` to ``o``.
    check_ranges : bool
        Simulation aid: ``Assert`` that no register holding a state within the bounds
        overflows (the formats promise it).

    Members
    -------
    i : ``In(stream.Signature(...))``
        ``q1`` .. ``qN``: binary angles of ``trig_width`` bits for revolute joints (one turn
        = ``2**trig_width``), ``signed(width)`` fixed point for prismatic ones (m);
        ``qd1`` .. ``qdN`` (rad/s, m/s), ``qdd1`` .. ``qddN`` (rad/s^2, m/s^2),
        ``signed(width)`` fixed point; fraction bits :attr:`input_fracs`; ``tag``.
    o : ``Out(stream.Signature(...))``
        ``tau1`` .. ``tauN`` (N m, N: what each joint exerts, gravity included; no tool
        load), ``signed(width)`` with :attr:`output_fracs` fraction bits; ``in_bounds``: 1 if
        every rate, acceleration and prismatic position was within the robot's limits (only
        then are the torques proven; outside, registers may wrap); ``tag``.

    Latency :attr:`latency` cycles (the CORDIC, then the longest chain of registered
    operations through the recursive-doubling scans, then the output queue); one state per
    clock, or per ``fold`` clocks. Nothing is lost, duplicated or reordered under backpressure.
    """

    def __init__(self, robot, *, width=24, fold=1, trig_width=None, tag_width=0,
                 check_ranges=False, bound_fraction=BOUND_FRACTION):
        plan = NewtonEulerPlan(robot, width=width, fold=fold, trig_width=trig_width,
                               bound_fraction=bound_fraction)
        super().__init__(plan, state_fields(plan),
                         {k: torque_field(k) for k in range(1, plan.dof + 1)},
                         tag_width=tag_width, check_ranges=check_ranges, flag="in_bounds")

    @property
    def input_fracs(self):
        return self._plan.input_fracs

    @property
    def dof(self):
        return self._plan.dof
