"""Robot states as the ``dynamics`` command reads them: a CSV file with the header
``q1..qN,qd1..qdN,qdd1..qddN`` (the tests' inputs, written with every digit of float64)."""

import numpy as np

__all__ = ["write_state_file"]


def write_state_file(path, q, qd, qdd):
    """Write the states ``(rows, N)`` each to ``path``; return ``path``."""
    dof = q.shape[1]
    header = [f"{kind}{k}" for kind in ("q", "qd", "qdd") for k in range(1, dof + 1)]
    path.write_text(",".join(header) + "\n" + "".join(
        ",".join(repr(float(v)) for v in row) + "\n" for row in np.concatenate([q, qd, qdd], 1)))
    return path
