"""``robohw forward-dynamics`` and ``Arm.forward_dynamics``: the float backend is the
articulated-body reference; the model's valid rows are within their certified bounds of it and
within the promise, the rest invalid with their reason; the command and the API agree row for
row."""

import csv
import pathlib
import re

import numpy as np
import pytest

from robohw.api import load_arm
from robohw.commands import main
from robohw.dynamics.forward.files import certified_plan
from robohw.dynamics.forward.reference import articulated_body_accelerations
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.robots import load_robot
from robohw.robots.sampling import sample_states

# The widths the model's default is the narrowest of, as a refusal names them.
WIDTHS = "28, 29, 30, 31, 32, 33, 34, 35, 40, 48 or 56"
EXAMPLE_ARM = pathlib.Path(__file__).resolve().parents[2] / "examples" / "seven_joint_arm.urdf"


def _write(path, q, qd, tau):
    dof = q.shape[1]
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow([f"{k}{i}" for k in ("q", "qd", "tau") for i in range(1, dof + 1)])
        out.writerows(np.hstack([q, qd, tau]).tolist())


def _read(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    dof = sum(1 for key in rows[0] if key.startswith("qdd"))
    qdd = np.array([[float(r[f"qdd{k}"]) for k in range(1, dof + 1)] for r in rows])
    return qdd, np.array([r["valid"] == "1" for r in rows]), [r.get("reason") for r in rows]


def _states(robot, count, seed):
    q, qd, qdd = sample_states(robot, count, np.random.default_rng(seed))
    return q, qd, inverse_dynamics(robot, q, qd, qdd)


def test_the_float_backend_is_the_reference_and_the_api_agrees(tmp_path, capsys):
    robot = load_robot("ur5")
    q, qd, tau = _states(robot, 40, 1)
    _write(tmp_path / "s.csv", q, qd, tau)
    assert main(["forward-dynamics", "--robot", "ur5", "--states", str(tmp_path / "s.csv"),
                 "--out", str(tmp_path / "qdd.csv"), "--reasons"]) == 0
    assert "40 states, 40 valid" in capsys.readouterr().err
    qdd, valid, reason = _read(tmp_path / "qdd.csv")
    assert np.array_equal(qdd, articulated_body_accelerations(robot, q, qd, tau))
    assert valid.all() and set(reason) == {"ok"}
    got = load_arm("ur5").forward_dynamics(q, qd, tau)
    assert np.array_equal(got.values, qdd) and got.valid.all() and got.accuracy is None
    # A value that is not a number: that row not valid, with zeros (a file's is refused).
    tau[3, 2] = np.nan
    got = load_arm("ur5").forward_dynamics(q, qd, tau)
    assert got.reason[3] == "not_finite" and not got.values[3].any()
    assert got.valid.sum() == 39


def _bounds(path, dof):
    with open(path) as f:
        return np.array([[float(r[f"bound{k}"]) for k in range(1, dof + 1)]
                         for r in csv.DictReader(f)])


def test_the_models_valid_rows_are_within_their_certified_bounds(tmp_path, capsys):
    robot = load_robot("puma560")
    q, qd, tau = _states(robot, 60, 2)
    tau[5, 0] = 10 * robot.joints[0].torque_limit         # beyond the torque limit
    q[6, 1] = 2.0 ** 40                                    # no binary angle holds it
    tau[7] = 0.0                                           # free fall: beyond the limits
    _write(tmp_path / "s.csv", q, qd, tau)
    assert main(["forward-dynamics", "--robot", "puma560", "--states",
                 str(tmp_path / "s.csv"), "--out", str(tmp_path / "qdd.csv"), "--backend",
                 "model", "--reasons", "--bounds"]) == 0
    err = capsys.readouterr().err
    # The PUMA's model: the narrowest width whose probe is certified, 35 bits or less; there
    # the articulated-body checks would flag rows within the limits, so the inertia matrix
    # solved.
    assert "every valid row's accelerations certified, each within 0.001 of its acceleration " \
           "limit," in err
    width = int(re.search(r"; the inertia matrix solved at (\d+) bits\)", err).group(1))
    assert width <= 35
    qdd, valid, reason = _read(tmp_path / "qdd.csv")
    bounds = _bounds(tmp_path / "qdd.csv", 6)
    assert reason[5:8] == ["outside_limits", "out_of_format", "beyond_acceleration_limits"]
    arm = load_arm("puma560")
    got = arm.forward_dynamics(q, qd, tau, "model")
    assert np.array_equal(got.values, qdd) and got.reason.tolist() == reason
    assert np.array_equal(got.bounds, bounds) and not bounds[~valid].any()
    want = articulated_body_accelerations(robot, q, qd, tau)
    limits = np.array([j.acceleration_limit for j in robot.joints])
    assert np.all(np.abs(qdd - want)[valid] <= bounds[valid])
    assert np.all(bounds[valid] <= 1e-3 * limits)
    assert valid.sum() == 57                    # every row within the limits but the 3 above
    # A promise no row meets: every row within the limits not certified, none valid.
    tight = arm.forward_dynamics(q, qd, tau, "model", width=width, bound_fraction=1e-12)
    assert not tight.valid.any() and set(tight.reason[valid]) == {"not_certified"}


def test_the_float_backends_rows_are_certified_when_asked(tmp_path, capsys):
    robot = load_robot("ur5")
    q, qd, tau = _states(robot, 20, 6)
    _write(tmp_path / "s.csv", q, qd, tau)
    assert main(["forward-dynamics", "--robot", "ur5", "--states", str(tmp_path / "s.csv"),
                 "--out", str(tmp_path / "qdd.csv"), "--bounds"]) == 0
    assert "every valid row's accelerations certified, the largest bound" in \
        capsys.readouterr().err
    qdd, valid, _ = _read(tmp_path / "qdd.csv")
    bounds = _bounds(tmp_path / "qdd.csv", 6)
    got = load_arm("ur5").forward_dynamics(q, qd, tau, certify=True)
    assert valid.all() and np.array_equal(got.bounds, bounds) and (bounds > 0).all()
    # Float64's own error is far below the certificate's floor, the residual's bound.
    assert np.all(np.abs(qdd - articulated_body_accelerations(robot, q, qd, tau)) <= bounds)


def test_a_promise_the_probe_misses_is_refused_in_one_line(tmp_path, capsys):
    robot = load_robot("ur5")
    _write(tmp_path / "s.csv", *_states(robot, 4, 3))
    args = ["forward-dynamics", "--robot", "ur5", "--states", str(tmp_path / "s.csv"),
            "--out", str(tmp_path / "qdd.csv"), "--backend", "model"]
    # At its defaults the UR5 is served by the inertia matrix solved at 28 bits (no
    # articulated-body plan is proven at 28-35 bits).
    assert main(args) == 0
    assert "the inertia matrix solved at 28 bits)" in capsys.readouterr().err
    (tmp_path / "qdd.csv").unlink()
    assert main([*args, "--bound-fraction", "1e-9"]) == 2
    err = capsys.readouterr().err.strip()
    # The file, every width tried, what the probe found and what would serve.
    assert len(err.splitlines()) == 1 and err.startswith(
        f"robohw forward-dynamics: {robot.source}: no forward-dynamics model at {WIDTHS} bits: "
        f"at 56 bits ")
    served = re.search(r"more than 0.5 of the 1e-09 promised; --bound-fraction (\S+) accepts "
                       r"it$", err)
    assert served and not (tmp_path / "qdd.csv").exists()
    assert main([*args, "--bound-fraction", served.group(1)]) == 0


def test_an_arm_the_articulated_body_analysis_cannot_prove_is_served(tmp_path, capsys):
    # The seven-joint example arm: the inertia matrix solved serves it at 35 bits or less. The
    # articulated-body analysis proves nothing for it: joint 1's articulated inertia (the arm
    # folded about the base axis) is smaller than its error bound at every width.
    arm = tmp_path / "arm.urdf"
    arm.write_text(EXAMPLE_ARM.read_text())
    side = tmp_path / "arm.urdf.toml"
    side.write_text(EXAMPLE_ARM.with_name(EXAMPLE_ARM.name + ".toml").read_text())
    robot = load_robot(str(arm), tip="wrist")
    _write(tmp_path / "s.csv", *_states(robot, 4, 3))
    assert main(["forward-dynamics", "--robot", str(arm), "--tip", "wrist", "--states",
                 str(tmp_path / "s.csv"), "--out", str(tmp_path / "qdd.csv"), "--backend",
                 "model"]) == 0
    width = re.search(r"; the inertia matrix solved at (\d+) bits\)$",
                      capsys.readouterr().err.strip())
    assert width and int(width.group(1)) <= 35
    # The articulated-body plan is proven at no width for it.
    assert all(certified_plan(robot, bits).formulation == "the inertia matrix solved"
               for bits in (32, 56))


@pytest.mark.parametrize("extra, message", [
    (["--width", "32"], "--width applies to the hardware backends (model, rtl, compiled)"),
    (["--bound-fraction", "0.1"], "--bound-fraction applies to the hardware backends (model, "
                                  "rtl, compiled)"),
])
def test_options_of_the_model_are_refused_with_the_float_backend(tmp_path, capsys, extra,
                                                                  message):
    robot = load_robot("puma560")
    _write(tmp_path / "s.csv", *_states(robot, 2, 4))
    assert main(["forward-dynamics", "--states", str(tmp_path / "s.csv"), "--out",
                 str(tmp_path / "qdd.csv"), *extra]) == 2
    assert message in capsys.readouterr().err


def test_the_api_checks_its_arguments():
    arm = load_arm("puma560")
    q = np.zeros((2, 6))
    with pytest.raises(ValueError, match="backend must be one of float, model"):
        arm.forward_dynamics(q, q, q, "rtl")
    with pytest.raises(ValueError, match=r"tau must have shape \(rows, 6\)"):
        arm.forward_dynamics(q, q, np.zeros((2, 5)))
    for options, message in (({"width": 32}, "width is the hardware's: it needs"),
                             ({"bound_fraction": 0.01}, "bound_fraction is the hardware's: it "
                                                        "needs"),
                             ({"width": 32, "bound_fraction": 0.01},
                              "width and bound_fraction are the hardware's: they need")):
        with pytest.raises(ValueError, match=f"^{message} backend 'model'$"):
            arm.forward_dynamics(q, q, q, **options)
    # One rule for every computation of the API: the hardware's width with float64 refused,
    # and so are values no cast makes real.
    with pytest.raises(ValueError, match="^width is the hardware's: it needs backend 'model'$"):
        arm.inverse_dynamics(q, q, q, width=20)
    with pytest.raises(ValueError, match="^width is the hardware's: it needs backend 'model'$"):
        arm.inertia(q, width=20)
    with pytest.raises(TypeError, match="^qd must hold real numbers, not complex numbers$"):
        arm.inverse_dynamics(q, q + 0j, q)
    with pytest.raises(TypeError, match="^q must hold real numbers, not object values$"):
        arm.inertia(np.array([[None] * 6]))


@pytest.mark.parametrize("backend", ["rtl", pytest.param("compiled", marks=pytest.mark.heavy)])
def test_the_engine_writes_the_models_file_byte_for_byte(tmp_path, capsys, backend):
    robot = load_robot("puma560")
    q, qd, tau = _states(robot, 6, 3)
    tau[0] *= 4.0                       # accelerations beyond their limits
    qd[1, 0] = 10.0                     # beyond its velocity limit
    _write(tmp_path / "s.csv", q, qd, tau)
    # The PUMA's model at its defaults is the inertia matrix solved; the engine builds it.
    for run in ("model", backend):
        assert main(["forward-dynamics", "--states", str(tmp_path / "s.csv"), "--out",
                     str(tmp_path / f"{run}.csv"), "--backend", run, "--reasons", "--bounds",
                     "--ii", "40"][:-2 if run == "model" else None]) == 0
    assert "the inertia matrix solved at" in capsys.readouterr().err
    assert (tmp_path / "model.csv").read_bytes() == (tmp_path / f"{backend}.csv").read_bytes()
    _, valid, reason = _read(tmp_path / f"{backend}.csv")
    assert reason[:2] == ["beyond_acceleration_limits", "outside_limits"] and valid[2:].all()


def test_the_interval_is_the_engines_alone(tmp_path, capsys):
    robot = load_robot("puma560")
    _write(tmp_path / "s.csv", *_states(robot, 2, 4))
    assert main(["forward-dynamics", "--states", str(tmp_path / "s.csv"), "--out",
                 str(tmp_path / "o.csv"), "--backend", "model", "--ii", "40"]) == 2
    assert "--ii applies to the engine's backends (rtl, compiled)" in capsys.readouterr().err
