"""Operations of each Lagrange-Euler subtask, counted by evaluating its formula over counting
scalars (:class:`~robohw.dataflow.graph.Tracer` with ``fold=False``: every product with a link
constant counts), with the structural zeros of the robot as literal zeros that cost nothing.

What is counted is the formula level: one subtask's coefficient from the
differential vectors ``delta_i^l``, ``d_i^l`` and the gravity in each link's frame
(:func:`robohw.transputer.lagrange_euler_tasks.subtask_coefficient`), not the transform
chains that give those vectors, nor the shares' products with the joint rates. A component is
structural where it vanishes at every one of :data:`PATTERN_STATES` random states (the robot's
constants make it zero: a twist of 0 or 90 degrees, a centre of mass on an axis, a prismatic
joint's rotation).
"""

import numpy as np

from robohw.dataflow.graph import Tracer
from robohw.dataflow.operations import Count
from robohw.robots.sampling import sample_joints
from robohw.transputer.lagrange_euler import differential_vectors, gravity_in_links, link_moments
from robohw.transputer.lagrange_euler_tasks import PAPER_SUBTASKS, subtask_coefficient

__all__ = ["PATTERN_STATES", "structural_pattern", "subtask_counts"]

PATTERN_STATES = 64          # random states that decide which components are structural
_ZERO = 1e-12                # relative to the largest component of the kind


def structural_pattern(robot, seed=0):
    """``(delta, d, gravity)`` boolean masks, ``(N, N, 3)``, ``(N, N, 3)`` and ``(N, 3)``: the
    components that can be nonzero (``delta[i, l, c]``: joint ``i``'s in link ``l``'s frame,
    0-based)."""
    q = sample_joints(robot, PATTERN_STATES, np.random.default_rng(seed))
    delta, d = differential_vectors(robot, q)
    gravity = gravity_in_links(robot, q)
    return tuple(np.abs(x).max(axis=0) > _ZERO * max(np.abs(x).max(), 1e-300)
                 for x in (delta, d, gravity))


def subtask_counts(robot, subtasks=PAPER_SUBTASKS, seed=0):
    """``{subtask: (multiplications, additions)}`` at the formula level (module docstring)."""
    delta_mask, d_mask, gravity_mask = structural_pattern(robot, seed)
    out = {}
    for task in subtasks:
        tracer = Tracer(fold=False)

        def component(mask, name):
            return tracer.input(name, -1.0, 1.0) if mask else 0

        def vectors(joint, link):
            return (tuple(component(delta_mask[joint, link, c], f"delta{joint}{link}{c}")
                          for c in range(3)),
                    tuple(component(d_mask[joint, link, c], f"d{joint}{link}{c}")
                          for c in range(3)))

        def gravity(link):
            return tuple(component(gravity_mask[link, c], f"g{link}{c}") for c in range(3))
        moments = [link_moments(joint, const=tracer.const) for joint in robot.joints]
        result = subtask_coefficient(task, vectors, gravity, moments, robot.dof)
        counts = tracer.counts(tracer.live([result]))
        out[task] = (counts[Count.MUL], counts[Count.ADD])
    return out
