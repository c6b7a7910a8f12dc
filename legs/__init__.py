"""One processor per leg of a parallel manipulator (Gosselin 1996): the operation counts of the
per-leg and platform computations (:mod:`.counts`)."""
