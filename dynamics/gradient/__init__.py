"""The gradient of inverse dynamics, dtau/dq and dtau/dqd, built on inverse dynamics
(:mod:`robohw.dynamics.inverse`): its float64 reference (:mod:`.reference`); the traced plan,
model and hardware will stand beside it."""
