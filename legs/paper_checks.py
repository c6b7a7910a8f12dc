"""Gosselin's paper against ours, in float64: his operation counts beside ours with the reason
for every difference, his printed equations beside the corrected ones on test states, the two
dynamics formulations' agreement, and the forward kinematics' convergence."""

import dataclasses

import numpy as np

from robohw.legs.counts import platform_counts
from robohw.legs.platform_dynamics import (
    gosselin_dynamics,
    leg_equilibrium,
    leg_motion,
    motion_arrays,
    virtual_power_dynamics,
)
from robohw.legs.platform_kinematics import (
    displaced,
    forward_kinematics,
    inverse_kinematics,
    jacobian,
    pose_arrays,
)
from robohw.robots.algebra import FloatArith
from robohw.robots.platform import SHIPPED_PLATFORMS, load_platform
from robohw.robots.sampling import sample_poses

__all__ = ["format_count", "count_table", "spec_test_state", "printed_vs_corrected",
           "dynamics_agreement", "fk_convergence"]


# Why ours differs from the paper's count, by (kind, item).
REASONS = {
    ("spatial", "jacobian_row"): "ours reuses Q b' from the IK and leaves the scaling by "
    "1/rho to the user of K; 9m 6a (Q b' again) + 6m 3a (cross product) + 3m (by 1/rho) "
    "reproduce the paper's 18/9",
    ("spatial", "jacobian_derivative_row"): "ours reuses Q b' and forms omega x Q b' once; "
    "an explicit Q_dot = Omega Q (18m 9a) reproduces the 48 multiplications but gives 33 "
    "additions, not 24 (unresolved)",
    ("spatial", "kinematics"): "the sum of the three rows above",
    ("spatial", "leg_phase"): "ours solves -s x g = Z in base coordinates, g = (s x Z)/rho^2, "
    "with the leg's motion computed separately (row leg_motion); the paper rotates omega, "
    "omega_dot, a_u, a_l into a leg frame (36m 24a) and solves there (64m 39a)",
    ("spatial", "platform_phase"): "ours forms I_p = Q I' Q^T in the base frame (54m 36a), "
    "the moment arms and their cross products (72m 36a), and eliminates the 6 x 6 system "
    "without pivoting (6 reciprocals); the paper's 'approximately' 120/110 works in the "
    "platform frame and does not itemize",
    ("spatial", "actuator_phase"): "ours reuses the upper part's m_u (a_u - g) and e from phase "
    "1 (a dot product and the sum); the paper rotates f and a_u into the leg frame again",
    ("spatial", "dynamics_parallel"): "phase 1 + phase 2 + phase 3 (leg motion not counted, as "
    "in the paper)",
    ("spatial", "dynamics_serial"): "6 x (phase 1 + phase 3) + phase 2",
    ("planar", "jacobian_row"): "ours reuses the IK's four products b cos, b sin; the paper "
    "recomputes them (4m 2a)",
    ("planar", "leg_phase"): "ours is the spatial solve with structural zeros: both parts' "
    "m (a - g) (gravity in the plane, a constant of the file) and the moment about A; the "
    "paper's (30)-(31) take a_u and a_l across the leg as given",
    ("planar", "platform_phase"): "ours builds the 3 x 3 system from the legs (moment arms, "
    "sums of g_i) and eliminates it (3 reciprocals); the paper's 11m 6a is below any general "
    "3 x 3 elimination (about 17 with reciprocals)",
    ("planar", "actuator_phase"): "a dot product in the plane (2m 1a) and the sum",
    ("planar", "dynamics_parallel"): "phase 1 + phase 2 + phase 3",
    ("planar", "dynamics_serial"): "3 x (phase 1 + phase 3) + phase 2",
    ("spatial", "leg_motion"): "the paper assumes the legs' motion known",
    ("planar", "leg_motion"): "the paper assumes the legs' motion known",
    ("planar", "jacobian_derivative_row"): "the paper's planar example has no accelerations",
    ("planar", "kinematics"): "the paper gives no planar total",
}


def format_count(count):
    """``(mult, add, div, root)`` as ``'9m 6a 1d'``."""
    mult, add, div, root = count
    text = f"{mult}m {add}a"
    return text + (f" {div}d" if div else "") + (f" {root}sqrt" if root else "")


def count_table(kind):
    """Rows ``{item, ours, paper, line, covers, reason}`` for the shipped platform of
    ``kind``."""
    platform = load_platform("hexapod" if kind == "spatial" else "planar_3rpr")
    rows = []
    for row in platform_counts(platform):
        same = row.paper is not None and tuple(row.ours) == tuple(row.paper)
        rows.append({"item": row.item, "ours": list(row.ours),
                     "paper": None if row.paper is None else list(row.paper),
                     "line": row.line, "covers": row.covers,
                     "reason": "equal" if same else REASONS[(kind, row.item)]})
    return rows


def spec_test_state():
    """The spec's spatial test state (A.7: t = 0.7 s of its trajectory): pose, twist,
    acceleration; omega by central differences of Q(t)."""
    from robohw.legs.platform_kinematics import angles, rotation

    def position(t):
        return np.array([0.02 * np.sin(2 * t), 0.03 * np.cos(3 * t), 0.6 + 0.02 * np.sin(t)])

    def rot(t):
        return np.array(rotation(0.05 * np.sin(3 * t), 0.08 * np.cos(2 * t), 0.1 * np.sin(t)))

    t, h = 0.7, 1e-4
    q_dot = (rot(t + h) - rot(t - h)) / (2 * h)
    q_ddot = (rot(t + h) - 2 * rot(t) + rot(t - h)) / h ** 2
    skew, skew_dot = q_dot @ rot(t).T, q_ddot @ rot(t).T + q_dot @ q_dot.T
    def vee(m):
        return np.array([m[2, 1], m[0, 2], m[1, 0]])
    pose = np.concatenate([position(t), angles(rot(t))])
    twist = np.concatenate([vee(skew), (position(t + h) - position(t - h)) / (2 * h)])
    acceleration = np.concatenate([vee(skew_dot), (position(t + h) - 2 * position(t) +
                                                   position(t - h)) / h ** 2])
    return pose[None], twist[None], acceleration[None]


def printed_vs_corrected():
    """The paper's printed equations against the corrected ones on test states: the sign of
    eqs. (9) and (27), eq. (30)'s inertia term and eq. (32)'s sign (planar), and gravity."""
    spatial, planar = load_platform("hexapod"), load_platform("planar_3rpr")
    out = {}
    pose, twist, acceleration = spec_test_state()
    h = 1e-6
    rho_dot = (inverse_kinematics(spatial, displaced(spatial, pose, twist, h)) -
               inverse_kinematics(spatial, displaced(spatial, pose, twist, -h))) / (2 * h)
    rho, rows = jacobian(spatial, pose)
    k_t = rho * np.einsum("nij,nj->ni", rows, twist)       # K t
    out["eq9"] = {"printed_residual": float(np.abs(rho * rho_dot + k_t).max()),
                  "corrected_residual": float(np.abs(rho * rho_dot - k_t).max())}
    # Planar eq. (27), J rho_dot + K r_dot = 0 as printed, at the home pose moving.
    home, rates = np.array([planar.home]), np.array([[0.4, 0.3, -0.2]])
    rho_dot = (inverse_kinematics(planar, displaced(planar, home, rates, h)) -
               inverse_kinematics(planar, displaced(planar, home, rates, -h))) / (2 * h)
    rho, rows = jacobian(planar, home)
    k_t = rho * np.einsum("nij,nj->ni", rows, rates)
    out["eq27"] = {"printed_residual": float(np.abs(rho * rho_dot + k_t).max()),
                   "corrected_residual": float(np.abs(rho * rho_dot - k_t).max())}
    # Planar (30)-(32) at the home pose moving: each leg's force across it on the platform.
    state = (np.array([planar.home]), np.array([[0.4, 0.3, -0.2]]),
             np.array([[1.5, -2.0, 1.0]]))
    r, Q = pose_arrays(planar, state[0])
    motion = motion_arrays(planar, state[1], state[2])
    arith = FloatArith()
    legs = []
    for leg in planar.legs:
        moving = leg_motion(planar, leg, r, Q, motion, arith)
        e = np.array([float(np.squeeze(c)) for c in moving.e[:2]])
        normal = np.array([-e[1], e[0]])                      # z x e
        def across(v):
            return float(np.squeeze(v[0]) * normal[0] + np.squeeze(v[1]) * normal[1])

        def along(v):
            return float(np.squeeze(v[0]) * e[0] + np.squeeze(v[1]) * e[1])
        a_u, a_l = across(moving.a_upper), across(moving.a_lower)
        w_dot = float(np.squeeze(moving.w_leg_dot[2]))
        length = float(np.squeeze(moving.geometry.rho))
        transverse = leg.lower.inertia + leg.upper.inertia
        mu, ml = leg.upper.mass, leg.lower.mass
        lu, ll = leg.upper.com_distance, leg.lower.com_distance
        d_printed = (transverse * w_dot + mu * lu * a_u - ml * ll * a_l) / length
        d_corrected = (mu * lu * a_u - ml * ll * a_l - transverse * w_dot) / length
        reference = across(leg_equilibrium(planar, leg, moving, arith).g)
        legs.append({"g_printed": d_printed - mu * a_u, "g_corrected": d_corrected - mu * a_u,
                     "g_reference": reference, "upper_axial": mu * along(moving.a_upper)})
    forces = virtual_power_dynamics(planar, *state)[0]
    f_reference, _ = gosselin_dynamics(planar, *state)
    # f (along the leg, on the platform) from the actuator force: h = f + m_u a_u||.
    f_along = [float(h) - leg["upper_axial"] for h, leg in zip(f_reference[0], legs)]
    for leg, f, h in zip(legs, f_along, forces):
        leg.update(h_printed=leg["upper_axial"] - f, h_corrected=leg["upper_axial"] + f,
                   h_reference=float(h))
    out["planar_legs"] = legs
    zero = np.zeros((1, 6))
    without = dataclasses.replace(spatial, gravity=(0.0, 0.0, 0.0))
    out["gravity"] = {
        "with": float(gosselin_dynamics(spatial, [spatial.home], zero, zero)[0][0, 0]),
        "without": float(gosselin_dynamics(without, [spatial.home], zero, zero)[0][0, 0])}
    out["spec_forces"] = [float(v) for v in gosselin_dynamics(spatial, pose, twist,
                                                              acceleration)[0][0]]
    return out


def dynamics_agreement(count, seed=0):
    """Largest difference between Gosselin's decomposition and virtual power, relative to the
    largest force, over random states in the workspace."""
    rows = []
    for name in SHIPPED_PLATFORMS:
        platform = load_platform(name)
        rng = np.random.default_rng(seed)
        poses = sample_poses(platform, count, rng)
        dof = poses.shape[1]
        v, a = rng.normal(0, 0.5, (count, dof)), rng.normal(0, 2, (count, dof))
        ours, _ = gosselin_dynamics(platform, poses, v, a)
        other = virtual_power_dynamics(platform, poses, v, a)
        rows.append({"platform": name, "states": count,
                     "max_relative": float((np.abs(ours - other).max(axis=1) /
                                            np.abs(other).max(axis=1)).max())})
    return rows


def fk_convergence(count, seed=0):
    """Newton-Raphson from the home pose: iterations and failures over random poses within
    ``scale`` times the workspace, and how often it finds the pose the lengths came from."""
    rows = []
    for name in SHIPPED_PLATFORMS:
        platform = load_platform(name)
        for scale in (1, 2, 4, 8):
            poses = sample_poses(platform, count, np.random.default_rng(seed + scale), scale)
            found, steps, reasons = forward_kinematics(platform,
                                                       inverse_kinematics(platform, poses))
            error = found - poses
            angular = slice(3, 6) if platform.spatial else slice(2, 3)
            error[:, angular] = (error[:, angular] + np.pi) % (2 * np.pi) - np.pi
            converged = reasons == ""
            same = converged & (np.abs(error).max(axis=1) < 1e-8)
            rows.append({"platform": name, "scale": scale, "poses": count,
                         "converged": int(converged.sum()), "same_pose": int(same.sum()),
                         "iterations_median": float(np.median(steps[converged]))
                         if converged.any() else None,
                         "iterations_max": int(steps[converged].max()) if converged.any()
                         else None,
                         "unreachable": int((reasons == "unreachable").sum()),
                         "near_singular": int((reasons == "near_singular").sum())})
    return rows
