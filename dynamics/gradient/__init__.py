"""The gradient of inverse dynamics, dtau/dq and dtau/dqd: the place its reference, traced plan,
model and hardware will stand, built on inverse dynamics (:mod:`robohw.dynamics.inverse`).
Nothing is here yet."""
