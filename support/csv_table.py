"""CSV files of named float columns, as the command line reads and writes them.

Read: UTF-8 with or without a byte-order mark, ``\n`` or ``\r\n``, ``-`` for standard input,
trailing blank lines ignored, columns by header name in any order, extra columns ignored, a
needed column named twice an error; numbers in plain decimal or exponent notation
(``-1.5``, ``2e-3``), anything else (``1_5``, full-width digits, non-finite values) an error;
fields separated by commas (a file separated by ``;`` or tabs is named so).

:func:`read_columns` returns the named columns (any order in the file, extra columns ignored)
and raises :class:`CsvFileError` with one line naming the file, line and column of the first
problem. :func:`write_rows` writes atomically: a failure leaves no file behind.
"""

import contextlib
import csv
import io
import math
import pathlib
import re
import sys

import numpy as np

from robohw.support.atomic import STANDARD_STREAM, atomic_open

__all__ = ["CsvFileError", "read_columns", "write_rows"]


class CsvFileError(ValueError):
    """A bad CSV file; the message names the file, line and column."""


# A number as the files hold it: plain decimal or exponent notation, ASCII digits only
# (Python's float() also takes "1_5" and full-width digits, which no CSV writer means).
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)
_NOT_FINITE = {"inf", "infinity", "nan"}
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
    opened = _opened(path)
    path = "standard input" if str(path) == STANDARD_STREAM else pathlib.Path(path)
    try:
        with opened() as file:
            rows = list(csv.reader(file))
    except OSError as error:
        raise CsvFileError(f"{path}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise CsvFileError(f"{path}: not UTF-8 text ({error.reason} at byte "
                           f"{error.start})") from None
    while rows and not any(field.strip() for field in rows[-1]):
        rows.pop()  # trailing blank lines
    if not rows:
        raise CsvFileError(f"{path}, line 1: empty file; expected the header "
                           f"{','.join(columns)}")
    header = [name.strip() for name in rows[0]]
    if len(header) == 1 and len(columns) > 1:
        for delimiter, said in _OTHER_DELIMITERS.items():
            if delimiter in header[0]:
                raise CsvFileError(f"{path}, line 1: fields separated by {said}; separate "
                                   f"them by commas")
    for name in columns:
        if name not in header:
            raise CsvFileError(f"{path}, line 1, column {name}: missing")
        if header.count(name) > 1:
            raise CsvFileError(f"{path}, line 1, column {name}: appears {header.count(name)} "
                               f"times")
    index = [header.index(name) for name in columns]
    values = np.zeros((len(rows) - 1, len(columns)))
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise CsvFileError(f"{path}, line {line}: {len(row)} fields, the header has "
                               f"{len(header)}")
        for k, (name, column) in enumerate(zip(columns, index)):
            text = row[column].strip()
            value = _number(text)
            if not isinstance(value, str) and not math.isfinite(value):
                value = "not finite"        # beyond a float64: 1e999
            if isinstance(value, str):
                raise CsvFileError(f"{path}, line {line}, column {name}: {value}: {text!r}")
            values[line - 2, k] = value
    return values


def write_rows(path, header, rows):
    """Write ``header`` and ``rows`` (sequences of numbers; floats are written exactly) to
    ``path`` atomically."""
    with atomic_open(path, newline="") as file:
        writer = csv.writer(file)
        writer.writerow(header)
        for row in rows:
            writer.writerow([repr(float(v)) if isinstance(v, (float, np.floating)) else v
                             for v in row])
