"""Inverse dynamics by Lagrange-Euler in Paul's trace form (Bejczy 1974, Paul 1981), the form
Zomaya & Morris split into subtasks for their transputer network: float64, vectorized over
states.

``tau_i = sum_j D_ij qdd_j + sum_jk C_ijk qd_j qd_k + h_i`` with, for each link ``l`` and
joint ``i <= l``, the differential matrix ``Delta_i^l`` (``dT_l / dq_i = T_l Delta_i^l``, in
link ``l``'s frame; :func:`differential_vectors`) and the link's pseudo-inertia ``J^l``
(:func:`pseudo_inertia`):

- ``D_ij = sum_{l >= max(i, j)} tr(Delta_j^l J^l Delta_i^lT)``;
- ``C_ijk = sum_{l >= max(i, j, k)} tr(Delta_a^l Delta_b^l J^l Delta_i^lT)``, ``a = min(j, k)``,
  ``b = max(j, k)`` (``d2T_l / dq_a dq_b = T_l Delta_a^l Delta_b^l``);
- ``h_i = -sum_{l >= i} m_l g^T T_l Delta_i^l r_l``, ``g`` the gravity ``(gx, gy, gz, 0)`` in
  the base frame and ``r_l`` the centre of mass ``(x, y, z, 1)`` in link ``l``'s frame.

The traces drop the transforms ``T_l`` because every matrix product here has a zero last row
(derivatives of homogeneous transforms), so ``tr(T X T^T) = tr(R X_3 R^T) = tr(X_3)``.

:func:`lagrange_euler_terms` evaluates the traces as 4x4 matrix products. :func:`inertia_term`,
:func:`coriolis_term` and :func:`gravity_term` give one link's share of one term in vector form,
over scalars of any type (numpy arrays, or the counting nodes of
:class:`robohw.dataflow.graph.Tracer`; literal zeros cost nothing, see
:mod:`robohw.robots.algebra`), from the link's second moments ``S`` (the pseudo-inertia's
3x3 block), first moments ``f = m c`` and mass ``m``, with ``Omega c = delta x c`` and, for a
symmetric ``S``, ``tr(Omega_a S Omega_b^T) = tr(S) delta_a . delta_b - delta_a . S delta_b`` and
``tr(Omega_a Omega_b S Omega_i^T) = delta_a . S (delta_b x delta_i)``:

- ``D^l_ij = tr(S) delta_i . delta_j - delta_j . S delta_i + (delta_i x f) . d_j
  + d_i . (delta_j x f) + m d_i . d_j`` (Zomaya & Morris eq. 7, restored);
- ``C^l_iab = delta_a . S (delta_b x delta_i) + (delta_i x f) . (delta_a x d_b)
  + d_i . (delta_a x (delta_b x f)) + m d_i . (delta_a x d_b)`` (eq. 11);
- ``h^l_i = -(g_l . (delta_i x f) + m g_l . d_i)``, ``g_l`` the gravity in link ``l``'s frame
  (eq. 13 in its general form).
Conventions are those of :mod:`robohw.dynamics.inverse.reference` (standard DH, the robot's
``gravity`` the gravitational acceleration in the base frame); joints are 0-based here. A
general chain (:class:`robohw.robots.chain.Chain`) runs in its distal form, joint ``i``'s axis
``u`` in frame ``i - 1``: ``delta = R^T u``, ``d = R^T (u x p)`` (revolute) or ``d = R^T u``
(prismatic), ``[R p] = ^{i-1}T_l``.
"""

import numpy as np

from robohw.robots.algebra import cross, dot, matvec, negate, product, total
from robohw.robots.chain import Chain, distal_gravity, distal_links, distal_transform, joint_terms
from robohw.robots.joint_type import JointType
from robohw.robots.kinematics import joint_transform

__all__ = ["link_transforms", "differential_vectors", "differential_matrices",
           "pseudo_inertia", "link_moments", "gravity_in_links", "lagrange_euler_terms",
           "lagrange_euler_torques", "inertia_term", "coriolis_term", "gravity_term"]


def _check(robot, q):
    if not robot.has_dynamics:
        raise ValueError(f"{robot.source or robot.name}: the dynamics needs mass, com and "
                         f"inertia for every joint")
    q = np.atleast_2d(np.asarray(q, dtype=np.float64))
    if q.shape[-1] != robot.dof:
        raise ValueError(f"q must have {robot.dof} columns for {robot.name}, not "
                         f"{q.shape[-1]}")
    return q


def _links(robot):
    """The links as the trace form takes them: a DH robot's joints (their axes z), or a
    chain's :func:`robohw.robots.chain.distal_links`."""
    return distal_links(robot) if isinstance(robot, Chain) else robot.joints


def _gravity(robot):
    """Gravity in the frame the transforms start from (a chain's distal base ``D_0``)."""
    return distal_gravity(robot) if isinstance(robot, Chain) else robot.gravity


def link_transforms(robot, q):
    """``A`` ``(B, N, 4, 4)``: each joint's transform ``^{i-1}T_i`` at the states ``q``
    ``(B, N)``: DH's, or a chain's in its distal form (``M_i(q_i) K_i``)."""
    q = _check(robot, q)
    if not isinstance(robot, Chain):
        return np.stack([joint_transform(joint, q[:, k])
                         for k, joint in enumerate(robot.joints)], axis=1)
    out = np.zeros((len(q), robot.dof, 4, 4))
    for k, link in enumerate(distal_links(robot)):
        out[:, k, :3, :3], out[:, k, :3, 3] = distal_transform(link, q[:, k])
        out[:, k, 3, 3] = 1.0
    return out


def differential_vectors(robot, q, links=None):
    """``(delta, d)``, each ``(B, N, N, 3)``: joint ``i``'s differential rotation and
    translation in link ``l``'s frame at ``[:, i, l]`` (zero for ``i > l``), from
    ``^{i-1}T_l = A_i ... A_l = [n o a p]`` (Zomaya & Morris eqs. 2-3, restored): a revolute
    joint ``delta = (n_z, o_z, a_z)``, ``d = (n_y p_x - n_x p_y, o_y p_x - o_x p_y,
    a_y p_x - a_x p_y)``; a prismatic joint ``delta = 0``, ``d = (n_z, o_z, a_z)``.
    ``links``: :func:`link_transforms` at ``q``, if the caller has them."""
    q = _check(robot, q)
    links = link_transforms(robot, q) if links is None else links
    n = robot.dof
    delta = np.zeros((len(q), n, n, 3))
    d = np.zeros((len(q), n, n, 3))
    for i, joint in enumerate(_links(robot)):
        chain = np.broadcast_to(np.eye(4), (len(q), 4, 4))
        axis = getattr(joint, "axis", None)      # a chain's (in D_{i-1}); DH: z
        for l in range(i, n):
            chain = chain @ links[:, l]          # ^{i-1}T_l
            rot, p = chain[:, :3, :3], chain[:, :3, 3]
            if axis is not None:                 # delta = R^T u, d = R^T (u x p) or R^T u
                delta[:, i, l] = rot.transpose(0, 2, 1) @ np.asarray(axis) \
                    if joint.type == JointType.REVOLUTE else 0.0
                d[:, i, l] = np.einsum("bji,bj->bi", rot, np.cross(axis, p)) \
                    if joint.type == JointType.REVOLUTE \
                    else rot.transpose(0, 2, 1) @ np.asarray(axis)
            elif joint.type == JointType.REVOLUTE:
                delta[:, i, l] = rot[:, 2, :]
                d[:, i, l] = rot[:, 1, :] * p[:, 0, None] - rot[:, 0, :] * p[:, 1, None]
            else:
                d[:, i, l] = rot[:, 2, :]
    return delta, d


def differential_matrices(delta, d):
    """``Delta`` ``(..., 4, 4)`` from ``delta`` and ``d`` ``(..., 3)``: ``[[skew(delta), d],
    [0, 0]]``."""
    out = np.zeros(delta.shape[:-1] + (4, 4))
    dx, dy, dz = delta[..., 0], delta[..., 1], delta[..., 2]
    out[..., 0, 1], out[..., 0, 2] = -dz, dy
    out[..., 1, 0], out[..., 1, 2] = dz, -dx
    out[..., 2, 0], out[..., 2, 1] = -dy, dx
    out[..., :3, 3] = d
    return out


def pseudo_inertia(joint):
    """The link's pseudo-inertia ``J = integral of [x y z 1]^T [x y z 1] dm`` in its frame
    ``(4, 4)``, from its mass, centre of mass and inertia about the centre of mass (``ixx, iyy,
    izz, ixy, iyz, ixz``): ``J_3 = tr(I_o) / 2 E - I_o`` with ``I_o`` the inertia about the
    frame's origin (parallel axes), ``J_4 = m (c, 1)``."""
    if len(joint.inertia) == 3:        # a chain's distal link: the 3 x 3 tensor
        about_com = np.array(joint.inertia, dtype=np.float64)
    else:
        ixx, iyy, izz, ixy, iyz, ixz = joint.inertia
        about_com = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    mass, com = joint.mass, np.asarray(joint.com, dtype=np.float64)
    about_origin = about_com + mass * (com @ com * np.eye(3) - np.outer(com, com))
    out = np.zeros((4, 4))
    out[:3, :3] = np.trace(about_origin) / 2 * np.eye(3) - about_origin
    out[:3, 3] = out[3, :3] = mass * com
    out[3, 3] = mass
    return out


def link_moments(joint, const=float):
    """``(S, f, m, trace)``: the link's second moments (3x3 tuple), first moments ``m c``
    (3-tuple), mass and ``tr(S)``, each entry through ``const`` (a scalar world's constant) but
    zeros, which stay literal ``0`` (structure: no operation)."""
    inertia = pseudo_inertia(joint)

    def entry(value):
        return 0 if value == 0 else const(float(value))
    second = tuple(tuple(entry(inertia[r, c]) for c in range(3)) for r in range(3))
    first = tuple(entry(inertia[r, 3]) for r in range(3))
    return second, first, entry(inertia[3, 3]), entry(np.trace(inertia[:3, :3]))


def gravity_in_links(robot, q, links=None):
    """``(B, N, 3)``: the robot's gravity in each link's frame, ``R_l^T g`` (``links`` as for
    :func:`differential_vectors`)."""
    q = _check(robot, q)
    links = link_transforms(robot, q) if links is None else links
    rotation = np.broadcast_to(np.eye(3), (len(q), 3, 3))
    out = np.zeros((len(q), robot.dof, 3))
    for l in range(robot.dof):
        rotation = rotation @ links[:, l, :3, :3]
        out[:, l] = np.einsum("brc,r->bc", rotation, np.asarray(_gravity(robot), dtype=float))
    return out


def inertia_term(delta_i, d_i, delta_j, d_j, moments):
    """Link ``l``'s share of ``D_ij`` (module docstring), ``moments`` from
    :func:`link_moments`."""
    second, first, mass, trace = moments
    return total([product(trace, dot(delta_i, delta_j)),
                  negate(dot(delta_j, matvec(second, delta_i))),
                  dot(cross(delta_i, first), d_j), dot(d_i, cross(delta_j, first)),
                  product(mass, dot(d_i, d_j))])


def coriolis_term(delta_i, d_i, delta_a, delta_b, d_b, moments):
    """Link ``l``'s share of ``C_iab``, ``a <= b`` (module docstring)."""
    second, first, mass, _ = moments
    turned = cross(delta_a, d_b)
    return total([dot(delta_a, matvec(second, cross(delta_b, delta_i))),
                  dot(cross(delta_i, first), turned),
                  dot(d_i, cross(delta_a, cross(delta_b, first))),
                  product(mass, dot(d_i, turned))])


def gravity_term(delta_i, d_i, gravity, moments):
    """Link ``l``'s share of ``h_i``, ``gravity`` the robot's in link ``l``'s frame."""
    _, first, mass, _ = moments
    return negate(total([dot(gravity, cross(delta_i, first)), product(mass, dot(gravity, d_i))]))


def lagrange_euler_terms(robot, q):
    """``(D, C, h)`` at the states ``q`` ``(B, N)``: the inertia matrix ``(B, N, N)``, the
    Coriolis and centripetal coefficients ``C[:, i, j, k]`` ``(B, N, N, N)`` (symmetric in
    ``j, k``) and the gravity terms ``(B, N)``."""
    q = _check(robot, q)
    n = robot.dof
    links = link_transforms(robot, q)
    delta, d = differential_vectors(robot, q, links)
    big = differential_matrices(delta, d)                  # (B, i, l, 4, 4)
    members = _links(robot)
    inertia = np.stack([pseudo_inertia(joint) for joint in members])
    D = np.zeros((len(q), n, n))
    C = np.zeros((len(q), n, n, n))
    h = np.zeros((len(q), n))
    pose = np.broadcast_to(np.eye(4), (len(q), 4, 4))
    gravity = np.append(np.asarray(_gravity(robot), dtype=np.float64), 0.0)
    for l in range(n):
        pose = pose @ links[:, l]                          # T_l
        J = inertia[l]
        # X_i = J Delta_i^T: every term's right-hand factor.
        right = np.einsum("rc,bicd->bird", J, np.swapaxes(big[:, :l + 1, l], -1, -2))
        D[:, :l + 1, :l + 1] += np.einsum("bjrc,bicr->bij", big[:, :l + 1, l], right)
        for a in range(l + 1):
            for b in range(a, l + 1):
                pair = big[:, a, l] @ big[:, b, l]
                value = np.einsum("brc,bicr->bi", pair, right)
                C[:, :l + 1, a, b] += value
                if b != a:
                    C[:, :l + 1, b, a] += value
        com = np.append(np.asarray(members[l].com, dtype=np.float64), 1.0)
        g_link = np.einsum("r,brc->bc", gravity, pose)    # g^T T_l
        h[:, :l + 1] -= members[l].mass * np.einsum(
            "bc,bicd,d->bi", g_link, big[:, :l + 1, l], com)
    return D, C, h


def lagrange_euler_torques(robot, q, qd, qdd):
    """Torques ``(B, N)``: ``D qdd + sum_jk C_ijk qd_j qd_k + h``, plus the joint terms
    (:func:`robohw.robots.chain.joint_terms`)."""
    q = _check(robot, q)
    qd, qdd = (np.broadcast_to(np.atleast_2d(np.asarray(v, dtype=np.float64)), q.shape)
               for v in (qd, qdd))
    D, C, h = lagrange_euler_terms(robot, q)
    return (np.einsum("bij,bj->bi", D, qdd) + np.einsum("bijk,bj,bk->bi", C, qd, qd) + h
            + joint_terms(robot, qd, qdd))
