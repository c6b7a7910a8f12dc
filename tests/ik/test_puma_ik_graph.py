"""The PUMA IK task graph: structure goals, float evaluation equal to the closed-form IK on all
eight branches, domain flags, and the bit-exact model."""


import numpy as np
import pytest

from robohw.cordic.config import Direction, System
from robohw.ik.accuracy import fk_residual, well_conditioned, wrist_sweep
from robohw.ik.codec import joint_angles, pose_inputs
from robohw.ik.puma_graph import best_graph, paper_graph
from robohw.ik.reference import BRANCHES, puma_ik
from robohw.robots import load_robot
from robohw.robots.kinematics import forward_kinematics
from robohw.robots.sampling import sample_joints
from robohw.taskgraph.graph import Ccm, Operand, TaskGraph
from robohw.taskgraph.model import evaluate_float, evaluate_model


def random_poses(robot, count, seed):
    q = sample_joints(robot, count, np.random.default_rng(seed))
    return q, forward_kinematics(robot, q)


def test_structure_meets_the_goals():
    graph = best_graph(load_robot())
    # Goals: critical path <= 13. Two CCMs (n4, o4) turn the hand frame by theta4 for theta6.
    assert len(graph) == 20 and graph.depth() == 11
    fgl = best_graph(load_robot("puma560_fgl"))      # d6 != 0: three CCMs for the wrist centre
    assert len(fgl) == 23 and fgl.depth() == 12
    operands = [op for c in graph.ccms for _, op in c.operands()]
    assert len(graph.edges()) == sum(op.source is not None for op in operands) + \
        sum(op.branch is not None for op in operands)
    assert graph.branches == ("arm", "elbow", "wrist")


def test_paper_reconstruction_is_near_the_papers_figures():
    graph = paper_graph(load_robot())
    assert len(graph) == 24 and graph.depth() == 17   # the paper: 25 CCMs, 18 stages
    assert len(paper_graph(load_robot("puma560_fgl"))) == 27  # + the wrist centre


@pytest.mark.parametrize("make", [best_graph, paper_graph])
@pytest.mark.parametrize("name", ["puma560", "puma560_fgl"])
def test_float_graph_equals_closed_form_ik(make, name):
    robot = load_robot(name)
    graph = make(robot)
    q, pose = random_poses(robot, 5000, seed=1)
    for branch in BRANCHES:
        want, reachable = puma_ik(robot, pose, *branch)
        out, valid, _ = evaluate_float(graph, pose_inputs(pose), dict(zip(("arm", "elbow", "wrist"),
                                                                          branch)))
        got = joint_angles(out)
        assert np.all(reachable[valid])         # the graph never claims an unreachable pose
        assert valid.mean() > 0.9                # and covers all but the near-straight elbows
        keep = valid & (np.abs(np.sin(want[:, 4])) > 1e-6)
        assert np.abs(np.angle(np.exp(1j * (got - want))))[keep].max() < 1e-9


def test_unreachable_poses_are_invalid_in_both_evaluations():
    graph = best_graph(load_robot())
    pose = np.tile(np.eye(4), (2, 1, 1))
    pose[0, :3, 3] = [3.0, 0.0, 0.5]      # out of reach
    pose[1, :3, 3] = [0.0, 0.1, 0.7]      # inside the shoulder-offset cylinder
    for evaluate in (evaluate_float, evaluate_model):
        out, valid, _ = evaluate(graph, pose_inputs(pose))
        assert not valid.any() and not any(np.isnan(v).any() for v in out.values())


def test_model_tracks_float_at_24_bits():
    robot = load_robot()
    graph = best_graph(robot)
    q, pose = random_poses(robot, 4000, seed=2)
    want, _ = puma_ik(robot, pose, 1, 1, 1)
    out, valid, _ = evaluate_model(graph, pose_inputs(pose), width=24)
    fvalid = evaluate_float(graph, pose_inputs(pose))[1]
    assert valid.mean() > 0.9 and np.all(fvalid[valid])
    got = joint_angles(out)
    # The conditioning filter of robohw.ik.accuracy: away from wrist, elbow and shoulder
    # singularities.
    keep = valid & well_conditioned(robot, want)
    error = np.abs(np.angle(np.exp(1j * (got - want))))[keep]
    # Measured (seed 2): q1-q3 within 1e-4 rad; q4 and q6, divided by |sin q5|, within 1e-3.
    assert error[:, :3].max() < 1e-4
    assert error[:, 3:].max() < 1e-3


@pytest.mark.parametrize("make, message", [
    (lambda: TaskGraph("g", ["a"], [Ccm("n", System.LINEAR, Direction.ROTATION, Operand("b"),
                                        Operand("a"), Operand("a"))], {}),
     "n.x0: 'b' is not an input or an earlier node"),
    (lambda: TaskGraph("g", ["a"], [
        Ccm("n", System.CIRCULAR, Direction.VECTORING, Operand("a"), Operand("a"), Operand()),
        Ccm("m", System.LINEAR, Direction.ROTATION, Operand("n", "z"), Operand("a"), Operand("a"))],
        {}), "m.x0: a real is needed, n.z is not one"),
    (lambda: TaskGraph("g", ["a"], [Ccm("n", System.CIRCULAR, Direction.ROTATION, Operand("a"),
                                        Operand("a"), Operand("a"))], {}),
     "n.z0: an angle is needed, a.x is not one"),
    (lambda: TaskGraph("g", ["a"], [Ccm("n", System.LINEAR, Direction.ROTATION, Operand("a",
                                                                                        sign=2),
                                        Operand("a"), Operand("a"))], {}), "sign must be"),
])
def test_graph_checks(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("make", [best_graph, paper_graph])
@pytest.mark.parametrize("width", [24, 32])
def test_the_zero_pose_is_solved(make, width):
    # q = 0 puts the PUMA's wrist exactly singular (sin q5 = 0): theta4 is arbitrary there,
    # theta6 must make up for it (it once returned q4 = q6 = 1.743 rad, valid, 2.8 rad off).
    robot = load_robot()
    pose = forward_kinematics(robot, np.zeros((1, 6)))
    out, valid, _ = evaluate_model(make(robot), pose_inputs(pose), width=width)
    got = joint_angles(out)
    position, orientation = fk_residual(robot, got, pose)
    assert valid.all() and orientation.max() <= 1e-4 and position.max() <= 5e-6


@pytest.mark.parametrize("make", [best_graph, paper_graph])
@pytest.mark.parametrize("width", [24, 32])
def test_wrist_singular_poses_reproduce_the_pose(make, width):
    # The goal: FK residual within 1e-4 rad and 5 um for every |sin q5| down to 0; only the
    # shoulder-singular line and the straight elbow may be flagged (a few poses in a thousand).
    for row in wrist_sweep(load_robot(), widths=(width,), count=400, make_graph=make):
        assert row["valid"] >= 0.99 * row["poses"], row
        assert row["orientation_max_rad"] <= 1e-4 and row["position_max_um"] <= 5, row

