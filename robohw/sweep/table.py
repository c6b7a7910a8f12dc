"""``results.csv``: one row per point, appended as each point's measurements arrive, read back
to resume, and rewritten in a fixed order at the end, so two runs of a sweep give the same
file byte for byte.

Columns: ``design, width, fold, device`` (``design, robot, width, fold, device`` in a sweep for a
robot, ``--robot``: the robot's label), then the figures of each measurement (in
:data:`~robohw.sweep.space.MEASUREMENTS`' order, whatever order the command line gave), then
``valid`` (1 when every measurement of the point succeeded) and, with reasons, ``reason``
(the first failed measurement's, ``synth: does not fit: ...``). An absent figure (a design
that did not place has no Fmax) is an empty field. Nothing about the run (times, hosts,
workers, cache hits) is in the table.
"""

import csv
import os

from robohw.hw.devices import DEVICES
from robohw.registry import DESIGNS
from robohw.support.atomic import atomic_open
from robohw.sweep.evaluate import FIGURES
from robohw.sweep.space import MEASUREMENTS

__all__ = ["POINT_COLUMNS", "ResultsFileError", "point_columns", "columns", "point_row",
           "ResultsTable"]

POINT_COLUMNS = ("design", "width", "fold", "device")


class ResultsFileError(ValueError):
    """An existing ``results.csv`` this sweep cannot continue: one line naming the file."""


def point_columns(robot=False):
    """The columns naming a point: :data:`POINT_COLUMNS`, with ``robot`` after the design in a
    sweep for a robot."""
    return [POINT_COLUMNS[0], *(["robot"] if robot else []), *POINT_COLUMNS[1:]]


def columns(measurements, reasons=False, robot=False):
    """The header of a sweep measuring ``measurements`` (for a robot: ``robot``)."""
    figures = [name for m in MEASUREMENTS if m in measurements for name in FIGURES[m]]
    return [*point_columns(robot), *figures, "valid", *(["reason"] if reasons else [])]


def _points_in(header):
    return point_columns("robot" in header)


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):
        return repr(value)
    return str(value)


def point_row(point, outcomes, header):
    """The row of ``point`` from ``{measurement: outcome}`` as strings, in ``header``'s
    order."""
    values = dict(zip(point_columns(point.robot is not None), point.key))
    reason = None
    for measurement in MEASUREMENTS:
        if measurement not in outcomes:
            continue
        outcome = outcomes[measurement]
        values.update({k: _cell(v) for k, v in outcome["figures"].items()})
        if not outcome["valid"] and reason is None:
            reason = f"{measurement}: {outcome['reason']}"
    values["valid"] = "0" if reason else "1"
    values["reason"] = reason or ""
    return [values.get(name, "") for name in header]


def _order(key):
    """The fixed order of rows: designs and devices as their registries list them, then
    robot, width and fold (rows of names no longer known come last)."""
    design, *robot, width, fold, device = key
    names, devices = list(DESIGNS), list(DEVICES)
    return (names.index(design) if design in names else len(names), design, *robot,
            int(width), int(fold),
            devices.index(device) if device in devices else len(devices), device)


def _parse(path, header):
    """``({point key: row}, lines)`` of the file at ``path`` (the first row of a point
    counts), or a :class:`ResultsFileError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ResultsFileError(f"{path}: {error}") from None
    if text and not text.endswith("\n"):
        # A run stopped in the middle of a row: the row is measured again.
        text = text[:text.rfind("\n") + 1]
    lines = list(csv.reader(text.splitlines()))
    if not lines or lines[0] != header:
        found = ",".join(lines[0]) if lines else "an empty file"
        raise ResultsFileError(f"{path}: written by another sweep (its columns: {found}); "
                               f"measure the same things or choose another --out")
    rows = {}
    for number, row in enumerate(lines[1:], start=2):
        if len(row) != len(header):
            raise ResultsFileError(f"{path}, line {number}: {len(row)} fields, the header has "
                                   f"{len(header)}")
        width, fold = row[header.index("width")], row[header.index("fold")]
        if not (width.isdigit() and fold.isdigit()):
            raise ResultsFileError(f"{path}, line {number}: width and fold must be integers, "
                                   f"not {width!r} and {fold!r}")
        rows.setdefault(tuple(row[:len(_points_in(header))]), row)
    return rows, lines


class ResultsTable:
    """``results.csv`` at ``path`` with ``header``: the rows already there (a resumed sweep
    skips their points) and an append of each new one, flushed to the disk at once."""

    def __init__(self, path, header):
        self.path, self.header = path, list(header)
        if path.exists():
            self.rows, lines = _parse(path, self.header)
        else:
            self.rows, lines = {}, [self.header]
        # The header alone, or the rows without a partial last one.
        with atomic_open(path, newline="") as file:
            csv.writer(file, lineterminator="\n").writerows(lines)

    @staticmethod
    def peek(path, header):
        """The points (as :attr:`SweepPoint.key`) already in the file at ``path``, which is
        left as it is."""
        return set(_parse(path, list(header))[0]) if path.exists() else set()

    def __contains__(self, point):
        return point.key in self.rows

    def append(self, point, row):
        """Add ``point``'s ``row`` (strings) at the end of the file now."""
        self.rows[point.key] = row
        with open(self.path, "a", newline="", encoding="utf-8") as file:
            csv.writer(file, lineterminator="\n").writerow(row)
            file.flush()
            os.fsync(file.fileno())

    def finish(self):
        """Rewrite the file in the fixed row order; return the rows as dicts."""
        ordered = [self.rows[key] for key in sorted(self.rows, key=_order)]
        with atomic_open(self.path, newline="") as file:
            writer = csv.writer(file, lineterminator="\n")
            writer.writerow(self.header)
            writer.writerows(ordered)
        return [dict(zip(self.header, row)) for row in ordered]
