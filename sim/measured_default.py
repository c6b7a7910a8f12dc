"""What a robot-generated design searches for once and keeps: a default (a width measured over
a sample, an interval found by estimating engines) computed on first use, then held for the
rest of the run and cached on disk for the next (``$ROBOHW_CACHE/KIND``, :mod:`robohw.sim.cache`)
under what determines it and the code's digest (:func:`robohw.sim.compiled.source_digest`): a
new robot or new code searches again.
"""

import hashlib
import json
import os

from robohw.sim.cache import cache_dir
from robohw.sim.compiled import source_digest

__all__ = ["measured_default"]

# This run's defaults by their cache folder and key.
_HELD = {}


def measured_default(kind, key, compute, parse=None):
    """The default of ``kind`` (a cache folder's name) identified by ``key`` (a string naming
    everything that determines it: the design, the robot's digest, the search's parameters):
    this run's, else the cached one, else ``compute()``'s (a JSON value), cached; ``parse``
    (default: none) makes the value from the JSON value, and a cached value it refuses
    (``TypeError``, ``ValueError``) is computed again."""
    parse = parse or (lambda value: value)
    held = (cache_dir(kind), key)
    if held not in _HELD:
        _HELD[held] = _cached(kind, key, compute, parse)
    return _HELD[held]


def _cached(kind, key, compute, parse):
    digest = hashlib.sha256(f"{key} {source_digest()}".encode()).hexdigest()[:32]
    path = cache_dir(kind) / f"{digest}.json"
    try:
        value = parse(json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        found = compute()
        value = parse(found)
        path.parent.mkdir(parents=True, exist_ok=True)
        # this process's own temporary: runs beside each other may search the same default
        temporary = path.with_suffix(f".{os.getpid()}.part")
        temporary.write_text(json.dumps(found))
        temporary.replace(path)
    return value
