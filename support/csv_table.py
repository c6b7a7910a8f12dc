"""CSV files of named float columns, as the command line reads and writes them.

Read: UTF-8 with or without a byte-order mark, ``\n`` or ``\r\n``, trailing blank lines
ignored, columns by header name in any order, extra columns ignored, a needed column named twice
an error, non-finite values an error.

:func:`read_columns` returns the named columns (any order in the file, extra columns ignored)
and raises :class:`CsvFileError` with one line naming the file, line and column of the first
problem. :func:`write_rows` writes atomically: a failure leaves no file behind.
"""

import csv
import math
import pathlib

import numpy as np

from robohw.support.atomic import atomic_open

__all__ = ["CsvFileError", "read_columns", "write_rows"]


class CsvFileError(ValueError):
    """A bad CSV file; the message names the file, line and column."""


def read_columns(path, columns):
    """Float array of shape ``(rows, len(columns))`` from ``path``, columns by name."""
    path = pathlib.Path(path)
    try:
        # utf-8-sig: a byte-order mark (spreadsheet programs write one) is not a column name.
        with open(path, newline="", encoding="utf-8-sig") as file:
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
            try:
                value = float(text)
            except ValueError:
                raise CsvFileError(f"{path}, line {line}, column {name}: not a number: "
                                   f"{text!r}") from None
            if not math.isfinite(value):
                raise CsvFileError(f"{path}, line {line}, column {name}: not finite: {text!r}")
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
