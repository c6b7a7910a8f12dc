"""The forward-dynamics file commands' table and solver, shared by ``robohw forward-dynamics``
and ``robohw board run --design forward-dynamics``: ``q``, ``qd`` and ``tau`` in, ``qdd`` (with
``bound1..boundN`` and ``reason`` when asked) out, a chunk at a time, one model for the file."""

import functools

from robohw.commands.file_command import FileTable, Solved

__all__ = ["forward_file"]


def forward_file(args, backend, promise, *, port=None, progress=None):
    """``(table, solve)`` for :func:`~robohw.commands.file_command.run_file_command`: the
    columns of ``args`` (``--reasons``, ``--bounds``), each chunk solved by ``backend``
    (:func:`robohw.dynamics.forward.files.solve_forward`) at ``args.width`` and ``args.ii``,
    rows valid within ``promise``; a hardware backend's model planned once for the file.
    ``port(robot)``: the board backend's open port; ``progress``: a stream for the engine's
    lines."""
    from robohw.dynamics import (
        acceleration_header,
        acceleration_rows,
        certified_plan,
        forward_columns,
        solve_forward,
        split_forward,
    )
    model = backend != "float"

    def table(robot):
        return FileTable(forward_columns(robot.dof),
                         acceleration_header(robot.dof, args.reasons, args.bounds), "states")

    @functools.cache
    def plan(robot):                    # one model for every chunk of the file
        return certified_plan(robot, args.width, promise)

    def solve(robot, values):
        q, qd, tau = split_forward(values, robot.dof)
        got = solve_forward(robot, q, qd, tau, backend, plan=plan(robot) if model else None,
                            certified=args.bounds, interval=args.ii, progress=progress,
                            port=None if port is None else port(robot))
        return Solved(len(got.qdd), int(got.valid.sum()), acceleration_rows(
            got.qdd, got.valid, got.reason if args.reasons else None,
            got.bounds if args.bounds else None), got.sentence(robot))
    return table, solve
