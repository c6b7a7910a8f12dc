"""The names of the gradient's entries: the output fields of its machines and the columns of its
files."""

__all__ = ["gradient_field", "gradient_keys"]


def gradient_field(i, j, wrt):
    """The name of ``d tau_i / d q_j`` (``wrt`` ``"q"``) or ``d tau_i / d qd_j`` (``"qd"``),
    joints from 1: ``dtau{i}_dq{j}``, ``dtau{i}_dqd{j}``."""
    if wrt not in ("q", "qd"):
        raise ValueError(f"wrt must be 'q' or 'qd', not {wrt!r}")
    return f"dtau{i}_d{wrt}{j}"


def gradient_keys(dof):
    """Every entry's name for an arm of ``dof`` joints in the files' order: ``dtau{i}_dq{j}``
    then ``dtau{i}_dqd{j}``, ``i`` the row, ``j`` the column."""
    return [gradient_field(i, j, wrt) for wrt in ("q", "qd")
            for i in range(1, dof + 1) for j in range(1, dof + 1)]
