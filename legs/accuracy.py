"""Accuracy of the leg processors' bit-exact model against float64, per data width.

Poses are drawn within the platform's workspace (:func:`robohw.robots.sampling.sample_poses`);
the model of :func:`robohw.legs.ik_graph.leg_ik_graph` (with the Jacobian rows) gives every
leg's length and row of ``K / rho``, compared with
:func:`robohw.legs.platform_kinematics.jacobian`: lengths in metres and in LSBs of the
format, rows relative to each row's largest entry. The dynamics
(:func:`robohw.legs.dynamics_graph.dynamics_graph`) over states inside the platform's limits,
against :func:`robohw.legs.platform_dynamics.gosselin_dynamics`: forces relative to the
largest force of the states with a condition number up to 100 (the goal) and to each
state's largest. The forward kinematics' servo loop (:func:`robohw.legs.servo.servo_model`)
along smooth 1 kHz trajectories (:func:`robohw.robots.sampling.sample_trajectory`), against
the poses the lengths came from: positions in metres, angles in radians.
"""

import numpy as np

from robohw.legs.dynamics_graph import (
    dynamics_format,
    dynamics_graph,
    dynamics_scale,
    reference_dynamics,
    sample_states,
    state_inputs,
)
from robohw.legs.fk_graph import fk_format
from robohw.legs.ik_graph import angle_fields, leg_ik_graph, platform_format, pose_inputs
from robohw.legs.platform_kinematics import inverse_kinematics, jacobian
from robohw.legs.servo import servo_model
from robohw.robots.sampling import sample_poses, sample_trajectory
from robohw.taskgraph.model import evaluate_model

__all__ = ["leg_processor_errors", "leg_dynamics_errors", "servo_errors"]


def leg_processor_errors(platform, width, count, seed=0):
    """``{"width", "poses", "valid", "rho_max_m", "rho_max_lsb", "row_max_relative"}`` of the
    model at ``width`` bits over ``count`` poses drawn with ``seed``."""
    poses = sample_poses(platform, count, np.random.default_rng(seed))
    formats = platform_format(platform, width)
    out, valid, _ = evaluate_model(leg_ik_graph(platform, jacobian=True),
                                   pose_inputs(platform, poses), **formats)
    lengths, rows = jacobian(platform, poses)
    legs, columns = rows.shape[1:]
    got_lengths = np.stack([out[f"rho{i}"] for i in range(1, legs + 1)], -1)
    got_rows = np.stack([[out[f"k{i}_{j}"] for j in range(1, columns + 1)]
                         for i in range(1, legs + 1)]).transpose(2, 0, 1)
    rho = np.abs(got_lengths - lengths)[valid].max(initial=0.0)
    relative = (np.abs(got_rows - rows).max(-1) / np.abs(rows).max(-1))[valid].max(initial=0.0)
    return {"width": width, "poses": count, "valid": int(valid.sum()),
            "rho_max_m": float(rho), "rho_max_lsb": float(rho * 2.0 ** formats["frac_bits"]),
            "row_max_relative": float(relative)}


def leg_dynamics_errors(platform, width, count, seed=0, max_cond=100):
    """``{"width", "states", "well", "valid", "max_error_n", "relative", "per_state",
    "max_force_n"}`` of the dynamics' model at ``width`` bits over ``count`` states drawn with
    ``seed``: among the ``well`` (condition number up to ``max_cond``) states, how many are
    valid and the largest error (N), relative to the largest force and to each state's."""
    states = sample_states(platform, count, np.random.default_rng(seed))
    scale = dynamics_scale(platform)
    out, valid, _ = evaluate_model(dynamics_graph(platform, scale),
                                   state_inputs(platform, states, scale),
                                   **dynamics_format(platform, width))
    forces = np.stack([out[f"f{i}"] for i in range(1, len(platform.legs) + 1)], -1) * \
        scale.force
    reference, condition = reference_dynamics(platform, states)
    well = condition <= max_cond
    kept = well & valid
    error = np.abs(forces - reference)[kept]
    largest = float(np.abs(reference[well]).max(initial=0.0))
    per_state = error.max(-1, initial=0.0) / np.abs(reference[kept]).max(-1)
    return {"width": width, "states": count, "well": int(well.sum()), "valid": int(kept.sum()),
            "max_error_n": float(error.max(initial=0.0)), "max_force_n": largest,
            "relative": float(error.max(initial=0.0) / largest) if largest else 0.0,
            "per_state": float(per_state.max(initial=0.0))}


def servo_errors(platform, width, iterations, loops, rows, seed=0):
    """``{"width", "iterations", "rows", "valid", "position_max_m", "angle_max_rad"}`` of the
    servo loop's model at ``width`` bits, ``iterations`` Newton steps a row, over ``loops``
    trajectories of ``rows`` rows from home (run side by side), drawn with ``seed``."""
    rng = np.random.default_rng(seed)
    poses = np.stack([sample_trajectory(platform, rows, rng) for _ in range(loops)])
    fields = platform.pose_fields
    lengths = inverse_kinematics(platform, poses.reshape(-1, len(fields)))
    codes, valid = servo_model(platform, iterations, lengths.reshape(loops, rows, -1),
                               width=width)
    lsb = 2.0 ** -fk_format(platform, width)["frac_bits"]
    angles = [k for k, f in enumerate(fields) if f in angle_fields(platform)]
    turn = np.array([2 * np.pi if k in angles else 1.0 for k in range(len(fields))])
    got = np.stack([codes[f] for f in fields], -1) * lsb * turn
    error = got - poses
    error[..., angles] = (error[..., angles] + np.pi) % (2 * np.pi) - np.pi
    error = np.abs(error)[valid]
    positions = [k for k in range(len(fields)) if k not in angles]
    return {"width": width, "iterations": iterations, "rows": loops * rows,
            "valid": int(valid.sum()),
            "position_max_m": float(error[:, positions].max(initial=0.0)),
            "angle_max_rad": float(error[:, angles].max(initial=0.0))}
