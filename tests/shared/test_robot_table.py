"""Per-robot measurements as data (robohw.sim.robot_table): a row is found by its robot's digest
now; a row measured on another version of the robot's file warns and is not used."""

import pytest

from robohw.dynamics.inverse.engine_defaults import (
    DEFAULTS_FILE,
    engine_robot_intervals,
    engine_robot_widths,
    robot_digest,
)
from robohw.robots import load_robot
from robohw.sim.robot_table import MeasuredTableWarning, measured_table
from robohw.systolic.designs import WIDTHS_FILE, inertia_digest, robot_widths


def test_the_shipped_tables_match_their_robots_files():
    # Every row's digest is its robot's today: none is dropped (a dropped row warns).
    import tomllib
    for path, digest_of in ((DEFAULTS_FILE, robot_digest), (WIDTHS_FILE, inertia_digest)):
        rows = tomllib.loads(path.read_text())
        assert {row["digest"] for row in rows.values()} == \
            {digest_of(load_robot(name)) for name in rows}
    ur5 = robot_digest(load_robot("ur5"))
    assert engine_robot_widths()[ur5] == 20 and engine_robot_intervals()[ur5] == 5
    assert robot_widths()[inertia_digest(load_robot("panda"))] == {"linear": 22, "logdepth": 19}


def test_a_row_of_another_version_of_its_robot_warns_and_is_left_out(tmp_path):
    table = tmp_path / "table.toml"
    now = robot_digest(load_robot("puma560"))
    table.write_text(f'[puma560]\ndigest = "{now}"\nwidth = 18\n\n'
                     f'[ur5]\ndigest = "0123456789abcdef"\nwidth = 20\n')
    with pytest.warns(MeasuredTableWarning, match=r"^table.toml: ur5's defaults were measured "
                                                  r"on another version of its file \(digest "
                                                  r"0123456789abcdef, now [0-9a-f]{16}\): not "
                                                  r"used$"):
        rows = measured_table(table, robot_digest)
    assert rows == {now: {"width": 18}}


def test_a_row_without_a_digest_is_refused(tmp_path):
    table = tmp_path / "table.toml"
    table.write_text("[puma560]\nwidth = 18\n")
    with pytest.raises(ValueError, match=r"^table.toml: \[puma560\] needs a digest$"):
        measured_table(table, robot_digest)
