"""Operation counts of the inertia-matrix algorithms (:func:`robohw.systolic.reference.table1`,
:func:`~robohw.systolic.reference.table2`), counted by running the references over counting
scalars: a :class:`~robohw.dataflow.graph.Tracer` that folds no constant."""

from robohw.dataflow.graph import Tracer
from robohw.hw.checks import check_positive_integer
from robohw.systolic.reference import LinkFrame, table1, table2

__all__ = ["operation_counts"]


def operation_counts(n, method="table1"):
    """Multiplications, additions and divisions of the general algorithm for ``n`` revolute links
    with general twists, counted by running the reference over counting scalars
    (:class:`robohw.dataflow.graph.Tracer` with ``fold=False``: every product with a link
    constant counts; only the structural zeros of ``Rz`` and ``z0`` are free). Composite masses are
    constants and are not counted; each ``1/M`` is one division."""
    algorithms = {"table1": table1, "table2": table2}
    if method not in algorithms:
        raise ValueError(f"method must be table1 or table2, not {method!r}")
    check_positive_integer("n", n)
    frame = LinkFrame(revolute=True, alpha=1.0, a=0.3, d=0.1, offset=0.0, theta=0.0, mass=1.0,
                      com=(0.1, 0.2, 0.3), inertia=((0.3, 0.01, 0.02), (0.01, 0.2, 0.03),
                                                   (0.02, 0.03, 0.25)), limits=None)
    tracer = Tracer(fold=False)
    joints = [None] + [(tracer.input(f"cos{k}", -1, 1), tracer.input(f"sin{k}", -1, 1))
                       for k in range(2, n + 1)]
    algorithms[method]([frame] * n, joints, tracer)
    return tracer.counts()
