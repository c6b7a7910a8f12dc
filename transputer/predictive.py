"""Per-subtask costs on a T800 predicted from the work each subtask does, not fitted to the
paper's times (spec C.2, tier ii).

A subtask runs alone on whichever slave holds it, from the broadcast joint state only (the
paper: each processor does its job "without the need for data from other processors", Z:L204).
So besides its formula (:mod:`robohw.transputer.counts`) it rebuilds what the formula reads:

- the DH transforms ``A_l`` of the links its chains pass: ``sin`` and ``cos`` of each revolute
  joint's angle (two library calls) and the entries that multiply them by the twist's cosine
  and sine and by ``a`` (:func:`transform_entries`);
- for each joint ``x`` among its indices, the chain ``^{x-1}T_l = A_x ... A_l`` out to the last
  link, ``n - x`` 4x4 products (the differential vectors of eqs. 2-3 are read off it); a
  gravity term also needs ``^0T_l`` for the gravity in link frames (the chain from joint 1);
- each revolute joint's ``d`` vector in every link it is summed over (6 multiplications and 3
  additions);
- its share of the torques: the coefficient times the joint accelerations or rates
  (:func:`share_operations`).

A bundle (``C4``, ``C5``) is one program: its chains and transforms are built once for all its
members. :class:`T800` turns the counts into time.
"""

from dataclasses import dataclass
from math import cos, sin

from robohw.reference.lagrange_euler_tasks import PAPER_SUBTASKS
from robohw.transputer.allocation import units
from robohw.transputer.counts import subtask_counts

__all__ = ["T800", "Work", "transform_entries", "share_operations", "unit_work",
           "predicted_costs"]


@dataclass(frozen=True)
class T800:
    """Time of each kind of work on an IMS T800-20 running compiled Occam 2, ``REAL64``.

    These are our assumptions, stated so they can be checked (the paper gives none):

    - ``cycle_us``: 0.05 (20 MHz).
    - ``add_cycles``, ``mul_cycles``: a ``REAL64`` addition and multiplication, FPU time plus
      the operand traffic of compiled code (two loads and a store through the integer
      processor, with their address arithmetic, about 9 cycles). The FPU times, 7 and 20
      cycles, are as we recall the T800 datasheet's table (not in our library); INMOS
      Technical Note 26 states "in excess of 1.5 MFlops sustained", which is 13 cycles per
      operation, consistent with these.
    - ``trig_us``: one ``REAL64`` ``SIN`` or ``COS`` from the Occam library (software: range
      reduction and a polynomial of about 10 multiplications and 10 additions, plus the call).
    - ``matrix``: the 4x4 product as a general routine computes it, 64 multiplications and 48
      additions (``"general"``), or using the constant last row, 36 and 27 (``"homogeneous"``,
      the default: Paul's book multiplies the A matrices that way).
    - ``call_us``: entering a subtask's procedure and leaving it (parameters, loop set-up).
    """
    cycle_us: float = 0.05
    add_cycles: float = 7 + 9
    mul_cycles: float = 20 + 9
    trig_us: float = 30.0
    matrix: str = "homogeneous"
    call_us: float = 5.0

    def __post_init__(self):
        if self.matrix not in ("general", "homogeneous"):
            raise ValueError(f"matrix must be 'general' or 'homogeneous', not {self.matrix!r}")
        for name in ("cycle_us", "add_cycles", "mul_cycles", "trig_us", "call_us"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a non-negative number, not {value!r}")

    @property
    def matrix_operations(self):
        """``(multiplications, additions)`` of one 4x4 product."""
        return (64, 48) if self.matrix == "general" else (36, 27)

    def time_ms(self, work):
        """The time of :class:`Work` ``work``, in ms."""
        mul_m, add_m = self.matrix_operations
        mul = work.multiplications + work.matrix_products * mul_m
        add = work.additions + work.matrix_products * add_m
        us = (mul * self.mul_cycles + add * self.add_cycles) * self.cycle_us
        return (us + work.trig_calls * self.trig_us + work.calls * self.call_us) / 1e3


@dataclass(frozen=True)
class Work:
    """What one program (a subtask, or a bundle) does: scalar ``multiplications`` and
    ``additions`` outside the 4x4 products, ``matrix_products``, ``trig_calls`` and procedure
    ``calls``."""
    multiplications: int
    additions: int
    matrix_products: int
    trig_calls: int
    calls: int


def transform_entries(joint):
    """Multiplications to fill ``A`` of ``joint`` once its angle's sine and cosine are known:
    ``cos(theta)`` and ``sin(theta)`` times ``cos(alpha)`` and ``sin(alpha)`` where the twist
    makes them other than 0 or +-1, and times ``a`` where ``a`` is not 0."""
    twist = sum(1 for f in (cos, sin) if abs(abs(f(joint.alpha)) - 0.5) < 0.5 - 1e-9)
    return (2 * twist + (2 if joint.a else 0)) if joint.type == "revolute" else 0


def share_operations(task):
    """``(multiplications, additions)`` of a subtask's share (module docstring of
    :mod:`robohw.reference.lagrange_euler_tasks`): ``D_ij qdd_j`` and, off the diagonal,
    ``D_ij qdd_i``; ``C_ijk qd_j qd_k`` (doubled when ``j != k``) and its reflexive partner;
    ``h_i`` added as it is."""
    if task.kind == "h":
        return 0, 1
    if task.kind == "D":
        targets = 1 if task.i == task.j else 2
        return targets, targets
    mul, add = 2 + (task.j != task.k), 1
    if task.j <= min(task.i, task.k) and task.i != task.k:
        mul, add = mul + 2 + (task.j != task.i), add + 1
    return mul, add


def unit_work(robot, unit, counts, recompute=True):
    """The :class:`Work` of one program running ``unit`` (a tuple of subtasks: one, or a
    bundle's members), ``counts`` from :func:`~robohw.transputer.counts.subtask_counts`;
    without ``recompute``, only its formulas, shares and call (the model of operation counts
    alone, spec B.7)."""
    n = robot.dof
    starts = set()
    for task in unit:
        starts |= {x for x in (task.i, task.j, task.k) if x}
        if task.kind == "h":
            starts.add(1)
    joints = robot.joints[min(starts) - 1:] if recompute else ()
    mul, add = sum(transform_entries(j) for j in joints), 0
    for task in unit:
        task_mul, task_add = counts[task]
        share_mul, share_add = share_operations(task)
        mul, add = mul + task_mul + share_mul, add + task_add + share_add
        if not recompute:
            continue
        last = max(x for x in (task.i, task.j, task.k) if x)
        for x in {x for x in (task.i, task.j, task.k) if x}:
            if robot.joints[x - 1].type == "revolute":
                mul, add = mul + 6 * (n - last + 1), add + 3 * (n - last + 1)
    return Work(multiplications=mul, additions=add,
                matrix_products=sum(n - x for x in starts) if recompute else 0,
                trig_calls=2 * sum(j.type == "revolute" for j in joints), calls=len(unit))


def predicted_costs(robot, timing=T800(), subtasks=PAPER_SUBTASKS, recompute=True):
    """``{subtask: ms}`` on ``timing``'s T800 (``recompute``: see :func:`unit_work`); a bundle's time is shared among its members in
    proportion to their formulas' operations (the allocators place a bundle whole, so only its
    total matters)."""
    counts = subtask_counts(robot, subtasks)
    out = {}
    for unit in units(subtasks):
        total = timing.time_ms(unit_work(robot, unit, counts, recompute))
        weight = [sum(counts[task]) + 1 for task in unit]
        for task, w in zip(unit, weight):
            out[task] = total * w / sum(weight)
    return out
