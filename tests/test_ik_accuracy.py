from robohw.robots import load_robot
from robohw.accuracy.ik import ik_accuracy


def test_accuracy_improves_with_width_and_meets_the_24_bit_goal_for_the_arm():
    rows = ik_accuracy(load_robot(), widths=(16, 24, 32), count=20_000, seed=5)
    assert [r["width"] for r in rows] == [16, 24, 32]
    assert all(r["valid"] == r["filtered"] > 0.8 * r["poses"] for r in rows)
    maxima = [r["joint_max_rad"] for r in rows]
    assert maxima[0] > maxima[1] > maxima[2]
    # 24 bits: the arm joints within 1e-4 rad (the goal); the wrist joints, amplified by
    # 1/|sin q5| near the filter's edge, within 5e-4; hand position within 2 micrometres.
    assert rows[1]["joint_max_rad_q1_q3"] < 1e-4
    assert rows[1]["joint_max_rad"] < 5e-4 and rows[1]["position_max_mm"] < 0.002
