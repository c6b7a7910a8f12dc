"""``robohw bench commands``: the command paths against what a robotics engineer would use
instead, Pinocchio, measured in one run on one machine.

Each figure is a whole command, timed from outside (a new process, the best of ``repeats``):
start-up (``robohw --help``, a float command on one state), and for each robot (a shipped name
or a robot file: a user's URDF arm is timed as a shipped one) ``robohw dynamics`` and ``robohw
inertia`` over ``states`` states, CSV in and CSV out, by the float backend and by the bit-exact
model at its default width for the robot (chosen, and for a robot without a table measured, in
a first run that is not timed: a default is searched once and cached) and at each width
asked. Beside them, the same work in Pinocchio
(the optional ``bench`` extra, ``pip install 'robohw[bench]'``): numpy's ``loadtxt`` in, its
recursive Newton-Euler (``rnea``) or composite-rigid-body algorithm (``crba``) in a Python loop,
``savetxt`` out, the robot built from our description
(:func:`robohw.robots.pinocchio.pinocchio_model`) and checked
equal to our float64 references before anything is timed. Without Pinocchio its rows say "not
measured". Wall-clock figures depend on the machine and its load: they live in the docs, never
in a test.
"""

import pathlib
import pickle
import subprocess
import sys
import tempfile
import time

import numpy as np

from robohw.dynamics import inverse_dynamics
from robohw.robots import load_robot
from robohw.robots import pinocchio as peer
from robohw.robots.loading import hardware_robot
from robohw.robots.sampling import sample_states
from robohw.support.progress import Progress

__all__ = ["bench_commands", "format_command_bench", "check_pinocchio", "COMMAND_ROBOTS",
           "report_robots", "commands_section", "EXAMPLE_ARM"]

# A Pinocchio user's path: its model, numpy's reader, the algorithm in a loop, numpy's writer.
_PINOCCHIO = """
import pickle, sys
import numpy as np
import pinocchio
model = pickle.load(open(sys.argv[1], "rb"))
data = model.createData()
values = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1, ndmin=2)
n = model.nq
q = values[:, :n] + np.array(pickle.load(open(sys.argv[4], "rb")))
if sys.argv[5] == "rnea":
    qd, qdd = values[:, n:2 * n], values[:, 2 * n:3 * n]
    out = np.array([pinocchio.rnea(model, data, q[k], qd[k], qdd[k]) for k in range(len(q))])
    header = ",".join(f"tau{k + 1}" for k in range(n))
else:
    out = np.array([pinocchio.crba(model, data, q[k]).copy() for k in range(len(q))])
    out = np.triu(out) + np.swapaxes(np.triu(out, 1), 1, 2)   # crba fills the upper half
    out = out.reshape(len(q), -1)
    header = ",".join(f"H{j}{i}" for j in range(1, n + 1) for i in range(1, n + 1))
np.savetxt(sys.argv[3], out, delimiter=",", header=header, comments="")
"""


def check_pinocchio(robot, count=200, seed=0):
    """The largest difference between Pinocchio's and our float64 torques (Pinocchio's plus the
    joints' damping and Coulomb friction, which it does not model) and inertia matrices over
    ``count`` seeded states, relative to the largest value: ``{"tau": ..., "H": ...}``, or
    ``None`` without Pinocchio."""
    pin = peer.pinocchio_module()
    if pin is None:
        return None
    from robohw.systolic import inertia_matrix
    model = peer.pinocchio_model(robot)
    data = model.createData()
    q, qd, qdd = sample_states(robot, count, np.random.default_rng(seed))
    shifted = q + np.array(peer.offsets(robot))
    tau = np.array([pin.rnea(model, data, a, b, c) for a, b, c in zip(shifted, qd, qdd)])
    # Pinocchio has no joint damping or Coulomb friction; our reference adds both.
    damping = np.array([float(j.damping or 0.0) for j in robot.joints])
    friction = np.array([float(j.friction or 0.0) for j in robot.joints])
    tau = tau + damping * qd + friction * np.sign(qd)
    h = np.array([pin.crba(model, data, a).copy() for a in shifted])
    h = np.triu(h) + np.swapaxes(np.triu(h, 1), 1, 2)
    ours_tau = inverse_dynamics(robot, q, qd, qdd)
    ours_h = inertia_matrix(robot, q, "jacobian")
    return {"tau": float(np.abs(tau - ours_tau).max() / np.abs(ours_tau).max()),
            "H": float(np.abs(h - ours_h).max() / np.abs(ours_h).max())}


def _time(argv, repeats):
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        run = subprocess.run(argv, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        if run.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, argv))} failed: "
                               f"{run.stderr.strip().splitlines()[-1:]}")
        best = min(best, elapsed)
    return round(best, 3)


def _robohw(*args):
    return [sys.executable, "-c", "import sys\nfrom robohw.commands import main\n"
            "sys.exit(main(sys.argv[1:]))", *map(str, args)]


def _write_states(robot, path, count, seed):
    q, qd, qdd = sample_states(robot, count, np.random.default_rng(seed))
    names = [f"{kind}{k}" for kind in ("q", "qd", "qdd") for k in range(1, robot.dof + 1)]
    np.savetxt(path, np.hstack([q, qd, qdd]), delimiter=",", header=",".join(names),
               comments="")
    configurations = path.with_name(f"{path.stem}_q.csv")
    np.savetxt(configurations, q, delimiter=",", header=",".join(names[:robot.dof]),
               comments="")
    return configurations


# The robots timed by default: a shipped six-joint arm from its URDF; `make bench` adds the
# seven-joint example arm (examples/seven_joint_arm.urdf), a user's.
COMMAND_ROBOTS = ("ur5",)
# The example arm of a checkout (an installed package has no examples/ folder).
EXAMPLE_ARM = pathlib.Path(__file__).resolve().parents[2] / "examples" / "seven_joint_arm.urdf"


def report_robots():
    """The robots the report times: :data:`COMMAND_ROBOTS`, and the example arm where the
    package runs from a checkout that holds it."""
    return (*COMMAND_ROBOTS, *([str(EXAMPLE_ARM)] if EXAMPLE_ARM.is_file() else []))


def bench_commands(robots=COMMAND_ROBOTS, states=100_000, widths=(), repeats=3, stream=None):
    """Rows of ``{"robot", "command", "path", "states", "seconds", "per_state_us"}``, the
    start-up rows' robot ``None``; Pinocchio's rows ``seconds`` ``None`` without it, and
    ``check``: the largest relative difference from our float64 reference."""
    rows = []
    progress = Progress(2 + len(robots) * (2 * (3 + len(widths))), stream)
    with tempfile.TemporaryDirectory(prefix="robohw-bench-") as folder:
        folder = pathlib.Path(folder)
        robot = load_robot(robots[0])
        single = folder / "one.csv"
        _write_states(robot, single, 1, 0)
        for path, argv in (("robohw --help", _robohw("--help")),
                           ("robohw dynamics, one state", _robohw(
                               "dynamics", "--states", single, "--out", folder / "one_tau.csv",
                               "--robot", robots[0], "--quiet"))):
            rows.append({"robot": None, "command": "start-up", "path": path, "states": 1,
                         "seconds": _time(argv, max(repeats, 5)), "per_state_us": None})
            progress.step(path)
        for index, name in enumerate(robots):
            robot = load_robot(name)
            source, first = folder / f"robot{index}.csv", folder / f"robot{index}_one.csv"
            configurations = _write_states(robot, source, states, 1)
            warm = {"dynamics": first, "inertia": _write_states(robot, first, 1, 0)}
            # Pinocchio's model from the arm's standard-DH form (a URDF chain's snapped form,
            # the one the hardware is generated from): the same joints, links and inertias.
            timed = hardware_robot(robot, terms=())
            pin = peer.pinocchio_model(timed)
            check = check_pinocchio(timed)
            for command, option, data, algorithm in (
                    ("dynamics", "--states", source, "rnea"),
                    ("inertia", "--q", configurations, "crba")):
                paths = [("float", []), ("model, default width", ["--backend", "model"]),
                         *((f"model, {w} bits", ["--backend", "model", "--width", str(w)])
                           for w in widths)]
                # The defaults chosen (and measured, for a robot without a table) untimed.
                _time(_robohw(command, option, warm[command], "--out", folder / "out.csv",
                              "--robot", name, "--quiet", "--backend", "model"), 1)
                for label, extra in paths:
                    seconds = _time(_robohw(command, option, data, "--out",
                                            folder / "out.csv", "--robot", name, "--quiet",
                                            *extra), repeats)
                    rows.append(_row(name, command, f"robohw {command}, {label}", states,
                                     seconds))
                    progress.step(f"{name}: robohw {command}, {label}")
                seconds = None
                if pin is not None:
                    model_file, offset_file = folder / "model.pickle", folder / "offsets.pickle"
                    model_file.write_bytes(pickle.dumps(pin))
                    offset_file.write_bytes(pickle.dumps(peer.offsets(timed)))
                    seconds = _time([sys.executable, "-c", _PINOCCHIO, model_file,
                                     configurations if algorithm == "crba" else data,
                                     folder / "pin.csv", offset_file, algorithm], repeats)
                row = _row(name, command, f"Pinocchio {algorithm}, Python loop", states, seconds)
                row["check"] = None if check is None else \
                    check["tau" if algorithm == "rnea" else "H"]
                rows.append(row)
                progress.step(f"{name}: Pinocchio {algorithm}")
    return rows


def _row(robot, command, path, states, seconds):
    return {"robot": robot, "command": command, "path": path, "states": states,
            "seconds": seconds,
            "per_state_us": None if seconds is None else round(1e6 * seconds / states, 2)}


def format_command_bench(rows):
    """The rows as a Markdown table, each robot's rows with their ratio to Pinocchio's."""
    lines = ["| robot | command | path | states | seconds | µs a state | against Pinocchio |",
             "|---|---|---|---|---|---|---|"]
    by_peer = {(r["robot"], r["command"]): r["seconds"] for r in rows
                if r["path"].startswith("Pinocchio")}
    for r in rows:
        seconds = "not measured" if r["seconds"] is None else f"{r['seconds']:.3f}"
        per = "" if r["per_state_us"] is None else f"{r['per_state_us']:.2f}"
        base = by_peer.get((r["robot"], r["command"]))
        if r["path"].startswith("Pinocchio"):
            ratio = "" if r.get("check") is None else \
                f"agrees with our float64 to {r['check']:.1e}"
        else:
            ratio = "" if not base or r["seconds"] is None else f"{r['seconds'] / base:.2f}x"
        lines.append(f"| {r['robot'] or ''} | {r['command']} | {r['path']} | {r['states']:,} | "
                     f"{seconds} | {per} | {ratio} |")
    return "\n".join(lines)


def commands_section(rows):
    """The report's section of :func:`bench_commands`' ``rows``: the table, and each robot's
    ratios (the float path to Pinocchio's, the model at its default width to the float path),
    robot files by their names."""
    def name(robot):
        return None if robot is None else pathlib.Path(robot).name
    named = [{**row, "robot": name(row["robot"])} for row in rows]
    seconds = {(r["robot"], r["command"], r["path"]): r["seconds"] for r in named}
    lines = []
    for robot in dict.fromkeys(r["robot"] for r in named if r["robot"]):
        for command, peer_path in (("dynamics", "Pinocchio rnea, Python loop"),
                                   ("inertia", "Pinocchio crba, Python loop")):
            flt = seconds.get((robot, command, f"robohw {command}, float"))
            model = seconds.get((robot, command, f"robohw {command}, model, default width"))
            peer_s = seconds.get((robot, command, peer_path))
            against = "Pinocchio not measured" if not peer_s or not flt else \
                f"the float path {flt / peer_s:.2f}x Pinocchio's"
            model_text = "" if not model or not flt else \
                f", the model at its default width {model / flt:.2f}x the float path"
            lines.append(f"- {robot}, `robohw {command}`: {against}{model_text}.")
    states = next((r["states"] for r in rows if r["robot"]), 0)
    return ("## The command paths against Pinocchio\n\n"
            f"Whole commands in new processes, CSV in and out, {states:,} seeded states a "
            "robot, the best of the runs (`robohw bench commands`; the figures depend on the "
            "machine and its load, the ratios less). The goals: the float path within 1.5x of "
            "Pinocchio's, the model within 2x of the float path, on a shipped arm and on a "
            "user's URDF arm alike.\n\n" + format_command_bench(named) + "\n\n" +
            "\n".join(lines) + "\n")
