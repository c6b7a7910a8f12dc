"""CSV files of named float columns, as the command line reads and writes them.

Read: UTF-8 with or without a byte-order mark, ``\n`` or ``\r\n``, ``-`` for standard input,
trailing blank lines ignored, columns by header name in any order, extra columns ignored, a
needed column named twice an error; numbers in plain decimal or exponent notation
(``-1.5``, ``2e-3``), anything else (``1_5``, full-width digits, non-finite values) an error;
fields separated by commas (a file separated by ``;`` or tabs is named so).

:func:`read_columns` returns the named columns (any order in the file, extra columns ignored)
and raises :class:`CsvFileError` with one line naming the file, line and column of the first
problem; :func:`read_column_chunks` gives them in chunks of :data:`CHUNK_ROWS` rows, memory
bounded at any size. :func:`write_rows` writes atomically: a failure leaves no file behind;
:func:`open_rows` does so for rows that come in chunks.
"""

import contextlib
import csv
import io
import math
import pathlib
import re
import sys

import numpy as np

from robohw.hw.checks import check_positive_integer
from robohw.support.atomic import STANDARD_STREAM, atomic_open

__all__ = ["CsvFileError", "CHUNK_ROWS", "read_columns", "read_column_chunks", "write_rows",
           "open_rows"]


class CsvFileError(ValueError):
    """A bad CSV file; the message names the file, line and column."""


# A number as the files hold it: plain decimal or exponent notation, ASCII digits only
# (Python's float() also takes "1_5" and full-width digits, which no CSV writer means).
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)
_NOT_FINITE = {"inf", "infinity", "nan"}
# Rows a chunk of a file command holds (read_column_chunks): 10,000 keep the largest per-row
# state (the dynamics model's, 11 KB a row) near 110 MB.
CHUNK_ROWS = 10_000
# Separators a spreadsheet may write instead of commas.
_OTHER_DELIMITERS = {";": "';'", "\t": "tabs", "|": "'|'"}


def _opened(path):
    """What opens the file at ``path`` as text (UTF-8; a byte-order mark, as spreadsheet
    programs write, is not a column name), ``-`` standard input (left open after reading)."""
    if str(path) == STANDARD_STREAM:
        return lambda: contextlib.nullcontext(
            io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", newline=""))
    return lambda: open(path, newline="", encoding="utf-8-sig")


def _number(text):
    """``text`` as a float, or the reason it is not one."""
    if _NUMBER.fullmatch(text):
        return float(text)
    if text.lower().lstrip("+-") in _NOT_FINITE:
        return "not finite"
    return "not a number"


def read_columns(path, columns):
    """Float array of shape ``(rows, len(columns))`` from ``path`` (``-``: standard input),
    columns by name."""
    chunks = list(read_column_chunks(path, columns))
    return np.concatenate(chunks) if chunks else np.zeros((0, len(columns)))


def read_column_chunks(path, columns, rows_per_chunk=CHUNK_ROWS):
    """:func:`read_columns` in chunks: float arrays of up to ``rows_per_chunk`` rows, read as
    they are used (memory bounded at any file size). The header is checked before the first
    chunk; a bad row raises :class:`CsvFileError` when its chunk is read, the chunks before it
    already given."""
    check_positive_integer("rows_per_chunk", rows_per_chunk)
    opened = _opened(path)
    path = "standard input" if str(path) == STANDARD_STREAM else pathlib.Path(path)
    try:
        with opened() as file:
            yield from _chunks(path, csv.reader(file), columns, rows_per_chunk)
    except OSError as error:
        raise CsvFileError(f"{path}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise CsvFileError(f"{path}: not UTF-8 text ({error.reason} at byte "
                           f"{error.start})") from None


def _header(path, reader, columns):
    """The column index of each of ``columns`` in the header, the first non-blank line."""
    for row in reader:
        if any(field.strip() for field in row):
            break
    else:
        raise CsvFileError(f"{path}, line 1: empty file; expected the header "
                           f"{','.join(columns)}")
    header = [name.strip() for name in row]
    if len(header) == 1 and len(columns) > 1:
        for delimiter, said in _OTHER_DELIMITERS.items():
            if delimiter in header[0]:
                raise CsvFileError(f"{path}, line {reader.line_num}: fields separated by "
                                   f"{said}; separate them by commas")
    for name in columns:
        if name not in header:
            raise CsvFileError(f"{path}, line {reader.line_num}, column {name}: missing")
        if header.count(name) > 1:
            raise CsvFileError(f"{path}, line {reader.line_num}, column {name}: appears "
                               f"{header.count(name)} times")
    return len(header), [header.index(name) for name in columns]


def _chunks(path, reader, columns, rows_per_chunk):
    fields, index = _header(path, reader, columns)
    values = np.zeros((rows_per_chunk, len(columns)))
    filled = 0
    blank = None                    # the first of the blank lines since the last row
    for row in reader:
        if not any(field.strip() for field in row):
            blank = blank or reader.line_num
            continue
        line = reader.line_num
        if blank is not None:       # blank lines are ignored at the end only
            raise CsvFileError(f"{path}, line {blank}: 0 fields, the header has {fields}")
        if len(row) != fields:
            raise CsvFileError(f"{path}, line {line}: {len(row)} fields, the header has "
                               f"{fields}")
        for k, (name, column) in enumerate(zip(columns, index)):
            text = row[column].strip()
            value = _number(text)
            if not isinstance(value, str) and not math.isfinite(value):
                value = "not finite"        # beyond a float64: 1e999
            if isinstance(value, str):
                raise CsvFileError(f"{path}, line {line}, column {name}: {value}: {text!r}")
            values[filled, k] = value
        filled += 1
        if filled == rows_per_chunk:
            yield values.copy()
            filled = 0
    if filled:
        yield values[:filled].copy()


def write_rows(path, header, rows):
    """Write ``header`` and ``rows`` (sequences of numbers; floats are written exactly) to
    ``path`` atomically."""
    with open_rows(path, header) as write:
        write(rows)


@contextlib.contextmanager
def open_rows(path, header):
    """A CSV output at ``path`` with ``header`` written: yields ``write(rows)``, which appends
    rows (floats written exactly) as they come. The file is written as every output is
    (:mod:`robohw.support.atomic`): a regular file appears only when the ``with`` block
    succeeds; standard output or a FIFO has what was written when the block fails."""
    with atomic_open(path, newline="") as file:
        writer = csv.writer(file)
        writer.writerow(header)

        def write(rows):
            writer.writerows([repr(float(v)) if isinstance(v, (float, np.floating)) else v
                              for v in row] for row in rows)
        yield write
