"""Every entry of the inverse inertia matrix bounded over a robot's position limits: the
constant ``G`` of the forward-dynamics certificate, ``|qdd - qdd_exact|_i <= sum_j G_ij |r_j|``
for a residual ``r`` of inverse dynamics.

What is proven: for every ``q`` in the box of the joints' position limits (a revolute joint's
span taken as at most one turn), ``|H(q)^-1|_ij <= G_ij``.

Method: a branch and bound over boxes of joint values.

- ``H`` does not depend on the first joint's value, and in each other joint it is a
  trigonometric polynomial of degree two in a revolute angle (a polynomial of degree two in a
  prismatic offset): each link's Jacobian column turns with each joint once, and ``H`` is a sum
  of their products. So the exact derivatives ``A_k = dH/dq_k`` and ``S_kl = d^2H/dq_k dq_l``
  at a point are fixed combinations of ``H`` at four more values of each joint and of each
  pair of joints (:func:`taylor_terms`), and ``H``'s coefficients in that basis, taken on a
  grid of the same values, bound every third derivative over the whole box (``T_klm``,
  :func:`derivative_bounds`; each ``cos``/``sin`` pair by its amplitude).
- A box of center ``q0`` and half-widths ``h`` has ``H(q) = H0 + sum_k A_k d_k + sum_kl S_kl
  d_k d_l / 2 + R`` with ``|d_k| <= h_k`` and ``|R| <= sum_klm T_klm h_k h_l h_m / 6``
  (Taylor's theorem on the segment).
- With ``W`` the inverse transpose of ``H0``'s tip-first Cholesky factor (``W^T H0 W = I``, ``M
  = W W^T = H0^-1``) and ``E = W^T H W - I``, ``H^-1 = M - W E W^T + W E^2 (I + E)^-1 W^T``,
  so entry by entry::

      |H^-1| <= |M| + sum_k |M A_k M| h_k + sum_kl |M S_kl M| h_k h_l / 2 + |M| |R| |M|
                + |W| Ebar^2 (I - Ebar)^-1 |W|^T

  with ``Ebar = sum_k |W^T A_k W| h_k + sum_kl |W^T S_kl W| h_k h_l / 2 + |W^T| |R| |W| >=
  |E|`` and ``Ebar``'s spectral radius below one (``Ebar`` is symmetric). The Taylor terms
  keep the signs of ``M A_k M`` and ``M S_kl M``; the second-order term of the inverse takes
  absolute values in the coordinates where ``H0`` is the identity (in ``H``'s own coordinates
  the Panda's boxes would have to be ten times narrower), and only the remainder ``R`` is
  taken entry by entry in ``H``'s.
- A box is done when each entry's bound is within ``tolerance`` of the largest value seen at
  any sample or box center, or within ``slack`` of its row's weighted sum (small entries do not
  need tight bounds): ``G`` is then the entry-by-entry largest bound of the done boxes, within
  ``tolerance`` plus the slack of the true largest value. Otherwise the box is halved along the
  joint with the largest share of the entries furthest above their room.

Every value computed in float64 carries a margin (:data:`MARGIN` of the magnitudes it is made
of) far above its rounding; the grid's coefficients are checked against ``H`` evaluated
directly.
"""

import hashlib
import itertools
import json
import math
import pathlib
from dataclasses import dataclass

import numpy as np

from robohw.robots.chain import as_chain
from robohw.robots.joint_type import JointType
from robohw.robots.kinematics import jacobian_inertia
from robohw.robots.loading import require_dynamics
from robohw.robots.sampling import joint_limits
from robohw.robots.toml_file import inertia_digest
from robohw.sim.cache import cache_dir

__all__ = ["InverseInertiaBound", "inverse_inertia_bound", "cached_inverse_inertia_bound",
           "taylor_terms", "derivative_bounds", "box_bounds", "TOLERANCE", "SLACK", "MAX_BOXES",
           "MARGIN", "moving_joints", "position_box"]

# A done box's bound may exceed the largest value seen by this factor, or ...
TOLERANCE = 1.3
# ... by this share of its row's weighted sum, spread over the row's entries.
SLACK = 0.2
# Boxes bounded before the proof gives up.
MAX_BOXES = 2_000_000
# The relative margin on every float64 value: float64 rounds at 1.1e-16 a step.
MARGIN = 1e-9
# Boxes bounded at once.
_BATCH = 1024
# A box's second-order term is used while Ebar's spectral radius is below this.
_CONTRACTION = 0.8

# A revolute joint's five angles: a derivative's stencil (:func:`_stencil`) and a grid.
_ANGLES = 2 * np.pi * np.arange(5) / 5

@dataclass(frozen=True)
class InverseInertiaBound:
    """``entries`` ``(N, N)``: the proven bound on ``|H(q)^-1|`` over the position limits;
    ``largest_seen`` ``(N, N)``: the largest ``|H^-1|`` at the samples and box centers (a lower
    bound on the true largest); ``boxes``: how many boxes were bounded; ``tolerance`` and
    ``slack`` as :func:`inverse_inertia_bound` took them."""
    entries: np.ndarray
    largest_seen: np.ndarray
    boxes: int
    tolerance: float
    slack: float


def moving_joints(robot):
    """The joints ``H`` depends on (all but the first) and, per joint, whether it is
    revolute."""
    return [k for k in range(1, robot.dof)], [
        robot.joints[k].type != JointType.PRISMATIC for k in range(robot.dof)]


def position_box(robot):
    """``(low, high)`` ``(N,)``: the position limits, a revolute span cut to one turn."""
    limits = joint_limits(robot)
    low, high = limits[:, 0].copy(), limits[:, 1].copy()
    for k, joint in enumerate(robot.joints):
        if joint.type != JointType.PRISMATIC and high[k] - low[k] > 2 * np.pi:
            high[k] = low[k] + 2 * np.pi
    return low, high


def _prismatic_step(low, high):
    return max(high - low, 1e-3) / 2


def _stencil(revolute, step):
    """A joint's offsets from the center, and the weights giving the first and the second
    derivative at the center from ``H`` there (the second's first weight) and at them: exact
    for a trigonometric polynomial of degree two in an angle (``f'(0) = b_1 + 2 b_2``,
    ``f''(0) = -a_1 - 4 a_2``, ``a_v``, ``b_v = 2/5 sum_m f(t_m) (cos, sin)(v t_m)``), or a
    polynomial of degree two in an offset."""
    if revolute:
        return (_ANGLES[1:], 0.4 * (np.sin(_ANGLES) + 2 * np.sin(2 * _ANGLES))[1:],
                -0.4 * (np.cos(_ANGLES) + 4 * np.cos(2 * _ANGLES)))
    return (np.array([step, -step]), np.array([1, -1]) / (2 * step),
            np.array([-2, 1, 1]) / step ** 2)


def taylor_terms(chain, revolute, q, joints, steps):
    """``(H, A, S)``: ``H(q)`` ``(B, N, N)``, its exact first derivatives ``A`` ``(B, K, N, N)``
    and second derivatives ``S`` ``(B, K, K, N, N)`` along ``joints`` (``K`` of them) at ``q``
    ``(B, N)``, from ``H`` at four more values of each joint (:func:`_stencil`: the angles ``2 pi
    m / 5`` away, or ``+- steps[k]`` for a prismatic joint) and at every pair of them for two
    joints."""
    q = np.asarray(q, dtype=np.float64)
    stencils = [_stencil(revolute[k], steps.get(k, 1.0)) for k in joints]
    points, single, pairs = [q], [], {}
    for axis, k in enumerate(joints):
        single.append(len(points))
        for offset in stencils[axis][0]:
            points.append(q + offset * np.eye(q.shape[1])[k])
    for a, b in itertools.combinations(range(len(joints)), 2):
        pairs[a, b] = len(points)
        for first in stencils[a][0]:
            for second in stencils[b][0]:
                points.append(q + first * np.eye(q.shape[1])[joints[a]] +
                              second * np.eye(q.shape[1])[joints[b]])
    values = jacobian_inertia(chain, np.concatenate(points)).reshape(
        len(points), len(q), q.shape[1], q.shape[1])
    count = len(joints)
    slopes = np.zeros((len(q), count) + values.shape[2:])
    curves = np.zeros((len(q), count, count) + values.shape[2:])
    for axis, (offsets, first, second) in enumerate(stencils):
        around = values[single[axis]:single[axis] + len(offsets)]
        slopes[:, axis] = np.tensordot(first, around, axes=1)
        curves[:, axis, axis] = np.tensordot(second, np.concatenate([values[:1], around]),
                                             axes=1)
    for (a, b), at in pairs.items():
        grid = values[at:at + len(stencils[a][0]) * len(stencils[b][0])].reshape(
            len(stencils[a][0]), len(stencils[b][0]), *values.shape[1:])
        mixed = np.tensordot(stencils[a][1], np.tensordot(stencils[b][1], grid, axes=([0], [1])),
                             axes=1)
        curves[:, a, b] = curves[:, b, a] = mixed
    return values[0], slopes, curves


def _basis(revolute, low, high):
    """Per joint: the grid of its values the coefficients are taken on, the basis matrix
    there (a row a value)."""
    grid = _ANGLES if revolute else np.array([low, (low + high) / 2, high])
    return grid, _basis_rows(revolute, grid)


def derivative_bounds(robot, order, rng=None):
    """``(B, scale)``: ``B`` of shape ``(K,) * order + (N, N)`` bounds every ``|d^order H /
    dq_k dq_l ...|`` over the box (``k``, ``l``, ... over the ``K`` joints ``H`` depends on),
    from ``H``'s coefficients in the basis of :func:`taylor_terms` taken on the grid of its
    values; ``scale``, the largest entry's sum of its coefficients' magnitudes (a bound on
    ``|H|``), is what the margins are shares of. ``ValueError`` if the coefficients do not
    reproduce ``H`` at random points within the margin (no serial chain's ``H`` does that)."""
    chain, n = as_chain(robot), robot.dof
    joints, revolute = moving_joints(robot)
    low, high = position_box(robot)
    bases = [_basis(revolute[k], low[k], high[k]) for k in joints]
    grids = np.meshgrid(*[b[0] for b in bases], indexing="ij")
    q = np.zeros((grids[0].size if joints else 1, n))
    for axis, k in enumerate(joints):
        q[:, k] = grids[axis].ravel()
    coefficients = jacobian_inertia(chain, q).reshape(*[len(b[0]) for b in bases], n, n)
    for axis, b in enumerate(bases):
        coefficients = np.moveaxis(np.tensordot(np.linalg.inv(b[1]), coefficients,
                                                axes=([1], [axis])), 0, axis)
    scale = float(abs(coefficients).reshape(-1, n, n).sum(axis=0).max())
    _check_coefficients(chain, robot, joints, revolute, coefficients, scale,
                        rng or np.random.default_rng(0))
    count = len(joints)
    reaches = [None if revolute[k] else max(abs(low[k]), abs(high[k])) for k in joints]
    out = np.zeros((count,) * order + (n, n))
    for axes in itertools.product(range(count), repeat=order):
        if list(axes) != sorted(axes):
            continue
        derived = coefficients
        for axis in axes:
            derived = _derived(derived, axis, revolute[joints[axis]])
        largest = _largest(derived, reaches)
        for permuted in set(itertools.permutations(axes)):
            out[permuted] = largest
    return out, scale


def _derived(coefficients, axis, revolute):
    """The coefficients of the derivative along ``axis``."""
    c = np.moveaxis(coefficients, axis, 0)
    turn = np.zeros_like(c)
    if revolute:
        for v, (cos, sin) in ((1, (1, 2)), (2, (3, 4))):
            # d/dt (a cos vt + b sin vt) = v (b cos vt - a sin vt)
            turn[cos], turn[sin] = v * c[sin], -v * c[cos]
    else:                                # d/dx (a0 + a1 x + a2 x^2) = a1 + 2 a2 x
        turn[0], turn[1] = c[1], 2 * c[2]
    return np.moveaxis(turn, 0, axis)


def _largest(coefficients, reaches):
    """A bound on ``|f|`` over the box of the polynomial ``f`` of ``coefficients`` (one axis a
    joint, then ``(N, N)``), from the last axis to the first, each axis's terms bounded by
    bounds on their coefficients: ``|a0| + |(a1, b1)| + |(a2, b2)|`` (each pair's amplitude) for
    a revolute joint (``reaches[k]`` None), ``|a0| + |a1| X + |a2| X^2`` for a prismatic one
    whose offsets reach ``X = reaches[k]``."""
    bound = abs(coefficients)
    for axis in reversed(range(len(reaches))):
        c = np.moveaxis(bound, axis, 0)
        reach = reaches[axis]
        bound = (c[0] + np.hypot(c[1], c[2]) + np.hypot(c[3], c[4]) if reach is None
                 else c[0] + c[1] * reach + c[2] * reach ** 2)
    return bound


def _basis_rows(revolute, values):
    """The basis of :func:`_basis` at ``values`` ``(P,)``: ``(P, 5)`` or ``(P, 3)``."""
    if revolute:
        return np.stack([np.ones_like(values), np.cos(values), np.sin(values),
                         np.cos(2 * values), np.sin(2 * values)], axis=1)
    return np.stack([np.ones_like(values), values, values ** 2], axis=1)


def _check_coefficients(chain, robot, joints, revolute, coefficients, scale, rng):
    low, high = position_box(robot)
    q = rng.uniform(low, high, (64, robot.dof))
    rebuilt = np.broadcast_to(coefficients, (64,) + coefficients.shape)
    for k in joints:
        rebuilt = np.einsum("bi,bi...->b...", _basis_rows(revolute[k], q[:, k]), rebuilt)
    worst = float(np.max(abs(rebuilt - jacobian_inertia(chain, q)))) / scale
    if worst > MARGIN / 10:
        raise ValueError(f"{robot.name}: its inertia matrix is not of degree two in each joint "
                         f"(off by {worst:.1e} of its scale)")


def box_bounds(chain, revolute, joints, steps, third, margin, center, half):  # noqa: PLR0913
    """Entry-by-entry bounds ``(B, N, N)`` on ``|H(q)^-1|`` over the boxes of ``center`` and
    ``half``-widths ``(B, N)`` (the module docstring's bound; ``inf`` where ``Ebar``'s spectral
    radius is :data:`_CONTRACTION` or more), each joint's share ``(B, K, N, N)`` of each
    entry's bound (where it is ``inf``, of ``Ebar``'s row sums): what a box is halved along; and
    ``|H(center)^-1|``. ``third``: the bounds on the third
    derivatives (:func:`derivative_bounds`); ``margin``: the absolute margin on each entry of
    ``H``."""
    count, n = len(center), center.shape[1]
    h0, slopes, curves = taylor_terms(chain, revolute, center, joints, steps)
    reversed_order = np.eye(n)[::-1]
    factor = reversed_order @ np.linalg.cholesky(reversed_order @ h0 @ reversed_order) @ (
        reversed_order)                                          # h0 = U U^T, U upper
    w = np.swapaxes(np.linalg.inv(factor), 1, 2)
    wt, m = np.swapaxes(w, 1, 2), w @ np.swapaxes(w, 1, 2)
    wa, ma = abs(w), abs(m)
    h = half[:, joints]
    pairs = h[:, :, None] * h[:, None, :] / 2
    # |R|, Taylor's remainder, joint by joint (the terms T_klm h_k h_l h_m / 6 of its first
    # index), and the margins on H0 and its derivatives.
    rests = np.einsum("ka,la,ma,klm...->ak...", h.T, h.T, h.T, third) / 6
    reach = np.array([_stencil_weight(revolute[k], steps.get(k, 1.0)) for k in joints])
    fixed = margin * (1 + h @ reach)[:, None, None] ** 2 * np.ones((n, n))
    outer = ma[:, None] @ abs(slopes) @ ma[:, None], ma[:, None, None] @ abs(curves) @ (
        ma[:, None, None])
    parts = (np.einsum("bkij,bk->bkij", abs(m[:, None] @ slopes @ m[:, None]) +
                       MARGIN * outer[0], h) +
             np.einsum("bklij,bkl->bkij", abs(m[:, None, None] @ curves @ m[:, None, None]) +
                       MARGIN * outer[1], pairs) + ma[:, None] @ rests @ ma[:, None])
    first = parts.sum(axis=1) + ma @ fixed @ ma
    turned = (abs(wt[:, None] @ slopes @ w[:, None]) * h[:, :, None, None] +
              np.einsum("bklij,bkl->bkij", abs(wt[:, None, None] @ curves @ w[:, None, None]),
                        pairs) + np.swapaxes(wa, 1, 2)[:, None] @ rests @ wa[:, None])
    spread = np.einsum("bkij,bk->bij", abs(slopes), h) + np.einsum(
        "bklij,bkl->bij", abs(curves), pairs)
    ebar = (turned.sum(axis=1) + np.swapaxes(wa, 1, 2) @ (fixed + MARGIN * spread) @ wa +
            abs(wt @ h0 @ w - np.eye(n)) + MARGIN * (np.swapaxes(wa, 1, 2) @ abs(h0) @ wa))
    contracting = np.linalg.eigvalsh(ebar)[:, -1] < _CONTRACTION     # Ebar is symmetric
    bound = np.full((count, n, n), np.inf)
    e, wc = ebar[contracting], wa[contracting]
    second = e @ e @ np.linalg.inv(np.eye(n) - e)
    bound[contracting] = (ma[contracting] + first[contracting] + wc @ (
        second + MARGIN) @ np.swapaxes(wc, 1, 2)) * (1 + MARGIN)
    # Where the bound is finite, a joint's share is its first-order part; elsewhere, its part of
    # Ebar's row sums (each as a share of the whole).
    shares = np.where(contracting[:, None, None, None], parts / (first[:, None] + 1e-300),
                      turned.sum(axis=3, keepdims=True) / ebar.sum(axis=2)[:, None, :, None])
    return bound, shares, ma


def _stencil_weight(revolute, step):
    """What a joint's derivatives' weights add up to, at most: the margin they carry from
    ``H``'s (see :func:`box_bounds`)."""
    _, first, second = _stencil(revolute, step)
    return max(abs(first).sum(), math.sqrt(abs(second).sum()))


def _sampled(chain, low, high, rng, count=2000):
    return abs(np.linalg.inv(jacobian_inertia(chain, rng.uniform(low, high, (count,
                                                                             len(low))))))


def inverse_inertia_bound(robot, *, weights=None, tolerance=TOLERANCE, slack=SLACK,
                          max_boxes=MAX_BOXES, progress=None):
    """The :class:`InverseInertiaBound` of ``robot`` over its position limits (the module
    docstring). ``weights`` ``(N,)``: each joint's share in a row's weighted sum (default each
    joint's ``torque_limit``, or 1 where a joint has none); ``progress(boxes, pending)`` is
    called after each batch. ``ValueError`` if ``robot`` has no inertial data or the bound is not
    proven within ``max_boxes`` boxes."""
    require_dynamics(robot, "the inverse inertia matrix's bound")
    if not tolerance >= 1:
        raise ValueError(f"tolerance must be at least 1, not {tolerance!r}")
    if not slack >= 0:
        raise ValueError(f"slack must be at least 0, not {slack!r}")
    n, chain = robot.dof, as_chain(robot)
    joints, revolute = moving_joints(robot)
    low, high = position_box(robot)
    steps = {k: _prismatic_step(low[k], high[k]) for k in joints}
    third, scale = derivative_bounds(robot, 3)
    margin = MARGIN * scale
    weights = _weights(robot, weights)
    if weights.shape != (n,) or not np.all(weights > 0):
        raise ValueError(f"weights must be {n} positive numbers, not {weights!r}")
    seen = _sampled(chain, low, high, np.random.default_rng(0)).max(axis=0)
    proven = np.zeros((n, n))
    center, half = ((low + high) / 2)[None], ((high - low) / 2)[None]
    boxes = 0
    while len(center):
        if boxes + min(len(center), _BATCH) > max_boxes:
            raise ValueError(_not_proven(robot, max_boxes, half, joints))
        bound, shares, values = box_bounds(chain, revolute, joints, steps, third, margin,
                                           center[:_BATCH], half[:_BATCH])
        boxes += len(bound)
        seen = np.maximum(seen, values.max(axis=0))
        room = tolerance * seen + slack * (seen * weights).sum(axis=1)[:, None] / (n * weights)
        done = np.all(bound <= room, axis=(1, 2))
        if done.any():
            proven = np.maximum(proven, bound[done].max(axis=0))
        # Halved along the joint with the largest share of the entries furthest above room.
        excess = np.where(np.isfinite(bound), bound / room, np.inf)[~done]
        worst = excess >= excess.max(axis=(1, 2), keepdims=True) / 2
        split = _halves(center[:_BATCH][~done], half[:_BATCH][~done],
                        np.where(worst[:, None], shares[~done], 0).max(axis=(2, 3)), joints)
        center = np.concatenate([center[_BATCH:], split[0]])
        half = np.concatenate([half[_BATCH:], split[1]])
        if progress is not None:
            progress(boxes, len(center))
    return InverseInertiaBound(np.maximum(proven, seen), seen, boxes, tolerance, slack)


def _weights(robot, weights):
    """``weights`` as an array, by default each joint's ``torque_limit`` (1 where none)."""
    return np.array([j.torque_limit or 1.0 for j in robot.joints] if weights is None
                    else weights, dtype=np.float64)


def _halves(center, half, shares, joints):
    """Each box halved along the joint of its largest share: ``(centers, halves)``."""
    axis = np.asarray(joints)[shares.argmax(axis=1)]
    rows = np.arange(len(center))
    half = half.copy()
    half[rows, axis] /= 2
    offset = np.zeros_like(center)
    offset[rows, axis] = half[rows, axis]
    return np.concatenate([center - offset, center + offset]), np.concatenate([half, half])


def _not_proven(robot, max_boxes, half, joints):
    narrowest = np.asarray(joints)[np.argmin(half[:, joints].min(axis=0))] + 1
    return (f"{robot.name}: the inverse inertia matrix's entries are not proven within "
            f"{max_boxes} boxes of its position limits (its inertia matrix changes fastest "
            f"with joint {narrowest}); armature in the file or narrower limits would serve")


def _key(robot, weights, tolerance, slack):
    text = json.dumps([inertia_digest(robot), list(map(float, weights)), tolerance, slack,
                       hashlib.sha256(pathlib.Path(__file__).read_bytes()).hexdigest()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cached_inverse_inertia_bound(robot, *, weights=None, tolerance=TOLERANCE, slack=SLACK,
                                 max_boxes=MAX_BOXES, progress=None):
    """:func:`inverse_inertia_bound`, kept in the cache folder
    (:func:`robohw.sim.cache.cache_dir` ``"inverse-inertia"``) by what determines it: the
    robot's :func:`~robohw.robots.toml_file.inertia_digest`, the weights, the tolerances and
    this module's source."""
    weights = _weights(robot, weights)
    path = cache_dir("inverse-inertia") / f"{_key(robot, weights, tolerance, slack)}.json"
    if path.exists():
        kept = json.loads(path.read_text())
        return InverseInertiaBound(np.array(kept["entries"]), np.array(kept["largest_seen"]),
                                   kept["boxes"], kept["tolerance"], kept["slack"])
    bound = inverse_inertia_bound(robot, weights=weights, tolerance=tolerance, slack=slack,
                                  max_boxes=max_boxes, progress=progress)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps({"robot": robot.name, "entries": bound.entries.tolist(),
                                   "largest_seen": bound.largest_seen.tolist(),
                                   "boxes": bound.boxes, "tolerance": bound.tolerance,
                                   "slack": bound.slack}, indent=1))
    partial.replace(path)
    return bound
