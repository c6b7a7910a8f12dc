"""A linear system ``A x = b`` solved the CORDIC way: Givens rotations on Gentleman and Kung's
triangular array, then back-substitution, as CCMs of a task graph (Gosselin's platform
solve on one processor, done with CORDICs).

The rows of ``[A | b]`` enter the triangular array one after another. Cell ``(j, j)`` holds
``r_jj`` and vectors it with the arriving row's ``j``-th entry (circular vectoring: the new
``r_jj`` and the angle that zeroes the entry); cells ``(j, k)``, ``k > j``, hold ``r_jk`` and
turn it and the arriving entry by that angle (circular rotations); what is left of the row
passes on to cell row ``j + 1``, and the ``i``-th row stays as row ``i`` of ``R``. Unrolled, as
here, every cell visit is a CCM, so the array's data flow is the graph and the balanced pipeline
takes a new system every clock. Then ``R x = c`` from the bottom up: ``x_i = (c_i - sum_j r_ij
x_j) / r_ii``, each product and sum one linear rotation (``y + x z``) and each division one
linear vectoring (``y / x``).

=========  ====================  ==============================================
CCM        operation             computes
=========  ====================  ==============================================
``v{i}_{j}``    circular vectoring    row ``i`` meets cell ``(j, j)``: new ``r_jj``, angle
``t{i}_{j}_{k}``  circular rotation   row ``i`` meets cell ``(j, k)``: new ``r_jk``, entry
``m{i}_{j}``    linear rotation       ``c_i - r_ij x_j - ...`` (one term each)
``d{i}``        linear vectoring      ``x_i``, the sum over ``r_ii``
=========  ====================  ==============================================

An ``n x n`` system with one right-hand side takes ``n (n - 1) / 2`` vectorings, ``(n - 1) n
(n + 1) / 3`` rotations (70 for ``n = 6``), ``n (n - 1) / 2`` multiply-adds and ``n``
divisions. No square root, no reciprocal. The linear CCMs converge for ``|x_j| < 2`` and
``|y / x| < 2`` (:attr:`robohw.cordic.config.CordicConfig.convergence_limit`): a solution
beyond that, which a near-singular matrix makes, raises their domain flags and the row is
invalid. A pivot below ``min_pivot`` (the divisions' ``r_ii``, :class:`Guard` s) does too:
a singular system whose right-hand side is consistent with it would otherwise divide rounding
noise by rounding noise and could stay in range.
"""

from dataclasses import replace

from robohw.cordic.config import Direction, System
from robohw.taskgraph.graph import Ccm, Guard, Operand, TaskGraph, const

__all__ = ["givens_solve", "solve_graph", "ccm_counts", "MIN_PIVOT"]

# The pivots' default minimum: with entries of order 1, a pivot of 2**-10 bounds the solution's
# growth from rounding to about a thousand times an LSB (the condition number, roughly, of R).
MIN_PIVOT = 2.0 ** -10

CIRC, LIN = System.CIRCULAR, System.LINEAR
ROT, VEC = Direction.ROTATION, Direction.VECTORING


def _negated(operand):
    if operand.addend is not None or operand.branch:
        raise ValueError("a matrix entry is a source, a sign and a constant")
    return replace(operand, sign=-operand.sign, constant=-operand.constant)


def givens_solve(prefix, rows, rhs, min_pivot):
    """``(ccms, solution, guards)``: the CCMs (names starting with ``prefix``) that solve the
    system whose matrix rows are ``rows`` (``n`` lists of ``n``
    :class:`~robohw.taskgraph.graph.Operand` s of reals) and right-hand side ``rhs`` (``n``
    operands), the ``n`` operands of the solution, and the :class:`Guard` s that hold every
    pivot ``|r_ii|`` at ``min_pivot`` or more."""
    n = len(rows)
    if n < 1 or len(rhs) != n or any(len(row) != n for row in rows):
        raise ValueError(f"a system of n rows of n entries and n right-hand sides is needed, "
                         f"not {n} rows of {[len(row) for row in rows]} and {len(rhs)}")
    ccms = []
    stored = [None] * n                  # stored[j]: the array's row j, r_jj..r_jn
    for i in range(n):
        entries = list(rows[i]) + [rhs[i]]
        for j in range(i):               # through cell rows 0..i-1
            vector = f"{prefix}v{i}_{j}"
            ccms.append(Ccm(vector, CIRC, VEC, stored[j][j], entries[j], const(0),
                            label=f"r{j}{j}"))
            stored[j][j] = Operand(vector, "x")
            angle = Operand(vector, "z", sign=-1)
            for k in range(j + 1, n + 1):
                turn = f"{prefix}t{i}_{j}_{k}"
                ccms.append(Ccm(turn, CIRC, ROT, stored[j][k], entries[k], angle,
                                label=f"r{j}{k}"))
                stored[j][k], entries[k] = Operand(turn, "x"), Operand(turn, "y")
        stored[i] = entries
    solution, guards = [None] * n, []
    for i in reversed(range(n)):
        total = stored[i][n]
        for j in range(i + 1, n):
            product = f"{prefix}m{i}_{j}"
            ccms.append(Ccm(product, LIN, ROT, _negated(stored[i][j]), total, solution[j],
                            label=f"c{i} - r{i}{j} x{j}"))
            total = Operand(product, "y")
        quotient = f"{prefix}d{i}"
        pivot = stored[i][i]
        if pivot.constant or pivot.addend is not None:
            raise ValueError("a matrix entry is a source and a sign")
        ccms.append(Ccm(quotient, LIN, VEC, pivot, total, const(0), label=f"x{i}"))
        solution[i] = Operand(quotient, "z")
        guards.append(Guard(pivot.source, pivot.port, min_pivot))
    return ccms, solution, guards


def ccm_counts(n):
    """``{"vectorings", "rotations", "multiply_adds", "divisions"}`` of an ``n x n`` solve,
    from the formulas of the module docstring."""
    return {"vectorings": n * (n - 1) // 2, "rotations": (n - 1) * n * (n + 1) // 3,
            "multiply_adds": n * (n - 1) // 2, "divisions": n}


def solve_graph(n, min_pivot=MIN_PIVOT):
    """A :class:`~robohw.taskgraph.graph.TaskGraph` of an ``n x n`` solve alone: inputs
    ``a{i}_{j}`` (1-based, row by row) and ``b{i}``, outputs ``x{i}``, every pivot guarded at
    ``min_pivot``."""
    rows = [[Operand(f"a{i}_{j}") for j in range(1, n + 1)] for i in range(1, n + 1)]
    rhs = [Operand(f"b{i}") for i in range(1, n + 1)]
    ccms, solution, guards = givens_solve("", rows, rhs, min_pivot)
    inputs = [f"a{i}_{j}" for i in range(1, n + 1) for j in range(1, n + 1)]
    inputs += [f"b{i}" for i in range(1, n + 1)]
    return TaskGraph(f"givens-{n}", inputs, ccms,
                     {f"x{i + 1}": (x.source, "z") for i, x in enumerate(solution)},
                     description=f"{n} x {n} solve, Givens rotations and back-substitution",
                     guards=guards)
