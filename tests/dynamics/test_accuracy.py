"""The accuracy the Newton-Euler designs promise (robohw.dynamics.inverse.accuracy): every row
marked valid within its proven bound, for random robots with random limits, widths and states; the
refusal of a design whose bound is too large a share of the torques its limits allow."""

import dataclasses
import re

import numpy as np
import pytest
from tiers import heavy_unless

from robohw.cordic.config import CordicConfig
from robohw.cordic.model import cordic_model
from robohw.dataflow.plan import TRIG_ERROR_LSB
from robohw.dynamics import NewtonEulerPlan
from robohw.dynamics.inverse.accuracy import BOUND_FRACTION, largest_torque
from robohw.dynamics.inverse.array_plan import ArrayPlan
from robohw.dynamics.inverse.model import model_torques
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.registry import DESIGNS
from robohw.robots import Robot, load_robot
from robohw.robots.sampling import random_robot, sample_states


def with_limits(robot, rng):
    """``robot`` with every joint's rate and acceleration limits drawn over decades (0.1 to
    1,000 per second, 0.1 to 1e5 per second squared): placeholder limits included."""
    joints = tuple(dataclasses.replace(joint, velocity_limit=float(10 ** rng.uniform(-1, 3)),
                                       acceleration_limit=float(10 ** rng.uniform(-1, 5)))
                   for joint in robot.joints)
    return Robot(f"{robot.name}, random limits", joints)


def corner_states(robot, count, rng):
    """States within the limits, every other one with its rates and accelerations at them."""
    q, qd, qdd = sample_states(robot, count, rng)
    velocity = np.array([j.velocity_limit for j in robot.joints])
    acceleration = np.array([j.acceleration_limit for j in robot.joints])
    corner = np.arange(count) % 2 == 1
    qd[corner] = rng.choice([-1.0, 1.0], qd[corner].shape) * velocity
    qdd[corner] = rng.choice([-1.0, 1.0], qdd[corner].shape) * acceleration
    return q, qd, qdd


def assert_within_bound(plan, states):
    tau, valid = model_torques(plan, *states)
    reference = inverse_dynamics(plan.robot, *states)
    assert valid.all()
    # float64's own rounding of the reference, far below any bound here.
    slack = 1e-12 * max(plan.bounds.tau)
    excess = np.abs(tau - reference) - (np.array(plan.accuracy.bounds) + slack)
    assert excess.max() <= 0, (plan.width, excess.max(), plan.accuracy.bounds)
    return np.abs(tau - reference).max(0) / np.array(plan.accuracy.bounds)


@pytest.mark.parametrize("integer_bits", [3, 2])
@pytest.mark.parametrize("width", heavy_unless([16, 18, 24], small=(16, 18)))
def test_the_angles_cordic_keeps_its_bound_at_every_angle(width, integer_bits):
    # The plans' bound takes cos and sin within TRIG_ERROR_LSB of the binary angle's: checked
    # at every angle of the width (a stated, measured bound above 24 bits), in both formats
    # of TracedPlan.trig_integer_bits.
    config = CordicConfig("circular", "rotation", width=width, frac_bits=width - integer_bits)
    one, lsb = 1 << config.frac_bits, 2.0 ** -config.frac_bits
    worst = 0.0
    for start in range(-(1 << (width - 1)), 1 << (width - 1), 1 << 20):
        z = np.arange(start, min(start + (1 << 20), 1 << (width - 1)), dtype=np.int64)
        out = cordic_model(config, np.full(z.shape, one), np.zeros_like(z), z)
        angle = z * (2 * np.pi / 2.0 ** width)
        worst = max(worst, np.abs(out.x * lsb - np.cos(angle)).max() / lsb,
                    np.abs(out.y * lsb - np.sin(angle)).max() / lsb)
    assert 0.5 < worst <= TRIG_ERROR_LSB


@pytest.mark.parametrize("seed", range(24))
def test_every_valid_row_is_within_the_bound(seed):
    rng = np.random.default_rng(700 + seed)
    robot = with_limits(random_robot(rng, int(rng.integers(1, 8)), prismatic=0.3), rng)
    width = int(rng.integers(16, 32))
    plan = NewtonEulerPlan(robot, width=width, bound_fraction=None)
    used = assert_within_bound(plan, corner_states(robot, 1500, rng))
    assert used.max() < 1           # and the bound is not vacuous: some error is measured
    assert used.max() > 0


@pytest.mark.parametrize("name, width", [("puma560", 18), ("stanford", 24), ("puma560", 40)])
def test_the_shipped_arms_are_within_the_bound(name, width):
    robot = load_robot(name)
    plan = NewtonEulerPlan(robot, width=width)
    assert_within_bound(plan, corner_states(robot, 4000, np.random.default_rng(width)))


@pytest.mark.parametrize("processors", [1, 3])
def test_the_array_keeps_the_same_promise(processors):
    rng = np.random.default_rng(90 + processors)
    robot = with_limits(random_robot(rng, 4, prismatic=0.3), rng)
    plan = ArrayPlan(robot, processors=processors, width=20, bound_fraction=None)
    assert_within_bound(plan, corner_states(robot, 1000, rng))


def test_the_shipped_designs_are_not_refused_at_their_defaults():
    for name in ("dynamics-pipelined", "dynamics-array"):
        design = DESIGNS[name]
        plan = design.build().plan
        assert plan.accuracy.fraction <= BOUND_FRACTION
    for robot in ("puma560", "stanford"):
        assert NewtonEulerPlan(robot, width=18).accuracy.fraction <= BOUND_FRACTION


def test_the_largest_torque_is_one_the_limits_allow():
    # An estimate from below: reached by a state within the limits, and under the proven
    # norm bound of every torque.
    robot = load_robot("puma560")
    largest = largest_torque(robot)
    plan = NewtonEulerPlan(robot, width=24)
    assert plan.accuracy.largest_torque == largest
    assert largest <= max(plan.bounds.tau)
    q, qd, qdd = sample_states(robot, 4000, np.random.default_rng(1))
    assert np.abs(inverse_dynamics(robot, q, qd, qdd)).max() <= largest


def test_a_bound_too_large_for_the_limits_is_refused_in_one_line():
    robot = load_robot("puma560")
    with pytest.raises(ValueError) as refused:
        NewtonEulerPlan(robot, width=16)
    message = str(refused.value)
    assert "\n" not in message
    # The file, the design and width, the quantity, what weighs and what would serve.
    assert message.startswith(f"{robot.source}: the pipelined design at 16 bits: its torques "
                              f"are proven within ")
    assert "of the 53.5 N m its limits allow, more than the 1.00% allowed (--bound-fraction); " \
        in message
    # The limit named is the one whose halving lowers the share most, by at least 5 %.
    assert "joint 2's velocity_limit of 1 rad/s weighs most (halved: " in message
    serves = re.search(r"; what would serve: --width 18, a tighter velocity_limit for joint 2 in "
                       r"the robot's sidecar or --bound-fraction (\S+)$", message)
    # Each remedy named serves: the width, and the share (the same width then planned).
    assert NewtonEulerPlan(robot, width=18).accuracy.fraction <= 0.01
    assert NewtonEulerPlan(robot, width=16, bound_fraction=float(serves.group(1))).accuracy \
        .fraction > 0.01


def test_a_placeholder_limit_is_named_with_the_width_that_meets_it():
    # A 3-joint arm whose wrist may turn at 1,000 rad/s: its torques take the bits.
    robot = random_robot(np.random.default_rng(5), 3, prismatic=0.0)
    joints = list(robot.joints)
    joints[2] = dataclasses.replace(joints[2], velocity_limit=1000.0)
    fast = Robot("fast wrist", tuple(joints))
    with pytest.raises(ValueError, match=r"^fast wrist: the pipelined design at 18 bits: .*; what "
                                         r"would serve: --width \d+ or --bound-fraction \S+$"):
        NewtonEulerPlan(fast, width=18)
    with pytest.raises(ValueError, match="bound_fraction must be a positive number, not 0"):
        NewtonEulerPlan(robot, bound_fraction=0)


TWO_LINK = """name = "two links"
gravity = [0.0, -9.81, 0.0]
[[joint]]
type = "revolute"
a = 1.0
alpha = 0.0
d = 0.0
offset = 0.0
velocity_limit = {velocity}
acceleration_limit = 10.0
mass = 2.0
com = [-0.5, 0.0, 0.0]
inertia = [0.01, 0.1, 0.1, 0.0, 0.0, 0.0]
[[joint]]
type = "revolute"
a = 0.5
alpha = 0.0
d = 0.0
offset = 0.0
velocity_limit = 2.0
acceleration_limit = 10.0
mass = 1.0
com = [-0.25, 0.0, 0.0]
inertia = [0.005, 0.02, 0.02, 0.0, 0.0, 0.0]
"""


def run_dynamics(tmp_path, velocity, *options):
    from robohw.commands import main
    robot = tmp_path / "two.toml"
    robot.write_text(TWO_LINK.format(velocity=velocity))
    states = tmp_path / "states.csv"
    states.write_text("q1,q2,qd1,qd2,qdd1,qdd2\n0.3,0.5,1.0,0.5,0.2,0.1\n")
    out = tmp_path / "tau.csv"
    status = main(["dynamics", "--robot", str(robot), "--states", str(states), "--out",
                   str(out), *options])
    return status, out


def test_limits_beyond_float64_are_one_line_and_the_float_backend_keeps_the_file(tmp_path,
                                                                               capsys):
    status, out = run_dynamics(tmp_path, "1e300", "--backend", "model")
    err = capsys.readouterr().err
    assert status == 2 and not out.exists() and err.count("\n") == 1
    assert err.startswith(f"robohw dynamics: {tmp_path / 'two.toml'}: the dynamics' bounds "
                          f"overflow float64 (its largest value: joint 1's velocity_limit of "
                          f"1e+300)")
    status, out = run_dynamics(tmp_path, "1e300", "--backend", "float")
    assert status == 0 and out.read_text().splitlines()[1].endswith(",1")


def test_the_hardware_states_its_promise_and_wide_limits_are_refused(tmp_path, capsys):
    # At 1e6 rad/s (a placeholder) the torques' bits go to the largest torques those limits
    # allow: the bound, millions of N m, is a small share of them but 1e5 times what gravity
    # and the acceleration limits ask of a joint (robohw.dynamics.inverse.accuracy.torque_scale), so
    # every design is refused, in one line naming the velocity limit; at 2 rad/s the promise is
    # said on the closing line.
    for design, bound in (("engine", "4.12e+06"), ("pipelined", "5.4e+07")):
        status, out = run_dynamics(tmp_path, "1e6", "--backend", "model", "--design", design,
                                   "--width", "24")
        err = capsys.readouterr().err
        assert status == 2 and not out.exists() and err.count("\n") == 1
        assert f"the {design} design at 24 bits: its torques are proven within {bound} N m, " \
            in err and \
            "times the 25.1 N m gravity and the acceleration limits ask of a joint (more " \
            "than 10%: placeholder velocity limits?); joint 1's velocity_limit of 1e+06 " \
            "rad/s weighs most" in err
    status, out = run_dynamics(tmp_path, "2", "--backend", "model")
    err = capsys.readouterr().err
    assert status == 0 and err.startswith("1 states, 1 valid: ") and \
        "; each torque proven within " in err
    # The largest-torque rule comes first: one bit too few, the width that meets it is named.
    status, out = run_dynamics(tmp_path, "1e6", "--backend", "model", "--width", "18",
                               "--design", "pipelined")
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "; what would serve: --width 19 " in err
    # A looser bound_fraction passes that rule; the placeholder rule still refuses.
    status, out = run_dynamics(tmp_path, "1e6", "--backend", "model", "--width", "18",
                               "--design", "pipelined", "--bound-fraction", "0.05")
    assert status == 2 and "placeholder velocity limits?" in capsys.readouterr().err
    status, out = run_dynamics(tmp_path, "2", "--backend", "float", "--bound-fraction", "0.05")
    err = capsys.readouterr().err
    assert status == 2 and "--bound-fraction applies to the hardware backends" in err


def test_the_torque_scale_is_gravity_or_the_acceleration_limits_alone():
    # Derived again with the inertia matrix of the Jacobian formulation (robohw.systolic):
    # per position, |g(q)| and |H(q)| times the acceleration limits, the largest entry.
    from robohw.dynamics.inverse.accuracy import LIMIT_STATES, torque_scale
    from robohw.robots.sampling import sample_joints, within_a_turn
    from robohw.systolic.reference import jacobian_inertia
    for name in ("puma560", "ur5"):
        robot = load_robot(name)
        q = within_a_turn(robot, sample_joints(robot, LIMIT_STATES, np.random.default_rng(0)))
        still = np.zeros_like(q)
        gravity = np.abs(inverse_dynamics(robot, q, still, still))
        limits = np.array([joint.acceleration_limit for joint in robot.joints])
        inertial = np.abs(jacobian_inertia(robot, q)) @ limits
        assert torque_scale(robot) == pytest.approx(max(gravity.max(), inertial.max()),
                                                    rel=1e-12)
        # The velocity limits do not enter it.
        faster = dataclasses.replace(robot, joints=tuple(
            dataclasses.replace(j, velocity_limit=1e6) for j in robot.joints))
        assert torque_scale(faster) == torque_scale(robot)
        # Torque limits cap it (their largest), only when every joint has one.
        limited = [dataclasses.replace(j, torque_limit=10.0) for j in robot.joints]
        capped = dataclasses.replace(robot, joints=tuple(limited))
        assert torque_scale(capped) == 10.0 < torque_scale(robot)
        limited[0] = dataclasses.replace(limited[0], torque_limit=None)
        partly = dataclasses.replace(robot, joints=tuple(limited))
        assert torque_scale(partly) == pytest.approx(max(gravity.max(), inertial.max()),
                                                     rel=1e-12)
