"""The file commands (ik, inertia, dynamics): their parser, and their run over a CSV file in
chunks, memory bounded at any size."""

import sys
from collections.abc import Iterable
from dataclasses import dataclass

from robohw.commands.arguments import ARGUMENT_ERRORS, usage
from robohw.commands.options import add_robot
from robohw.commands.paths import declare_file_outputs, declare_inputs

__all__ = ["file_command", "Solved", "FileTable", "run_file_command"]


def file_command(commands, name, summary, example, source, source_help, out_help, backends,
                 backend_help):
    """A command from one CSV file to another for a robot (ik, inertia, dynamics): its input
    option ``source``, ``--out``, ``--robot`` and ``--backend`` (first choice the default)."""
    command = commands.add_parser(name, help=summary, epilog=f"example: {example}")
    declare_inputs(command, source)
    declare_file_outputs(command, "--out")
    command.add_argument(source, required=True, metavar="IN.csv",
                         help=f"{source_help} ('-': standard input)")
    command.add_argument("--out", required=True, metavar="OUT.csv",
                         help=f"{out_help} ('-': standard output)")
    add_robot(command, default="puma560")
    command.add_argument("--backend", choices=backends, default=backends[0],
                         help=f"{backend_help} (default {backends[0]})")
    return command


@dataclass
class Solved:
    """What a file command's solve gives :func:`run_file_command` for one chunk of rows: how
    many rows, how many of them valid, ``OUT.csv``'s rows for them, and a note for the closing
    line (a hardware backend's accuracy promise)."""
    rows: int
    valid: int
    table: Iterable
    note: "str | None" = None


@dataclass(frozen=True)
class FileTable:
    """A file command's files for a robot: ``IN.csv``'s ``columns``, ``OUT.csv``'s
    ``header``, and what a row is (``"poses"``)."""
    columns: list
    header: list
    noun: str


def run_file_command(args, name, source, table, solve, file_errors=(), load=None,
                     rows_per_chunk=None):
    """Run a file command (ik, inertia, dynamics) in chunks, memory bounded at any file size:
    load ``--robot``, ``table(robot)`` (a :class:`FileTable`), then for each chunk of the input
    (:func:`~robohw.support.csv_table.read_column_chunks`) ``solve(robot, values)`` (a
    :class:`Solved`) and write its rows, and say what was written. The first chunk is solved
    before the output opens: a bad header or a refused argument writes nothing. A bad robot
    file, input row or argument (``file_errors``, and what the argument checks raise) is one
    line, exit 2; a regular file is then left as it was, while standard output or a FIFO keeps
    the rows written before the bad one. ``--out`` is checked against the inputs by
    :func:`robohw.commands.main`, before any work. ``load``: what loads the robot (default
    ``load_robot(args.robot, base=args.base, tip=args.tip)``); ``rows_per_chunk``: the chunk's
    rows (default :data:`~robohw.support.csv_table.CHUNK_ROWS`; a command whose rows depend on
    the row before reads its file as one chunk)."""
    from robohw.robots import RobotFileError, load_robot
    from robohw.support import csv_table
    from robohw.support.csv_table import CsvFileError, open_rows, read_column_chunks
    rows = valid = 0
    note = None
    try:
        robot = load_robot(args.robot, base=args.base, tip=args.tip) if load is None \
            else load()
        files = table(robot)
        chunks = read_column_chunks(getattr(args, source), files.columns,
                                    rows_per_chunk or csv_table.CHUNK_ROWS)
        first = next(chunks, None)
        if first is None:               # a header alone: no rows
            import numpy as np
            first = np.zeros((0, len(files.columns)))
        solved = solve(robot, first)
        with open_rows(args.out, files.header) as write:
            while solved is not None:
                write(solved.table)
                rows, valid, note = rows + solved.rows, valid + solved.valid, solved.note
                values = next(chunks, None)
                solved = None if values is None else solve(robot, values)
    except (RobotFileError, CsvFileError, *file_errors, *ARGUMENT_ERRORS) as error:
        return usage(name, error)
    note = f"; {note}" if note else ""
    print(f"{rows} {files.noun}, {valid} valid: {args.out}{note}", file=sys.stderr)
    return 0
