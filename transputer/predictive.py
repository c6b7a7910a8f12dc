"""Per-subtask costs on a T800 predicted from the work each subtask does, not fitted to the
paper's times.

A subtask computes its term as the paper writes it, in Paul's trace form with 4x4 matrices
(Z eqs. 4, 8 and 12): for every link ``l`` it sums over, from ``max(i, j, k)`` to the last,

- ``D_ij``: ``tr(Delta_j J Delta_i^T)``: one 4x4 product and a trace of a product (16
  multiplications, 15 additions), then the sum over links;
- ``C_ijk``: ``tr(Delta_j Delta_k J Delta_i^T)``: two 4x4 products and the trace;
- ``h_i``: ``-m g^T T_l Delta_i r_l``: a row vector through two 4x4 matrices and a point (37
  multiplications, 27 additions).

It builds each ``Delta_x^l`` it uses from the differential vectors ``delta`` and ``d`` (a
revolute joint's ``d``: 6 multiplications, 3 additions; the rest is copying), which it takes in
closed form from the joint angles' sines and cosines: the products of transforms behind them
are not counted. That is an assumption, and the paper's own numbers ask for it: a slave that
built the chains ``^{x-1}T_l`` itself would spend over a millisecond on them each sample (15
4x4 products), while the overheads the paper's utilizations leave per slave are under 0.1 ms
for 6-8 slaves. Each slave computes the sines and cosines of the joint angles once
per sample (:func:`slave_work`); each subtask adds its share of the torques
(:func:`share_operations`) and one procedure call.

The 4x4 products are a general routine's (64 multiplications, 48 additions): the paper's
matrices as written, its zeros not skipped. :class:`T800` turns the counts into time.
"""

from dataclasses import dataclass

from robohw.hw.checks import check_number
from robohw.robots.joint_type import JointType
from robohw.transputer.lagrange_euler_tasks import PAPER_SUBTASKS

__all__ = ["T800", "Work", "share_operations", "link_terms", "subtask_work", "slave_work",
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
    - ``call_us``: entering a subtask's procedure and leaving it (parameters, loop set-up).
    """
    cycle_us: float = 0.05
    add_cycles: float = 7 + 9
    mul_cycles: float = 20 + 9
    trig_us: float = 30.0
    call_us: float = 5.0

    def __post_init__(self):
        for name in ("cycle_us", "add_cycles", "mul_cycles", "trig_us", "call_us"):
            check_number(name, getattr(self, name), minimum=0)

    def time_ms(self, work):
        """The time of :class:`Work` ``work``, in ms."""
        us = (work.multiplications * self.mul_cycles
              + work.additions * self.add_cycles) * self.cycle_us
        return (us + work.trig_calls * self.trig_us + work.calls * self.call_us) / 1e3


@dataclass(frozen=True)
class Work:
    """Scalar ``multiplications`` and ``additions``, ``trig_calls`` and procedure ``calls``."""
    multiplications: int
    additions: int
    trig_calls: int = 0
    calls: int = 0


MATRIX_PRODUCT = (64, 48)           # a general 4x4 product: 4 x 4 dot products of length 4
TRACE_OF_PRODUCT = (16, 15)         # tr(A B^T) = sum of the 16 products A_ab B_ab
# Per link, (multiplications, additions) besides building the Delta matrices:
PER_LINK = {
    "D": (MATRIX_PRODUCT[0] + TRACE_OF_PRODUCT[0], MATRIX_PRODUCT[1] + TRACE_OF_PRODUCT[1]),
    "C": (2 * MATRIX_PRODUCT[0] + TRACE_OF_PRODUCT[0],
          2 * MATRIX_PRODUCT[1] + TRACE_OF_PRODUCT[1]),
    # g^T T_l (a row vector times a 4x4: 16, 12), times Delta (16, 12), times r_l (4, 3),
    # times the mass (1, 0).
    "h": (16 + 16 + 4 + 1, 12 + 12 + 3),
}
D_VECTOR = (6, 3)                   # d = (n_y p_x - n_x p_y, ...): eqs. 2-3, restored


def share_operations(task):
    """``(multiplications, additions)`` of a subtask's share (module docstring of
    :mod:`robohw.transputer.lagrange_euler_tasks`): ``D_ij qdd_j`` and, off the diagonal,
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


def link_terms(task, links):
    """The links a subtask's term sums over: ``max(i, j, k)`` to ``links``."""
    return links - max(task.i, task.j, task.k) + 1


def subtask_work(robot, task):
    """The :class:`Work` of ``task`` on ``robot`` (module docstring)."""
    per_link_mul, per_link_add = PER_LINK[task.kind]
    deltas = {"D": (task.i, task.j), "C": (task.i, task.j, task.k), "h": (task.i,)}[task.kind]
    revolute = sum(robot.joints[x - 1].type == JointType.REVOLUTE for x in deltas)
    terms = link_terms(task, robot.dof)
    share_mul, share_add = share_operations(task)
    return Work(
        multiplications=terms * (per_link_mul + revolute * D_VECTOR[0]) + share_mul,
        additions=terms * (per_link_add + revolute * D_VECTOR[1]) + (terms - 1) + share_add,
        calls=1)


def slave_work(robot):
    """What every slave does once per sample whatever it holds: the sine and cosine of each
    revolute joint's angle."""
    return Work(0, 0, trig_calls=2 * sum(j.type == JointType.REVOLUTE for j in robot.joints))


def predicted_costs(robot, timing=T800(), subtasks=PAPER_SUBTASKS):
    """``({subtask: ms}, slave_ms)``: each subtask's time and each slave's once-per-sample
    time on ``timing``'s T800."""
    return ({task: timing.time_ms(subtask_work(robot, task)) for task in subtasks},
            timing.time_ms(slave_work(robot)))
