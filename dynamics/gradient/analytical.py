"""Carpentier and Mansard's analytical derivatives of inverse dynamics (RSS 2018), step for step
as Pinocchio 4.1 computes them (``computeRNEADerivatives``, ``rnea-derivatives.hxx``: the
world-frame forward and backward steps, the composite inertias' time variation), written once
over scalars (:mod:`robohw.robots.algebra`): run on float64 arrays it checks itself against the
reference (:mod:`robohw.dynamics.gradient.reference`), traced with the robot's constants
folded (:class:`~robohw.dataflow.graph.Tracer`) its products are counted beside forward
mode's (:func:`analytical_products`): the two formulations the gradient's plan was chosen
between (``docs/notes/2026-12-gradient-plan.md``).

The model is :func:`robohw.robots.pinocchio.pinocchio_model`'s, made here without Pinocchio:
joint ``i`` at frame ``i - 1`` about (along) its z axis, what follows the motion in the DH step
the next joint's placement, each link's inertia moved back by it. Spatial vectors are 6-tuples
``(linear, angular)``; a 6 x 6 matrix is 6 rows over ``(linear, angular)``.
"""

import math

from robohw.robots.algebra import (
    cross,
    dot,
    matmul,
    matTvec,
    matvec,
    negate,
    product,
    total,
    vadd,
    vscale,
    vsub,
)
from robohw.robots.joint_type import JointType

__all__ = ["analytical_gradient", "analytical_products"]


def _rz(c, s):
    return ((c, negate(s), 0), (s, c, 0), (0, 0, 1))


def _rx(angle):
    c, s = (float(round(v)) if abs(v - round(v)) < 1e-12 else v
            for v in (math.cos(angle), math.sin(angle)))
    return ((1, 0, 0), (0, c, -s), (0, s, c))


def _transpose(m):
    return tuple(tuple(m[r][c] for r in range(3)) for c in range(3))


def _madd(*ms):
    return tuple(tuple(total([m[r][c] for m in ms]) for c in range(3)) for r in range(3))


def _mneg(m):
    return tuple(tuple(negate(x) for x in row) for row in m)


def _skew(a):
    return ((0, negate(a[2]), a[1]), (a[2], 0, negate(a[0])), (negate(a[1]), a[0], 0))


def _skew_square(u, v):
    """``skew(u) skew(v) = v u^T - (u . v) I``."""
    d = dot(u, v)
    return tuple(tuple(total([product(v[r], u[c]), negate(d) if r == c else 0])
                       for c in range(3)) for r in range(3))


def _split(m):
    return m[:3], m[3:]


def _act(rotation, origin, motion):
    """``oM.act(m)``: a motion of the frame in the world."""
    lin, ang = _split(motion)
    ang = matvec(rotation, ang)
    return (*vadd(matvec(rotation, lin), cross(origin, ang)), *ang)


def _act_inv(rotation, origin, motion):
    """``oM.actInv(m)``: a motion of the world in the frame."""
    lin, ang = _split(motion)
    return (*matTvec(rotation, vsub(lin, cross(origin, ang))), *matTvec(rotation, ang))


def _motion_cross(v, m):
    """``v x m``, motions."""
    (vl, va), (ml, ma) = _split(v), _split(m)
    return (*vadd(cross(va, ml), cross(vl, ma)), *cross(va, ma))


def _force_cross(v, f):
    """``v x* f``, a motion on a force."""
    (vl, va), (fl, fa) = _split(v), _split(f)
    return (*cross(va, fl), *vadd(cross(va, fa), cross(vl, fl)))


def _inertia_times(inertia, v):
    """``Y v``: the force of a spatial inertia ``(mass, lever, rotational about the lever)``."""
    mass, lever, rotational = inertia
    lin, ang = _split(v)
    force = vscale(mass, vsub(lin, cross(lever, ang)))
    return (*force, *vadd(matvec(rotational, ang), cross(lever, force)))


def _inertia_act(rotation, origin, inertia):
    mass, lever, rotational = inertia
    return (mass, vadd(matvec(rotation, lever), origin),
            matmul(rotation, matmul(rotational, _transpose(rotation))))


def _inertia_add(a, b):
    """Pinocchio's ``Inertia::operator+=``: the composite about the combined centre of mass
    (the masses are constants, so the division is folded)."""
    (ma, ca, ia), (mb, cb, ib) = a, b
    mab = ma + mb
    if not mab:
        return a
    ab = vsub(ca, cb)
    lever = vadd(vscale(ma / mab, ca), vscale(mb / mab, cb))
    rotational = _madd(ia, ib, _mneg(tuple(tuple(product(ma * mb / mab, x) for x in row)
                                           for row in _skew_square(ab, ab))))
    return (mab, lever, rotational)


def _variation(inertia, v, h):
    """``Y.variation(v)`` plus the force cross matrix of ``h`` (the forward step's
    ``doYcrb``), as Pinocchio writes them: blocks ``(LL, LA; AL, AA)``."""
    mass, lever, rotational = inertia
    lin, ang = _split(v)
    m_lin, m_ang = vscale(mass, lin), vscale(mass, ang)
    la = _madd(_mneg(_skew(m_lin)), _mneg(_skew_square(m_ang, lever)),
               _skew_square(lever, m_ang))
    al = _transpose(la)
    about_origin = _madd(rotational, _mneg(tuple(tuple(product(mass, x) for x in row)
                                                 for row in _skew_square(lever, lever))))
    aa = _madd(_mneg(_skew_square(m_lin, lever)), _mneg(_skew_square(lever, m_lin)),
               _mneg(matmul(about_origin, _skew(ang))), matmul(_skew(ang), about_origin))
    h_lin, h_ang = _split(h)
    la = _madd(la, _skew(tuple(negate(x) for x in h_lin)))
    al = _madd(al, _skew(tuple(negate(x) for x in h_lin)))
    aa = _madd(aa, _skew(tuple(negate(x) for x in h_ang)))
    zero = ((0, 0, 0),) * 3
    return tuple((*zero[r], *la[r]) for r in range(3)) + tuple((*al[r], *aa[r]) for r in range(3))


def _mat6_times(m, v):
    return tuple(total([product(x, y) for x, y in zip(row, v)]) for row in m)


def _mat6_add(a, b):
    return tuple(tuple(total([x, y]) for x, y in zip(ra, rb)) for ra, rb in zip(a, b))


def _row_times(j, m):
    """``J^T M``: a 6-vector."""
    return tuple(total([product(j[r], m[r][c]) for r in range(6)]) for c in range(6))


def _dot6(a, b):
    return total([product(x, y) for x, y in zip(a, b)])


def _model(robot):
    """Per joint: ``(placement rotation, placement origin, inertia in the joint's frame)``."""
    out, rotation, origin = [], ((1, 0, 0), (0, 1, 0), (0, 0, 1)), (0, 0, 0)
    for joint in robot.joints:
        first = joint.d if joint.type == JointType.REVOLUTE else 0.0
        turn = 0.0 if joint.type == JointType.REVOLUTE else joint.theta
        c, s = (float(round(v)) if abs(v - round(v)) < 1e-12 else v
                for v in (math.cos(turn), math.sin(turn)))
        after_r = matmul(_rz(c, s), _rx(joint.alpha))
        after_p = vadd(matvec(_rz(c, s), (joint.a, 0, 0)), (0, 0, first))
        inertia = (0.0, (0, 0, 0), ((0, 0, 0),) * 3)
        if joint.mass is not None:
            ixx, iyy, izz, ixy, iyz, ixz = joint.inertia
            tensor = ((ixx, ixy, ixz), (ixy, iyy, iyz), (ixz, iyz, izz))
            inertia = (joint.mass, vadd(matvec(after_r, joint.com), after_p),
                       matmul(after_r, matmul(tensor, _transpose(after_r))))
        out.append((rotation, origin, inertia))
        rotation, origin = after_r, after_p
    return out


def analytical_gradient(robot, joints, qd, qdd, arith):
    """``(dq, dqd)``, lists of ``N`` rows of ``N`` scalars: the rigid body's ``dtau/dq`` and
    ``dtau/dqd`` of a standard-DH ``robot`` by Pinocchio's steps, over scalars. ``joints[i]``:
    ``(cos, sin)`` of ``q + offset`` (revolute) or ``q + offset`` (prismatic); ``arith``: see
    :mod:`robohw.robots.algebra` (its ``const`` takes the robot's constants)."""
    n, model = robot.dof, _model(robot)
    const = arith.const

    def c3(v):
        return tuple(const(x) if x else 0 for x in v)

    def c33(m):
        return tuple(c3(row) for row in m)

    gravity = (*c3(robot.gravity), 0, 0, 0)
    o_r, o_p, ov, oa_gf, oy, doy, of, jcol = ({} for _ in range(8))
    dvdq, dadq, dadv = {}, {}, {}
    v_local, a_local = {}, {}
    for i, joint in enumerate(robot.joints):
        place_r, place_p, (mass, lever, rotational) = model[i]
        revolute = joint.type == JointType.REVOLUTE
        if revolute:
            c, s = joints[i]
            li_r, li_p = matmul(c33(place_r), _rz(c, s)), c3(place_p)
            axis, jv = (0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 0, qd[i])
            ja = (0, 0, 0, 0, 0, qdd[i])
        else:
            li_r = c33(place_r)
            li_p = vadd(c3(place_p), matvec(c33(place_r), (0, 0, joints[i])))
            axis, jv, ja = (0, 0, 1, 0, 0, 0), (0, 0, qd[i], 0, 0, 0), (0, 0, qdd[i], 0, 0, 0)
        v_i, a_i = jv, ja
        if i:
            o_r[i] = matmul(o_r[i - 1], li_r)
            o_p[i] = vadd(matvec(o_r[i - 1], li_p), o_p[i - 1])
            v_i = tuple(total([x, y]) for x, y in zip(v_i, _act_inv(li_r, li_p, v_local[i - 1])))
            a_i = tuple(total([x, y, z]) for x, y, z in zip(
                a_i, _motion_cross(v_i, jv), _act_inv(li_r, li_p, a_local[i - 1])))
        else:
            o_r[i], o_p[i] = li_r, li_p
            a_i = tuple(total([x, y]) for x, y in zip(a_i, _motion_cross(v_i, jv)))
        v_local[i], a_local[i] = v_i, a_i
        oy[i] = _inertia_act(o_r[i], o_p[i], (mass, c3(lever), c33(rotational)))
        ov[i] = _act(o_r[i], o_p[i], v_i)
        oa_gf[i] = tuple(total([x, negate(g)]) for x, g in zip(_act(o_r[i], o_p[i], a_i),
                                                              gravity))
        oh = _inertia_times(oy[i], ov[i])
        of[i] = tuple(total([x, y]) for x, y in zip(_inertia_times(oy[i], oa_gf[i]),
                                                   _force_cross(ov[i], oh)))
        jcol[i] = _act(o_r[i], o_p[i], axis)
        d_j = _motion_cross(ov[i], jcol[i])
        parent_a = oa_gf[i - 1] if i else tuple(negate(g) for g in gravity)
        dadq[i] = _motion_cross(parent_a, jcol[i])
        dadv[i] = d_j
        if i:
            dvdq[i] = _motion_cross(ov[i - 1], jcol[i])
            dadq[i] = tuple(total([x, y]) for x, y in zip(dadq[i],
                                                          _motion_cross(ov[i - 1], dvdq[i])))
            dadv[i] = tuple(total([x, y]) for x, y in zip(dadv[i], dvdq[i]))
        else:
            dvdq[i] = (0,) * 6
        doy[i] = _variation(oy[i], ov[i], oh)

    dq = [[0] * n for _ in range(n)]
    dqd = [[0] * n for _ in range(n)]
    dfda, dytj, dfdq, dfdv = {}, {}, {}, {}
    for i in reversed(range(n)):
        dfda[i] = _inertia_times(oy[i], jcol[i])
        dfdq[i] = _inertia_times(oy[i], dadq[i])
        if i:
            dfdq[i] = tuple(total([x, y]) for x, y in zip(dfdq[i],
                                                          _mat6_times(doy[i], dvdq[i])))
        dytj[i] = _row_times(jcol[i], doy[i])
        for k in range(i + 1, n):
            dq[k][i] = total([_dot6(dfda[k], dadq[i]), _dot6(dytj[k], dvdq[i])])
            dqd[k][i] = total([_dot6(dfda[k], dadv[i]), _dot6(dytj[k], jcol[i])])
        for k in range(i, n):
            dq[i][k] = total([dq[i][k], _dot6(jcol[i], dfdq[k])]) if k == i else \
                _dot6(jcol[i], dfdq[k])
        dfdq[i] = tuple(total([x, y]) for x, y in zip(dfdq[i], _force_cross(jcol[i], of[i])))
        dfdv[i] = tuple(total([x, y]) for x, y in zip(_mat6_times(doy[i], jcol[i]),
                                                      _inertia_times(oy[i], dadv[i])))
        for k in range(i, n):
            dqd[i][k] = _dot6(jcol[i], dfdv[k])
        if i:
            oy[i - 1] = _inertia_add(oy[i - 1], oy[i])
            doy[i - 1] = _mat6_add(doy[i - 1], doy[i])
            of[i - 1] = tuple(total([x, y]) for x, y in zip(of[i - 1], of[i]))
    return dq, dqd


def analytical_products(robot):
    """The products (constant ones included) the analytical derivatives take for ``robot``'s
    ``dtau/dq`` and ``dtau/dqd``, traced with its constants folded as the gradient's plan
    traces forward mode (:class:`~robohw.dataflow.graph.Tracer`; a product by 0 or +-1 costs
    nothing)."""
    from robohw.dataflow.graph import Tracer
    from robohw.dataflow.operations import Count
    tracer = Tracer(fold=True)
    joints, qd, qdd = [], [], []
    for k, joint in enumerate(robot.joints, start=1):
        if joint.type == JointType.REVOLUTE:
            joints.append((tracer.input(f"cos{k}", -1, 1), tracer.input(f"sin{k}", -1, 1)))
        else:
            joints.append(tracer.input(f"d{k}", -1, 1))
        qd.append(tracer.input(f"qd{k}", -1, 1))
        qdd.append(tracer.input(f"qdd{k}", -1, 1))
    dq, dqd = analytical_gradient(robot, joints, qd, qdd, tracer)
    outputs = [x for rows in (dq, dqd) for row in rows for x in row]
    return tracer.counts(tracer.live(outputs))[Count.MUL]

