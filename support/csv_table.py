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
:func:`open_rows` does so for rows that come in chunks. A command's result file has its result
columns, then ``valid`` and, with ``--reasons``, ``reason`` (:func:`result_header`,
:func:`result_rows`).
"""

import contextlib
import csv
import io
import itertools
import math
import pathlib
import re
import sys

import numpy as np

from robohw.hw.checks import check_positive_integer
from robohw.support.atomic import STANDARD_STREAM, atomic_open

__all__ = ["CsvFileError", "CHUNK_ROWS", "read_columns", "read_column_chunks", "write_rows",
           "open_rows", "result_header", "result_rows"]


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
            io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig"))
    return lambda: open(path, encoding="utf-8-sig")


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
    already given.

    A chunk is parsed by numpy's C reader (``numpy.loadtxt``), which takes the same numbers as
    the rules above (plain decimal and exponent notation, ASCII digits); a chunk it refuses, or
    that holds a non-finite value, a blank line or a quote, is read again field by field for
    the one-line error (or the values) the rules give."""
    check_positive_integer("rows_per_chunk", rows_per_chunk)
    opened = _opened(path)
    path = "standard input" if str(path) == STANDARD_STREAM else pathlib.Path(path)
    try:
        with opened() as file:
            yield from _chunks(path, file, columns, rows_per_chunk)
    except OSError as error:
        raise CsvFileError(f"{path}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise CsvFileError(f"{path}: not UTF-8 text ({error.reason} at byte "
                           f"{error.start})") from None


def _header(path, file, columns):
    """``(line, fields, index)``: the header's line number (the first non-blank line), its
    number of fields and the column index of each of ``columns``."""
    line = 0
    for text in file:
        line += 1
        if text.strip():
            break
    else:
        raise CsvFileError(f"{path}, line 1: empty file; expected the header "
                           f"{','.join(columns)}")
    header = [name.strip() for name in next(csv.reader([text]))]
    if len(header) == 1 and len(columns) > 1:
        for delimiter, said in _OTHER_DELIMITERS.items():
            if delimiter in header[0]:
                raise CsvFileError(f"{path}, line {line}: fields separated by {said}; "
                                   f"separate them by commas")
    for name in columns:
        if name not in header:
            raise CsvFileError(f"{path}, line {line}, column {name}: missing")
        if header.count(name) > 1:
            raise CsvFileError(f"{path}, line {line}, column {name}: appears "
                               f"{header.count(name)} times")
    return line, len(header), [header.index(name) for name in columns]


def _chunks(path, file, columns, rows_per_chunk):
    line, fields, index = _header(path, file, columns)
    blank = None                    # the first of the blank lines since the last row
    while True:
        lines = list(itertools.islice(file, rows_per_chunk))
        if not lines:
            return
        first = line + 1
        line += len(lines)
        if blank is not None and any(text.strip() for text in lines):
            raise CsvFileError(f"{path}, line {blank}: 0 fields, the header has {fields}")
        values = _fast_chunk(lines, fields, index)
        if values is None:
            values, blank = _checked_chunk(path, lines, first, fields, columns, index, blank)
        if len(values):
            yield values


def _fast_chunk(lines, fields, index):
    """The chunk's values by numpy's reader, or ``None`` when it must be read field by field."""
    commas = fields - 1
    if any(text.count(",") != commas or '"' in text or not text.strip() for text in lines):
        return None
    try:
        values = np.loadtxt(lines, delimiter=",", usecols=index, ndmin=2, dtype=np.float64,
                            comments=None, quotechar=None)
    except ValueError:
        return None
    return values if np.isfinite(values).all() else None


def _checked_chunk(path, lines, first, fields, columns, index, blank):
    """``(values, blank)``: the chunk read field by field by the rules, lines numbered from
    ``first``; ``blank``, the first blank line not yet followed by a row."""
    values = np.zeros((len(lines), len(columns)))
    filled = 0
    for line, row in enumerate(csv.reader(lines), start=first):
        if not any(field.strip() for field in row):
            blank = blank or line
            continue
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
    return values[:filled], blank


def write_rows(path, header, rows):
    """Write ``header`` and ``rows`` (sequences of numbers; floats are written exactly) to
    ``path`` atomically."""
    with open_rows(path, header) as write:
        write(rows)


def result_header(columns, reasons=False, bounds=()):
    """A result file's header: ``columns``, the ``bounds`` columns (each value's proven bound,
    when asked), then ``valid`` and, with ``reasons``, ``reason`` (docs/conventions.md, CSV)."""
    return [*columns, *bounds, "valid"] + (["reason"] if reasons else [])


def result_rows(values, valid, reason=None, cells=None, bounds=None, row_bounds=None):
    """A result file's rows in :func:`result_header`'s columns: each of ``values``' rows
    (flattened) as floats, or through ``cells`` (a converter a column), then with ``bounds``
    (one a value, flattened as the values) or ``row_bounds`` (a row's own, one such row a
    row) those bounds on a valid row and zeros on another (its values are zeros too, and
    promised nothing), then ``valid`` as 1 or 0 and, when ``reason`` is given, the row's
    reason."""
    reason = reason if reason is not None else [None] * len(values)
    if row_bounds is not None:
        promises = ([float(b) for b in np.ravel(row)] for row in row_bounds)
    elif bounds is None:
        promises = itertools.repeat(())
    else:
        promises = itertools.repeat([float(b) for b in np.ravel(bounds)])
    for row, ok, why, promise in zip(values, valid, reason, promises):
        row = np.ravel(row)
        cells_of = map(float, row) if cells is None else (c(v) for c, v in zip(cells, row))
        promise = promise if ok else [0.0] * len(promise)
        yield [*cells_of, *promise, int(ok), *([why] if why else [])]


@contextlib.contextmanager
def open_rows(path, header):
    """A CSV output at ``path`` with ``header`` written: yields ``write(rows)``, which appends
    rows (floats written exactly) as they come. The file is written as every output is
    (:mod:`robohw.support.atomic`): a regular file appears only when the ``with`` block
    succeeds; standard output or a FIFO has what was written when the block fails."""
    with atomic_open(path, newline="") as file:
        file.write(_line(header))

        def write(rows):
            file.write("".join(map(_line, rows)))
        yield write


_PLAIN = {float, int}     # types whose repr is their CSV field


def _line(row):
    """One CSV line, as the csv module writes it but ended by ``\n``, as numpy, pandas and the
    Unix tools expect (a field quoted when it holds a comma, a quote or a line break), floats
    exactly (their shortest repr), built here because it takes two thirds of the csv module's
    time. A row of Python floats and ints, but for a last text field (a reason), is joined at
    once."""
    row = list(row)
    last = row[-1:] if row and type(row[-1]) is str else []
    head = row[:len(row) - len(last)]
    if set(map(type, head)) <= _PLAIN:
        fields = ",".join(map(repr, head))
        if last:
            fields = f"{fields},{_field(last[0])}" if head else _field(last[0])
        return fields + "\n"
    return ",".join([repr(v) if type(v) is float else _field(v) for v in row]) + "\n"


def _field(value):
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    text = str(value)
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text
