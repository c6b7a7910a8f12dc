"""The gradient of inverse dynamics in float64: ``dtau/dq`` and ``dtau/dqd`` of the joint torques
of :func:`robohw.dynamics.inverse.reference.inverse_dynamics` (``dtau/dqdd`` is the inertia
matrix ``H``, :mod:`robohw.systolic`'s), for any serial arm robohw loads.

The rigid body's part is differentiated by complex step through the link-frame recursion
(:func:`~robohw.dynamics.inverse.reference.rigid_link_frame_torques`): with a step of ``h =
1e-30`` along ``q_j`` or ``qd_j`` the imaginary part of the torques over ``h`` is the
derivative, exact to float64 rounding (no difference is taken, so nothing cancels). The joints'
own terms (``armature * qdd + damping * qd + friction * sign(qd)``) add ``damping`` on
``dtau/dqd``'s diagonal and nothing on ``dtau/dq``. Coulomb friction's derivative is 0 wherever
``qd_j != 0``; at ``qd_j = 0`` exactly, where ``sign`` steps, it is taken as 0 too (the
derivative of the smooth part): what a solver differentiating the model sees on either side.
"""

import numpy as np

from robohw.dynamics.inverse.reference import joint_arrays, rigid_link_frame_torques

__all__ = ["inverse_dynamics_gradient", "COMPLEX_STEP"]

# The complex step: small enough that its square vanishes beside float64's epsilon, large enough
# that h times any derivative robohw meets stays a normal number.
COMPLEX_STEP = 1e-30


def inverse_dynamics_gradient(robot, q, qd, qdd):
    """``(dq, dqd)``, each ``(B, N, N)``: entry ``[b, i, j]`` is ``d tau_i / d q_j`` (``d tau_i
    / d qd_j``) at state ``b`` of ``q``, ``qd``, ``qdd`` (each ``(N,)`` or ``(B, N)``), in N m
    per rad (or per rad/s; N per m, per m/s for a prismatic joint). See the module docstring
    for what is differentiated and how."""
    q, qd, qdd = joint_arrays(robot, "the gradient of the dynamics", q=q, qd=qd, qdd=qdd)
    batch, n = q.shape
    wrench = np.zeros((batch, 6))
    dq, dqd = np.zeros((batch, n, n)), np.zeros((batch, n, n))
    for j in range(n):
        for values, out, place in ((q, dq, 0), (qd, dqd, 1)):
            state = [q.astype(complex), qd.astype(complex), qdd]
            state[place] = values.astype(complex)
            state[place][:, j] += 1j * COMPLEX_STEP
            out[:, :, j] = rigid_link_frame_torques(robot, *state, wrench).imag / COMPLEX_STEP
    damping = np.array([float(getattr(joint, "damping", 0.0) or 0.0) for joint in robot.joints])
    return dq, dqd + np.diag(damping)
