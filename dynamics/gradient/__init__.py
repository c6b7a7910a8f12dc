"""The gradient of inverse dynamics, dtau/dq and dtau/dqd, built on inverse dynamics
(:mod:`robohw.dynamics.inverse`): its float64 reference (:mod:`.reference`), the analytical
derivatives it was weighed against (:mod:`.analytical`), the traced plan by forward mode
(:mod:`.plan`, :mod:`.dual`, :mod:`.bounds`) with its promise (:mod:`.accuracy`), the engine
(:mod:`.engine`, :mod:`.design`), the command's files (:mod:`.files`) and the report's section
(:mod:`.report`)."""
