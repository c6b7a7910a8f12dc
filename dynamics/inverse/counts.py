"""Operation counts of Lee & Chang's inverse dynamics
(:func:`robohw.dynamics.inverse.reference.base_coordinate_steps`) per phase and processor, counted
by running the reference over :class:`~robohw.dataflow.graph.Tracer` scalars."""

import math
from dataclasses import dataclass

from robohw.dataflow.graph import Tracer
from robohw.dataflow.operations import Count, operation
from robohw.dynamics.inverse.reference import PHASES, SCHEDULES, base_coordinate_steps
from robohw.dynamics.inverse.scans import run_schedule
from robohw.hw.checks import check_choice, check_positive_integer
from robohw.robots import Joint, Robot
from robohw.robots.joint_type import JointType

__all__ = ["general_robot", "PhaseCount", "dynamics_counts", "summarize"]


def general_robot(n):
    """``n`` revolute links with no structural zero: generic twists, offsets, centres of mass,
    full inertia tensors and a gravity off every axis. What the paper's closed forms count."""
    joint = Joint(JointType.REVOLUTE, a=0.3, alpha=1.0, d=0.1, offset=0.0,
                  limits=(-math.pi, math.pi), mass=2.0, com=(0.1, 0.2, 0.3),
                  inertia=(0.3, 0.2, 0.25, 0.01, 0.03, 0.02))
    return Robot(f"general {n}-link robot", (joint,) * n, gravity=(1.0, -2.0, -9.5))


@dataclass(frozen=True)
class PhaseCount:
    """Operations of one phase of :func:`robohw.dynamics.inverse.reference.base_coordinate_steps`:
    ``time`` (multiplications, additions) on the busiest processor, step by step (the sum over
    the phase's steps of the most any processor does in that step, multiplications and
    additions each); ``work`` (multiplications, additions) on all processors together;
    ``per_step``: the busiest processor's (multiplications, additions) in each step that has
    operations."""
    phase: str
    kind: str
    time: tuple
    work: tuple
    per_step: tuple

    @property
    def steps(self):
        return len(self.per_step)


def dynamics_counts(robot, processors=None, scan="doubling", *, hand=True):
    """Operation counts of Lee & Chang's inverse dynamics of ``robot`` on ``processors``
    (default ``N``), each scan by ``scan`` (``"serial"``, ``"doubling"``, ``"pfp"``), counted by
    running :func:`robohw.dynamics.inverse.reference.base_coordinate_steps` over
    :class:`~robohw.dataflow.graph.Tracer` scalars (``fold=True``: the robot's constants are
    known, so its zeros and ones cost nothing and products of constants are made at
    elaboration; a multiplication by any other constant counts). Local work of link ``i`` runs
    on processor ``i // ceil(N / p)``; a scan step's operations on the processors its schedule
    names. ``hand``: a general tool wrench (the paper's f_{n+1}, n_{n+1}); without it the
    suffix scans start from zero. Returns a :class:`PhaseCount` per phase, in order."""
    n = robot.dof
    processors = n if processors is None else processors
    check_positive_integer("processors", processors)
    check_choice("scan", scan, SCHEDULES)
    tracer = Tracer(fold=True)
    schedule = SCHEDULES[scan]

    def run(phase, elements, combine):
        return run_schedule(schedule(len(elements), processors), elements, combine,
                            at=lambda step, pe: tracer.cell(phase, step, pe))

    joints = []
    for k, joint in enumerate(robot.joints):
        if joint.type == JointType.REVOLUTE:
            joints.append((tracer.input(f"cos{k}", -1, 1), tracer.input(f"sin{k}", -1, 1)))
        else:
            joints.append(tracer.input(f"d{k}", -1, 1))
    qd = [tracer.input(f"qd{k}", -1, 1) for k in range(n)]
    qdd = [tracer.input(f"qdd{k}", -1, 1) for k in range(n)]
    wrench = None
    if hand:
        wrench = tuple(tuple(tracer.input(f"{kind}{k}", -1, 1) for k in range(3))
                       for kind in ("f", "m"))
    base_coordinate_steps(robot, joints, qd, qdd, wrench, tracer, run)
    block = math.ceil(n / processors)
    tally = {}              # phase -> step -> processor -> [mul, add]
    for node in tracer.nodes:         # the algorithm as written, dead results included
        kind = operation(node.op).counted_as
        if kind is None:
            continue
        phase, step, where = node.cell
        pe = where // block if step is None else where
        counts = tally.setdefault(phase, {}).setdefault(step, {}).setdefault(pe, [0, 0])
        counts[kind == Count.ADD] += 1
    out = []
    for phase, kind in PHASES.items():
        steps = tally.get(phase, {})
        per_step = tuple(tuple(max(c[k] for c in steps[step].values()) for k in (0, 1))
                         for step in sorted(steps, key=lambda step: -1 if step is None else step))
        time = tuple(sum(step[k] for step in per_step) for k in (0, 1))
        work = tuple(sum(c[k] for per_pe in steps.values() for c in per_pe.values())
                     for k in (0, 1))
        out.append(PhaseCount(phase, kind, time, work, per_step))
    return out


def summarize(counts):
    """``{kind: (multiplications, additions)}`` of the busiest processor's time, per kind of
    phase (``inputs``, ``matrix scan``, ``vector scan``, ``local``), and ``total`` (all but the
    inputs: the paper counts from the rotations and a base-coordinate hand wrench on)."""
    out = {}
    for count in counts:
        m, a = out.get(count.kind, (0, 0))
        out[count.kind] = (m + count.time[0], a + count.time[1])
    out["total"] = tuple(sum(v[k] for kind, v in out.items() if kind != "inputs")
                         for k in (0, 1))
    return out
