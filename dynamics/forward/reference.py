"""Forward dynamics of serial robots in float64: the joint accelerations ``qdd`` that the
torques (forces) ``tau`` give at the state ``(q, qd)``, two independent ways, vectorized over
states.

- :func:`articulated_body_accelerations`: Featherstone's articulated-body algorithm in link
  frames (the distal form of :func:`robohw.dynamics.inverse.reference.link_motions`), three sweeps:
  velocities outward; articulated inertias and bias forces inward, each joint's articulated
  inertia about its axis ``D_i`` divided once; accelerations outward.
- :func:`solved_accelerations`: ``H(q) qdd = tau - b(q, qd)``, ``H`` from the links' Jacobians
  (:func:`robohw.robots.kinematics.jacobian_inertia`, armature included) and ``b`` the
  link-frame Newton-Euler torques at ``qdd = 0`` (gravity, Coriolis and centrifugal terms,
  damping and Coulomb friction), solved by LU.

Both take the joint terms as inverse dynamics gives them (:func:`robohw.robots.chain.joint_terms`):
``tau = ID(q, qd, qdd) + armature qdd + damping qd + friction sign(qd)``, so each is the exact
inverse of :func:`robohw.dynamics.inverse.reference.inverse_dynamics`.

Spatial vectors are ``(angular, linear)`` in the link's frame about its origin (Featherstone's
Plücker coordinates); gravity enters as the base accelerating upwards, as in inverse dynamics.
"""

import numpy as np

from robohw.dynamics.inverse.reference import joint_arrays, link_frame_torques, link_motions
from robohw.hw.checks import check_choice
from robohw.robots.chain import as_chain, distal_gravity
from robohw.robots.kinematics import jacobian_inertia
from robohw.robots.loading import require_dynamics

__all__ = ["articulated_body_accelerations", "articulated_divisors", "solved_accelerations",
           "forward_dynamics", "FORWARD_FORMULATIONS"]

FORWARD_FORMULATIONS = ("aba", "solve")


def _states(robot, q, qd, tau):
    return joint_arrays(robot, "forward dynamics", q=q, qd=qd, tau=tau)


def _skew(v):
    """``(B, 3, 3)`` with ``skew(v) x = v x x``."""
    out = np.zeros(v.shape[:-1] + (3, 3))
    out[..., 0, 1], out[..., 0, 2], out[..., 1, 2] = -v[..., 2], v[..., 1], -v[..., 0]
    out[..., 1, 0], out[..., 2, 0], out[..., 2, 1] = v[..., 2], -v[..., 1], v[..., 0]
    return out


def _blocks(a, b, c, d):
    """The ``(B, 6, 6)`` matrix ``[[a, b], [c, d]]`` of ``(B, 3, 3)`` blocks."""
    return np.concatenate([np.concatenate([a, b], -1), np.concatenate([c, d], -1)], -2)


def _motion_cross(v):
    """``(B, 6, 6)``: ``v x`` on spatial motion vectors, ``[[w x, 0], [v x, w x]]``."""
    w, lin = _skew(v[..., :3]), _skew(v[..., 3:])
    return _blocks(w, np.zeros_like(w), lin, w)


def _mv(m, v):
    return np.einsum("bij,bj->bi", m, v)


def _spatial_links(robot, q):
    """Per link at joint vectors ``q`` ``(B, N)``: the motion transforms from frame ``i - 1``
    to frame ``i`` ``(B, 6, 6)``, the joints' motions ``S`` ``(B, 6)`` and the links' spatial
    inertias ``(B, 6, 6)``, each in frame ``i`` about its origin."""
    batch = len(q)
    eye = np.broadcast_to(np.eye(3), (batch, 3, 3))
    zero = np.zeros((batch, 3, 3))
    transforms, axes, inertias = [], [], []
    for rot, p, revolute, axis, link in link_motions(robot, q):
        e = rot.transpose(0, 2, 1)                   # frame i - 1's coordinates to frame i's
        transforms.append(_blocks(e, zero, -_skew(p) @ e, e))
        # The joint turns about (slides along) its axis through frame i - 1's origin.
        axes.append(np.concatenate([axis, np.cross(axis, p)], -1) if revolute else
                    np.concatenate([np.zeros_like(axis), axis], -1))
        c = _skew(np.broadcast_to(np.array(link.com), (batch, 3)))
        inertias.append(_blocks(np.array(link.inertia) - link.mass * c @ c, link.mass * c,
                                -link.mass * c, link.mass * eye))
    return transforms, axes, inertias


def articulated_divisors(robot, q):
    """``(B, N)``: each joint's articulated inertia about its motion, ``D_i = S^T K_i S +
    armature``, at joint vectors ``q`` ``(B, N)``: what the articulated-body algorithm
    divides by (its proven lower bounds: :mod:`robohw.dynamics.forward.divisors`)."""
    q = np.atleast_2d(np.asarray(q, dtype=np.float64))
    require_dynamics(robot, "forward dynamics")
    transforms, axes, articulated = _spatial_links(robot, q)
    armature = np.array([float(getattr(j, "armature", 0.0)) for j in as_chain(robot).joints])
    out = np.empty(q.shape)
    for i in reversed(range(q.shape[1])):
        u_vec = _mv(articulated[i], axes[i])
        out[:, i] = np.einsum("bi,bi->b", axes[i], u_vec) + armature[i]
        if i:
            reduced = articulated[i] - np.einsum("bi,bj->bij", u_vec, u_vec) / \
                out[:, i, None, None]
            x = transforms[i]
            articulated[i - 1] = articulated[i - 1] + x.transpose(0, 2, 1) @ reduced @ x
    return out


def articulated_body_accelerations(robot, q, qd, tau):
    """Accelerations ``(B, N)`` by the articulated-body algorithm in link frames (see the
    module docstring), for states ``q``, ``qd`` and torques ``tau`` ``(B, N)`` each."""
    q, qd, tau = _states(robot, q, qd, tau)
    batch, n = q.shape
    chain = as_chain(robot)
    transforms, axes, inertias = _spatial_links(robot, q)
    terms = [np.array([float(getattr(j, t, 0.0)) for j in chain.joints])
             for t in ("armature", "damping", "friction")]
    armature, damping, friction = terms
    effort = tau - damping * qd - friction * np.sign(qd)
    # Outward: velocities, velocity-product accelerations, bias forces.
    v = np.zeros((batch, 6))
    drift, bias = [], []
    for i in range(n):
        joint_velocity = axes[i] * qd[:, i, None]
        v = _mv(transforms[i], v) + joint_velocity
        drift.append(_mv(_motion_cross(v), joint_velocity))
        bias.append(-np.einsum("bji,bj->bi", _motion_cross(v), _mv(inertias[i], v)))
    # Inward: articulated inertias and bias forces.
    articulated = [m.copy() for m in inertias]
    u_vectors, d_values, u_values = [None] * n, [None] * n, [None] * n
    for i in reversed(range(n)):
        u_vec = _mv(articulated[i], axes[i])
        d = np.einsum("bi,bi->b", axes[i], u_vec) + armature[i]
        u = effort[:, i] - np.einsum("bi,bi->b", axes[i], bias[i])
        u_vectors[i], d_values[i], u_values[i] = u_vec, d, u
        if i:
            reduced = articulated[i] - np.einsum("bi,bj->bij", u_vec, u_vec) / d[:, None, None]
            passed = bias[i] + _mv(reduced, drift[i]) + u_vec * (u / d)[:, None]
            x = transforms[i]
            articulated[i - 1] = articulated[i - 1] + x.transpose(0, 2, 1) @ reduced @ x
            bias[i - 1] = bias[i - 1] + np.einsum("bji,bj->bi", x, passed)
    # Outward: accelerations, the base accelerating against gravity.
    a = np.zeros((batch, 6))
    a[:, 3:] = -np.asarray(distal_gravity(chain), dtype=np.float64)
    qdd = np.empty((batch, n))
    for i in range(n):
        a = _mv(transforms[i], a) + drift[i]
        qdd[:, i] = (u_values[i] - np.einsum("bi,bi->b", u_vectors[i], a)) / d_values[i]
        a = a + axes[i] * qdd[:, i, None]
    return qdd


def solved_accelerations(robot, q, qd, tau):
    """Accelerations ``(B, N)`` from ``H(q) qdd = tau - b(q, qd)`` (see the module
    docstring), for states ``q``, ``qd`` and torques ``tau`` ``(B, N)`` each."""
    q, qd, tau = _states(robot, q, qd, tau)
    bias = link_frame_torques(robot, q, qd, np.zeros_like(q))
    return np.linalg.solve(jacobian_inertia(as_chain(robot), q), (tau - bias)[..., None])[..., 0]


def forward_dynamics(robot, q, qd, tau, formulation="aba"):
    """Accelerations ``(B, N)`` by ``formulation``: ``"aba"`` (the articulated-body algorithm)
    or ``"solve"`` (the inertia matrix solved)."""
    functions = {"aba": articulated_body_accelerations, "solve": solved_accelerations}
    check_choice("formulation", formulation, functions)
    return functions[formulation](robot, q, qd, tau)
