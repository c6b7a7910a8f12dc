"""The thesis's link computers in float64: the eight terms against the project's Newton-Euler
reference and Table 2.1's counts, the quintic trajectories, the schemes against a sample by
sample simulation with registers between the computers, and the thesis's printed numbers."""

import math

import numpy as np
import pytest

from robohw.dataflow.graph import Tracer
from robohw.distributed.link_terms import (
    TERM_OPERATIONS,
    LinkState,
    backward_terms,
    base_terms,
    body_terms,
    end_terms,
    forward_terms,
    joint_torque,
    link_states,
)
from robohw.distributed.prediction import (
    CORRECTION_OPERATIONS,
    SCHEMES,
    error_percent,
    scheme_torques,
)
from robohw.distributed.quintic import QuinticPath
from robohw.distributed.simplified_dynamics import bejczy_torques
from robohw.distributed.thesis import (
    DURATIONS,
    JOINT_KNOTS,
    PRINTED_TABLES,
    VIA_POINT,
    WORKED_CONFIGURATIONS,
    sample_trajectory,
    trajectory,
)
from robohw.dynamics.inverse.reference import inverse_dynamics, link_frame_torques
from robohw.robots import load_robot
from robohw.robots.kinematics import forward_kinematics
from robohw.robots.sampling import random_robot, sample_joints
from robohw.systolic.reference import jacobian_inertia


def _states(robot, rng, count=30):
    q = sample_joints(robot, count, rng)
    return q, rng.normal(size=q.shape), rng.normal(size=q.shape)


@pytest.mark.parametrize("n", [1, 2, 4, 7])
def test_the_exact_schemes_are_newton_euler_on_random_robots(n):
    rng = np.random.default_rng(200 + n)
    for _ in range(3):
        robot = random_robot(rng, n, prismatic=0.4)
        q, qd, qdd = _states(robot, rng)
        reference = link_frame_torques(robot, q, qd, qdd)
        for scheme in ("serial", "v1", "v2"):
            assert np.abs(scheme_torques(robot, q, qd, qdd, scheme) - reference).max() <= \
                1e-12 * np.abs(reference).max()


def _symbolic_link(tracer, revolute):
    def vector(name):
        return tuple(tracer.input(f"{name}{k}", -1, 1) for k in range(3))

    def matrix(name):
        return tuple(vector(f"{name}{r}") for r in range(3))
    return LinkState(revolute=revolute, R=matrix("R"), R_next=matrix("Rn"), AS=vector("AS"),
                     z_qd=vector("zqd"), z_qdd=vector("zqdd"), z0=vector("z0"),
                     mass=tracer.input("m", 0, 1), com=vector("com"), inertia=matrix("J"))


def test_each_revolute_term_costs_what_table_2_1_says():
    # Every operand a value (no structural zero), as the thesis counts: 138 + 119 = 257.
    tracer = Tracer(fold=False)
    link = _symbolic_link(tracer, revolute=True)

    def vector(name):
        return tuple(tracer.input(f"{name}{k}", -1, 1) for k in range(3))

    counted = {}

    def count(term, evaluate):
        before = len(tracer.nodes)
        result = evaluate()
        counts = tracer.counts(range(before, len(tracer.nodes)))
        counted[term] = (counts["mul"], counts["add"])
        return result

    W_prev, Wd_prev, a_prev = vector("W"), vector("Wd"), vector("a")
    # forward_terms evaluates the three in one call; split them by what each needs.
    W, Wd, a = count("forward", lambda: forward_terms(link, W_prev, Wd_prev, a_prev))
    F, N = count("body", lambda: body_terms(link, W, Wd, a))
    f, n = count("backward", lambda: backward_terms(link, F, N, vector("f"), vector("n")))
    count("u", lambda: joint_torque(link, f, n))

    def total(*terms):
        return tuple(sum(TERM_OPERATIONS[t][k] for t in terms) for k in range(2))
    assert counted == {"forward": total("AW", "AWd", "Aa"), "body": total("AF", "AN"),
                       "backward": total("Af", "An"), "u": total("u")}
    assert total(*TERM_OPERATIONS) == (138, 119)
    assert sum(CORRECTION_OPERATIONS) == 77


def test_quintic_segments_meet_their_knots():
    rng = np.random.default_rng(4)
    positions, velocities, accelerations = (rng.normal(size=(4, 3)) for _ in range(3))
    path = QuinticPath((0.0, 0.7, 1.1, 2.0), positions, velocities, accelerations)
    for k, t in enumerate(path.times):
        for side in (t - 1e-9, t + 1e-9) if 0 < k < 3 else (t,):
            q, qd, qdd = path.sample([min(max(side, 0), 2.0)])
            assert np.allclose(q[0], positions[k], atol=1e-7)
            assert np.allclose(qd[0], velocities[k], atol=1e-6)
            assert np.allclose(qdd[0], accelerations[k], atol=1e-5)
    # The derivatives are the position's (central differences).
    t = np.linspace(0.01, 1.99, 50)
    h = 1e-5
    q_plus, q_minus = path.sample(t + h)[0], path.sample(t - h)[0]
    _, qd, _ = path.sample(t)
    assert np.allclose((q_plus - q_minus) / (2 * h), qd, atol=1e-6)
    with pytest.raises(ValueError, match="times must increase from 0"):
        QuinticPath((0.0, 0.0), positions[:2], velocities[:2], accelerations[:2])
    with pytest.raises(ValueError, match=r"must each be \(4, N\)"):
        QuinticPath((0.0, 1, 2, 3), positions, velocities[:3], accelerations)
    with pytest.raises(ValueError, match=r"times must lie within \[0, 2.0\] s"):
        path.sample([2.5])


def test_the_thesis_trajectories():
    robot = load_robot("stanford_thesis")
    t, q, qd, qdd = sample_trajectory(1, 4.0)
    assert len(t) == 801 and t[-1] == 4.0
    knots = np.array([[math.radians(v) if k != 2 else v for k, v in enumerate(knot)]
                      for knot in JOINT_KNOTS])
    for k, time in enumerate((0.0, 1.4, 2.6, 4.0)):
        sample = round(time / 0.005)
        assert np.allclose(q[sample], knots[k], atol=1e-12)
    # At rest at both ends; the middle segment at constant velocity.
    assert np.abs(qd[[0, -1]]).max() < 1e-12 and np.abs(qdd[[0, -1]]).max() < 1e-9
    middle = slice(round(1.4 / 0.005), round(2.6 / 0.005) + 1)
    assert np.abs(qdd[middle]).max() < 1e-9
    assert np.allclose(qd[middle], (knots[2] - knots[1]) / 1.2)
    # Trajectory 2 stops at the via point, halfway; its wrist centre is the Cartesian midpoint.
    t, q, qd, qdd = sample_trajectory(2, 2.0)
    assert np.abs(qd[200]).max() < 1e-12 and np.allclose(q[200, :5], [
        math.radians(v) if k != 2 else v for k, v in enumerate(VIA_POINT)])
    wrist = forward_kinematics(robot, q[200])[:3, 3]
    assert np.allclose(wrist, [0.30, 0.0, -0.10], atol=2e-3)
    # Durations scale the path in time: the same positions at the same fraction.
    slow, fast = trajectory(1, 8.0), trajectory(1, 1.0)
    assert np.allclose(slow.sample([2.0])[0], fast.sample([0.25])[0])
    assert np.allclose(slow.sample([2.0])[2] * 64, fast.sample([0.25])[2])
    with pytest.raises(ValueError, match="trajectory must be 1 or 2, not 3"):
        trajectory(3, 1.0)
    with pytest.raises(ValueError, match="duration must be a positive number of seconds"):
        trajectory(1, 0)


def _by_sample(robot, q, qd, qdd, scheme):
    """An independent formulation: one sample after another, each computer's outputs held in
    registers for the next sample (the hardware's structure), predictions read from them."""
    n, count = robot.dof, len(q)
    predicted = {"zero": {"AW", "AWd", "Aa", "Af", "An"}, "first": {"AW", "AWd", "Aa", "Af",
                                                                   "An"},
                 "hybrid": {"Aa", "An"}}[scheme]
    held = None                          # per link: what it sent in the previous sample
    tau = np.zeros((count, n))
    for k in range(count):
        links = link_states(robot, q[k:k + 1], qd[k:k + 1], qdd[k:k + 1])
        sent = [dict() for _ in range(n)]
        base = base_terms(robot, 1)
        bodies = []
        for i, link in enumerate(links):
            now = base if i == 0 else sent[i - 1]
            old = base if i == 0 else (held or sent)[i - 1]
            W, Wd, a = forward_terms(link, *[(old if t in predicted else now)[t]
                                             for t in ("AW", "AWd", "Aa")])
            bodies.append(body_terms(link, W, Wd, a))
            sent[i].update(AW=W, AWd=Wd, Aa=a)
            if scheme == "first":
                # Corrections: the predecessor's from the previous sample, this joint's change.
                cW, cWd = ((0, 0, 0), (0, 0, 0)) if i == 0 or held is None else \
                    (held[i - 1]["cW"], held[i - 1]["cWd"])
                if link.revolute and k > 0:
                    cW = (cW[0], cW[1], cW[2] + qd[k, i] - qd[k - 1, i])
                    cWd = (cWd[0], cWd[1], cWd[2] + qdd[k, i] - qdd[k - 1, i])
                R = np.array([[link.R[r][c][0] for c in range(3)] for r in range(3)])
                cW, cWd = R.T @ np.array(cW, dtype=float), R.T @ np.array(cWd, dtype=float)
                AS = np.array([x[0] for x in link.AS])
                sent[i].update(cW=cW, cWd=cWd, AW=tuple(np.array(W)[:, 0] + cW),
                               AWd=tuple(np.array(Wd)[:, 0] + cWd),
                               Aa=tuple(np.array(a)[:, 0] + np.cross(cWd, AS) +
                                        np.cross(cW, np.cross(cW, AS))))
                sent[i].update({t: tuple(np.atleast_1d(x) for x in sent[i][t])
                                for t in ("AW", "AWd", "Aa")})
        end = end_terms(1)
        for i in reversed(range(n)):
            now = end if i == n - 1 else sent[i + 1]
            old = end if i == n - 1 else (held or sent)[i + 1]
            f, n_ = backward_terms(links[i], *bodies[i], *[(old if t in predicted else now)[t]
                                                          for t in ("Af", "An")])
            sent[i].update(Af=f, An=n_)
            tau[k, i] = joint_torque(links[i], f, n_)[0]
        held = sent
    return tau


@pytest.mark.parametrize("scheme", ["zero", "first", "hybrid"])
def test_the_predicting_schemes_equal_a_sample_by_sample_simulation(scheme):
    robot = load_robot("stanford_thesis")
    _, q, qd, qdd = sample_trajectory(1, 1.0)
    q, qd, qdd = q[:60], qd[:60], qdd[:60]
    fast, slow = scheme_torques(robot, q, qd, qdd, scheme), _by_sample(robot, q, qd, qdd,
                                                                      scheme)
    assert np.abs(fast - slow).max() <= 1e-12 * np.abs(slow).max()
    # The first sample is exact (the robot at rest, the neighbours' values of sample 0).
    assert np.abs(fast[0] - link_frame_torques(robot, q[:1], qd[:1], qdd[:1])[0]).max() < 1e-12
    assert np.abs(fast - link_frame_torques(robot, q, qd, qdd)).max() > 1e-3  # it predicts


def test_the_error_metric():
    exact = np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 1.0]])
    tau = exact + np.array([[0.4, 0.0], [-0.4, 0.0], [0.4, 0.0]])
    assert np.allclose(error_percent(tau, exact), [10.0, 0.0])
    assert error_percent(exact + [0, 0.1], exact)[1] == np.inf


def _cells(robot, number, duration, scheme):
    _, q, qd, qdd = sample_trajectory(number, duration)
    exact = scheme_torques(robot, q, qd, qdd, "serial")
    tau = bejczy_torques(robot, q, qd, qdd) if scheme == "bejczy" else \
        scheme_torques(robot, q, qd, qdd, scheme)
    return error_percent(tau, exact)


def _unit(printed):
    """One unit of the printed value's last digit."""
    text = f"{printed}"
    return 10.0 ** -(len(text.split(".")[1]) if "." in text else 0)


def test_table_6_2_to_the_printed_digits():
    # Zero-order prediction, trajectory 1: every cell within one unit of its last printed
    # digit (the thesis mostly truncates: 26 of 30 cells are ours truncated), but link 2 at
    # 1 s: 5.524 against the printed 5.55.
    robot = load_robot("stanford_thesis")
    for duration, row in zip(DURATIONS, PRINTED_TABLES["6.2"]):
        ours = _cells(robot, 1, duration, "zero")
        for link, (value, printed) in enumerate(zip(ours, row)):
            if (duration, link) == (1.0, 1):
                assert abs(value - 5.524) < 5e-4
                continue
            assert abs(value - printed) <= _unit(printed) * (1 + 1e-9), (duration, link)


def test_the_hybrid_on_trajectory_1_to_the_printed_digits():
    # Table 6.6's trajectory-1 rows within one unit of the last printed digit; link 6's error
    # vanishes: its torque does not depend on linear acceleration (AS(6) and Arc(6) lie on the
    # joint axis), and its An comes from the hand's (no load), never predicted.
    robot = load_robot("stanford_thesis")
    for (number, duration), row in PRINTED_TABLES["6.6"].items():
        ours = _cells(robot, number, duration, "hybrid")
        assert ours[5] < 1e-9
        if number == 1:
            for value, (printed, _) in zip(ours, row):
                assert abs(value - printed) <= _unit(printed) * (1 + 1e-9)


def test_bejczys_proxy_on_trajectory_1():
    # Table 6.1 (the constants are illegible; our proxy): link 6's 49 %
    # (the model has no velocity terms, and link 6's torque is mostly them) to 0.1 point;
    # links 1, 3, 4 and 5 within 7 % of the printed cells (link 1: 2.13 against 2.04); link 2
    # is not (0.31, 0.54, 1.19 against 0.42, 0.42, 0.88 at 8, 6 and 4 s).
    robot = load_robot("stanford_thesis")
    for duration, row in zip(DURATIONS, PRINTED_TABLES["6.1"]):
        ours = _cells(robot, 1, duration, "bejczy")
        assert abs(ours[5] - row[5]) < 0.1
        for link in (0, 2, 3, 4):
            assert abs(ours[link] / row[link] - 1) < 0.07, (duration, link)


def test_the_worked_configurations():
    # The thesis's Lagrange-Euler example: the inertia matrix to 1e-4 (printed to
    # 5 decimals; D11 differs by 8.6e-5), the velocity, gravity and total torques to 5e-3
    # (printed to 3 decimals).
    robot = load_robot("stanford_thesis")
    for point in WORKED_CONFIGURATIONS.values():
        q = np.array([[math.radians(v) if k != 2 else v for k, v in enumerate(point["q"])]])
        qd, qdd, rest = np.array([point["qd"]]), np.array([point["qdd"]]), np.zeros((1, 6))
        gravity = inverse_dynamics(robot, q, rest, rest)[0]
        assert np.abs(jacobian_inertia(robot, q)[0] - point["D"]).max() < 1e-4
        assert np.abs(gravity - point["G"]).max() < 5e-3
        assert np.abs(inverse_dynamics(robot, q, qd, rest)[0] - gravity - point["H"]).max() \
            < 5e-3
        assert np.abs(inverse_dynamics(robot, q, qd, qdd)[0] - point["u"]).max() < 5e-3


def test_bad_arguments_are_refused():
    robot = load_robot("stanford_thesis")
    with pytest.raises(ValueError, match="scheme must be one of serial, v1, v2, zero, first, "
                                         "hybrid, not 'fast'"):
        scheme_torques(robot, np.zeros((1, 6)), np.zeros((1, 6)), np.zeros((1, 6)), "fast")
    with pytest.raises(ValueError, match="qd must have 6 columns"):
        link_states(robot, np.zeros((1, 6)), np.zeros((1, 5)), np.zeros((1, 6)))
    assert set(SCHEMES) == {"serial", "v1", "v2", "zero", "first", "hybrid"}
