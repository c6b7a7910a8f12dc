"""The certificate of forward dynamics: a proven bound, row by row, on the error of any
solver's joint accelerations, from the state's inverse-dynamics residual.

At a state ``(q, qd)`` under torques ``tau`` the exact accelerations ``qdd*`` meet ``ID(q, qd,
qdd*) = tau`` (inverse dynamics with the joints' terms:
:func:`robohw.dynamics.inverse.reference.inverse_dynamics`), and ``ID`` is affine in ``qdd``
with the inertia matrix ``H(q)`` its slope. So for any accelerations ``qdd`` a solver gives,

    ``qdd - qdd* = H^-1 (ID(q, qd, qdd) - tau)``,  ``|qdd - qdd*| <= |H^-1| (|r| + e)``

entry by entry, with ``r = ID_model(q, qd, qdd) - tau`` the residual by the bit-exact model of the
link-frame inverse dynamics (:class:`~robohw.dynamics.inverse.engine.LinkFramePlan`) at
:data:`CERTIFICATE_WIDTH` bits, less the Coulomb friction its sign of ``qd``'s code adds
(:func:`~robohw.dynamics.inverse.model.coded_friction`), and ``e`` that model's proven bound per
joint. Nothing about the solver is assumed: a register that wrapped gives a residual that fails
the promise, and a right answer, however computed, passes.

``|H^-1|`` is bounded from the row's own ``H`` (:func:`~robohw.robots.kinematics.jacobian_inertia`,
float64): with ``X`` its inverse in float64, ``F >= |I - X H|`` (``H``'s own error and the
product's rounding included), ``s`` the largest row sum of ``F`` and ``s < 1``,

    ``|H^-1| <= |X| + F_i. max_k |X|_kj / (1 - s)``

(``H^-1 = (I - (I - X H))^-1 X`` and ``Y = |X| + F Y`` bounds its Neumann series). Every float64
value carries a margin of :data:`~robohw.dynamics.forward.inverse_inertia.MARGIN` of its
magnitudes, far above float64's rounding over the few hundred operations each takes.

A row is certified where the inverse-dynamics model's inputs are within its limits (its
``in_bounds``: the state's, and ``qdd`` within the acceleration limits; every angle within its
binary angles' exact codes) and ``s`` is below
:data:`MAX_CONTRACTION`; elsewhere its bound is infinite.
"""

from dataclasses import dataclass

import numpy as np

from robohw.dynamics.forward.inverse_inertia import MARGIN
from robohw.dynamics.inverse.codec import encode_states
from robohw.dynamics.inverse.engine import LinkFramePlan
from robohw.dynamics.inverse.model import coded_friction, model_torques
from robohw.robots.kinematics import jacobian_inertia
from robohw.robots.toml_file import robot_digest
from robohw.support.held import Held
from robohw.support.joints import angles_fit

__all__ = ["Certificate", "certify", "CERTIFICATE_WIDTH", "MAX_CONTRACTION"]

# The residual's width: at 35 bits the floor 2 |H^-1| e of the shipped seven-joint arms lies
# under 1e-3 of their acceleration limits with room for the solver's own error
# (docs/notes/2026-12-forward-dynamics-certificate.md).
CERTIFICATE_WIDTH = 35
# The largest row sum of F taken: beyond it the Neumann bound more than doubles |X|.
MAX_CONTRACTION = 0.5


@dataclass(frozen=True)
class Certificate:
    """What :func:`certify` proves of accelerations ``(rows, N)``.

    Attributes
    ----------
    bounds : numpy.ndarray
        ``(rows, N)``: each acceleration's proven bound against the exact accelerations of
        its state and torques (rad/s^2 or m/s^2); ``inf`` where the row is not certified.
    covered : numpy.ndarray
        ``(rows,)`` bool: the residual's model covers the row (its state and accelerations
        within the inverse-dynamics model's limits).
    width : int
        Bits of the inverse-dynamics model the residual is taken by.
    """
    bounds: np.ndarray
    covered: np.ndarray
    width: int

    def within(self, limits):
        """``(rows,)`` bool: every bound of the row at most ``limits`` (``(N,)``)."""
        return (self.bounds <= np.asarray(limits, dtype=float)).all(axis=-1)


# This run's residual models (a file's every chunk, the API called in a loop).
_PLANS = Held(4)


def certify(robot, q, qd, tau, qdd, *, width=CERTIFICATE_WIDTH):
    """The :class:`Certificate` of accelerations ``qdd`` at states ``(q, qd)`` under torques
    ``tau``, each ``(rows, N)`` float64 and finite, for ``robot`` (its hardware form, with its
    joints' velocity and acceleration limits: :func:`robohw.robots.hardware_robot`)."""
    q, qd, tau, qdd = (np.atleast_2d(np.asarray(a, dtype=np.float64)) for a in (q, qd, tau, qdd))
    plan = _PLANS.get((robot_digest(robot), width),
                      lambda: LinkFramePlan(robot, width=width, bound_fraction=None))
    fits = angles_fit(robot, q, plan.cordic.width)
    q = np.where(fits[:, None], q, 0.0)         # computed, then not covered
    got, inside = model_torques(plan, q, qd, qdd)
    inside = inside & fits
    friction = coded_friction(plan, qd, encode_states(plan, q, qd, qdd))
    e = np.array([plan.output_bounds[k] for k in range(1, robot.dof + 1)])
    residual = np.abs(got - friction - tau)
    residual = residual * (1 + MARGIN) + MARGIN * (np.abs(got) + np.abs(friction) + np.abs(tau))
    inverse, contraction = _inverse_bound(jacobian_inertia(robot, q))
    bounds = np.einsum("bij,bj->bi", inverse, residual + e) * (1 + MARGIN)
    certified = inside & (contraction < MAX_CONTRACTION) & np.isfinite(bounds).all(axis=-1)
    return Certificate(np.where(certified[:, None], bounds, np.inf), inside, width)


def _inverse_bound(h):
    """``(|H^-1| bound (B, N, N), s (B,))`` of inertia matrices ``h`` ``(B, N, N)`` computed in
    float64 (see the module docstring)."""
    n = h.shape[-1]
    with np.errstate(all="ignore"):
        try:
            x = np.linalg.inv(h)
        except np.linalg.LinAlgError:       # a singular H (a massless tip): not certified
            x = np.stack([_inverse_or_nan(m) for m in h])
        magnitude = np.abs(x)
        scale = np.abs(h).max(axis=(-2, -1))[:, None, None]
        f = np.abs(np.eye(n) - x @ h) + magnitude @ np.full((n, n), MARGIN) * scale + \
            MARGIN * (magnitude @ np.abs(h))
        rows = f.sum(axis=-1)
        s = rows.max(axis=-1)
        bound = magnitude + rows[:, :, None] * magnitude.max(axis=-2)[:, None, :] / \
            (1 - np.minimum(s, MAX_CONTRACTION))[:, None, None]
    return bound * (1 + MARGIN), np.where(np.isfinite(s), s, np.inf)


def _inverse_or_nan(h):
    """The inverse of one matrix ``h``, or NaN throughout where it is singular."""
    try:
        return np.linalg.inv(h)
    except np.linalg.LinAlgError:
        return np.full(h.shape, np.nan)
