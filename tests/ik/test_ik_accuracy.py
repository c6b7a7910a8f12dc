import pytest

from robohw.ik.accuracy import ik_accuracy
from robohw.ik.puma_graph import GRAPHS
from robohw.robots import load_robot


@pytest.mark.parametrize("graph", GRAPHS)
def test_accuracy_improves_with_width_and_meets_the_goal_from_24_bits(graph):
    rows = ik_accuracy(load_robot(), widths=(16, 24, 32), count=20_000, seed=5,
                       make_graph=GRAPHS[graph])
    assert [r["width"] for r in rows] == [16, 24, 32]
    assert all(r["valid"] == r["filtered"] > 0.8 * r["poses"] for r in rows)
    maxima = [r["joint_max_rad"] for r in rows]
    assert maxima[0] > maxima[1] > maxima[2]
    # The goal from 24 bits, away from singularities (|sin q5| >= 0.05): every joint within
    # 1e-4 rad of float64, q4 and q6 included (2.1e-4 before the PUMA format's [-2, 2) m
    # ports and guard bit); the hand within 5 micrometres.
    for row in rows[1:]:
        assert row["joint_max_rad"] < 1e-4 and row["position_max_mm"] < 0.005
