"""The Python entry: a robot loaded once, then its computations on numpy arrays, no CSV files.

>>> import numpy as np
>>> from robohw.api import load_arm
>>> arm = load_arm("ur5")                      # a shipped name, a .toml, .urdf or .xacro file
>>> q = np.zeros((1, arm.dof))
>>> arm.forward_kinematics(q).shape             # the tool frame's pose in the base frame
(1, 4, 4)
>>> result = arm.inverse_dynamics(q, q, q)      # tau at rest: gravity alone
>>> result.values.shape, bool(result.valid[0]), result.reason[0]
((1, 6), True, 'ok')

Every computation gives a :class:`Result`: the values, and per row ``valid`` and ``reason``,
the same as the commands' ``valid`` and ``reason`` columns (docs/conventions.md): a row that is
not valid holds zeros. ``backend`` is ``"float"`` (the float64 references) or ``"model"`` (the
hardware's bit-exact model, for any robot: a URDF robot's hardware is generated from its
snapped standard-DH form, :mod:`robohw.robots.hardware_form`).
"""

from dataclasses import dataclass

import numpy as np

from robohw.hw.checks import check_choice

__all__ = ["Arm", "Result", "GradientResult", "load_arm", "BACKENDS", "DYNAMICS_BACKENDS"]

BACKENDS = ("float", "model")
# Inverse dynamics also runs on a board behind a serial port (robohw.board).
DYNAMICS_BACKENDS = (*BACKENDS, "board")


@dataclass(frozen=True)
class Result:
    """What an :class:`Arm` computes: ``values`` (rows first; zeros where not valid), per row
    ``valid`` (bool) and ``reason`` (``"ok"`` or why not), and the hardware's ``accuracy``
    promise (the dynamics model's, :class:`robohw.dynamics.AccuracyPromise`; the inertia
    model's, :class:`robohw.systolic.accuracy.InertiaPromise`; ``None`` for float64 and for
    forward dynamics), and where each row is certified (forward dynamics), ``bounds``: each
    value's certified bound, the values' shape (zeros where not valid, ``inf`` on a float64
    row the certificate does not cover), else ``None``."""
    values: np.ndarray
    valid: np.ndarray
    reason: np.ndarray
    accuracy: object = None
    bounds: "np.ndarray | None" = None


class Arm:
    """A serial robot and what robohw computes for it.

    Parameters
    ----------
    robot : :class:`robohw.robots.Robot` or :class:`robohw.robots.Chain`
        A loaded robot (:func:`load_arm` loads one from a file).
    """

    def __init__(self, robot):
        from robohw.robots import Chain, Robot
        if not isinstance(robot, (Robot, Chain)):
            raise TypeError(f"robot must be a Robot or a Chain (load_arm loads a file), not "
                            f"{type(robot).__name__}")
        self.robot = robot

    @property
    def dof(self):
        return self.robot.dof

    @property
    def name(self):
        return self.robot.name

    def _rows(self, name, values):
        from robohw.support.validity import real_values
        values = np.atleast_2d(real_values(name, values))
        if values.ndim != 2 or values.shape[1] != self.dof:
            raise ValueError(f"{name} must have shape (rows, {self.dof}) for {self.name}, not "
                             f"{np.shape(values)}")
        return values

    def forward_kinematics(self, q):
        """Poses ``(rows, 4, 4)`` of the tool frame in the base frame (float64)."""
        from robohw.robots.kinematics import forward_kinematics
        return forward_kinematics(self.robot, self._rows("q", q))

    def inertia(self, q, backend="float", *, array="linear", width=None):
        """The joint-space inertia matrices ``(rows, N, N)`` at ``q`` ``(rows, N)``: float64,
        or the ``array``'s bit-exact model at ``width`` bits (``None``: its default for the
        robot, ``robohw sim --robot``'s; its rows outside the robot's limits not valid, reason
        ``outside_limits``; its proven bounds in ``accuracy``)."""
        from robohw.systolic import solve_inertia
        check_choice("backend", backend, BACKENDS)
        _check_float_options(backend, width=width)
        got = solve_inertia(self.robot, self._rows("q", q), backend, array, width)
        return Result(got.h, got.valid, got.reason, got.accuracy)

    def inverse_dynamics(self, q, qd, qdd, backend="float", *, formulation="link",
                         wrench=None, design="engine", width=None, port=None):
        """Joint torques ``(rows, N)`` at the states ``(q, qd, qdd)``, each ``(rows, N)``:
        float64 by ``formulation`` (``link``, ``scan``, ``lagrange``; ``wrench``: the tool
        load, see :mod:`robohw.dynamics.inverse.reference`), or ``design``'s bit-exact model at
        ``width`` bits (``None``: its default for the robot, ``robohw sim --robot``'s; its
        states outside the limits not valid, reason ``outside_limits``), or (``"board"``) the
        design on a board behind ``port`` (an open serial port: :mod:`robohw.board`), which
        gives the model's values, validity and reasons."""
        from robohw.dynamics import solve_dynamics
        check_choice("backend", backend, DYNAMICS_BACKENDS)
        q, qd, qdd = (self._rows(n, v) for n, v in (("q", q), ("qd", qd), ("qdd", qdd)))
        if not q.shape == qd.shape == qdd.shape:
            raise ValueError(f"q, qd and qdd must have one shape, not {q.shape}, {qd.shape} "
                             f"and {qdd.shape}")
        if backend == "float":
            _check_float_options(backend, width=width)
            got = solve_dynamics(self.robot, q, qd, qdd, "float", formulation, wrench, port=port)
        else:
            got = solve_dynamics(self.robot, q, qd, qdd, backend, wrench=wrench, width=width,
                                 design=design, port=port)
        return Result(got.tau, got.valid, got.reason, got.accuracy)


    def inverse_dynamics_gradient(self, q, qd, qdd, backend="float", *, width=None):
        """The gradient of the joint torques at the states ``(q, qd, qdd)``, each ``(rows, N)``:
        a :class:`GradientResult` of ``dtau/dq`` and ``dtau/dqd`` (``dtau/dqdd`` is
        :meth:`inertia`'s ``H``): float64 (:mod:`robohw.dynamics.gradient.reference`: the rigid
        body by complex step, the damping on ``dtau/dqd``'s diagonal, Coulomb friction's
        derivative 0), or the bit-exact model of the traced gradient at ``width`` bits
        (``None``: the narrowest whose every entry's proven bound is within
        :data:`~robohw.dynamics.gradient.accuracy.GRADIENT_FRACTION` of its matrix's largest
        entry; ``promise`` holds the bounds), its rows outside the limits not valid, reason
        ``outside_limits`` (an angle no binary angle holds: ``out_of_format``). Its engine
        gives the model's bits (``robohw dynamics-gradient --backend rtl``)."""
        from robohw.dynamics import solve_gradient
        check_choice("backend", backend, BACKENDS)
        _check_float_options(backend, width=width)
        q, qd, qdd = (self._rows(n, v) for n, v in (("q", q), ("qd", qd), ("qdd", qdd)))
        if not q.shape == qd.shape == qdd.shape:
            raise ValueError(f"q, qd and qdd must have one shape, not {q.shape}, {qd.shape} "
                             f"and {qdd.shape}")
        got = solve_gradient(self.robot, q, qd, qdd, backend, width=width)
        return GradientResult(got.dq, got.dqd, got.valid, got.reason, got.promise)

    def forward_dynamics(self, q, qd, tau, backend="float", *, width=None, bound_fraction=None,
                         certify=False):
        """Joint accelerations ``(rows, N)`` at the states ``(q, qd)`` under the torques
        ``tau``, each ``(rows, N)``: float64 (the articulated-body algorithm), or the bit-exact
        model at ``width`` bits (``None``: the narrowest of 28 to 35, then 40, 48 and 56, at
        which a probe of states within the limits is certified; a robot with none is refused
        with ``ValueError``) of the articulated-body algorithm where its analysis proves it,
        else of the inertia matrix solved. The model's rows outside the limits are not valid, reason
        ``outside_limits``, and so are rows whose accelerations it cannot prove within the
        acceleration limits, ``beyond_acceleration_limits``; every other row is certified
        (:mod:`robohw.dynamics.forward.certificate`), ``bounds`` holding each acceleration's
        bound, and valid where each is within ``bound_fraction`` (``None``:
        :data:`~robohw.dynamics.forward.files.FORWARD_PROMISE`, 0.1 %) of its joint's
        acceleration limit, else ``not_certified``. With ``certify``, the float64 rows are
        certified too (their validity unchanged)."""
        from robohw.dynamics import FORWARD_PROMISE, solve_forward
        from robohw.hw.checks import check_bool
        check_choice("backend", backend, BACKENDS)
        check_bool("certify", certify)
        q, qd, tau = (self._rows(n, v) for n, v in (("q", q), ("qd", qd), ("tau", tau)))
        if not q.shape == qd.shape == tau.shape:
            raise ValueError(f"q, qd and tau must have one shape, not {q.shape}, {qd.shape} "
                             f"and {tau.shape}")
        _check_float_options(backend, width=width, bound_fraction=bound_fraction)
        got = solve_forward(self.robot, q, qd, tau, backend, width=width,
                            promise=FORWARD_PROMISE if bound_fraction is None
                            else bound_fraction, certified=certify)
        bounds = None if got.bounds is None else np.where(got.valid[:, None], got.bounds, 0.0)
        return Result(got.qdd, got.valid, got.reason, None, bounds)


@dataclass(frozen=True)
class GradientResult:
    """What :meth:`Arm.inverse_dynamics_gradient` computes: ``dq`` and ``dqd``, each ``(rows, N,
    N)`` (entry ``[k, i, j]``: d tau_i / d q_j, or / d qd_j, at state ``k``; zeros where not
    valid), per row ``valid`` and ``reason``, as :class:`Result`'s, and the model's
    :class:`~robohw.dynamics.gradient.accuracy.GradientPromise` (``None`` for float64)."""
    dq: np.ndarray
    dqd: np.ndarray
    valid: np.ndarray
    reason: np.ndarray
    promise: object = None


def _check_float_options(backend, **options):
    """The one rule for the hardware's options with the float backend: ``ValueError`` naming
    those given (not ``None``)."""
    given = [name for name, value in options.items() if value is not None]
    if backend == "float" and given:
        names = " and ".join(given)
        raise ValueError(f"{names} {'is' if len(given) == 1 else 'are'} the hardware's: "
                         f"{'it needs' if len(given) == 1 else 'they need'} backend 'model'")


def load_arm(path="puma560", *, base=None, tip=None):
    """The :class:`Arm` of a robot file or shipped name (:func:`robohw.robots.load_robot`:
    ``base`` and ``tip`` are a URDF's links). A bad file raises
    :class:`robohw.robots.RobotFileError`, one line naming the file and the field."""
    from robohw.robots import load_robot
    return Arm(load_robot(path, base=base, tip=tip))
