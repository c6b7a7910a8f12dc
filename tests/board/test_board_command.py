"""``robohw board build|run|flash``: the options checked before any work, the flash command
built for openFPGALoader, and ``board run`` computing a CSV file's torques on a simulated board
(the engine for a two-link arm behind the UART in Amaranth's simulator, through the port the
command opens) equal to ``robohw dynamics --backend model``'s file."""

import numpy as np
import pytest

from robohw.board.core import BoardCore
from robohw.board.sim_port import SimulatedPort
from robohw.commands import main
from robohw.dynamics import board_design
from robohw.robots import load_robot
from robohw.robots.sampling import sample_states

# The first two joints of the shipped Stanford arm (robots/stanford.toml): a small engine.
TWO_LINKS = """name = "two links"
gravity = [0.0, 0.0, -9.80621]

[[joint]]
type = "revolute"
a = 0.0
alpha = -1.570796326795
d = 0.0
offset = 0.0
limits = [-2.7925, 2.7925]
velocity_limit = 1.0
acceleration_limit = 2.0
torque_limit = 100.0
mass = 9.29
com = [0.0, 0.0175, -0.1105]
inertia = [0.159721715, 0.1415667775, 0.0681549375, 0.0, -0.0179645375, 0.0]

[[joint]]
type = "revolute"
a = 0.0
alpha = 1.570796326795
d = 0.16
offset = 0.0
limits = [-1.5708, 1.5708]
velocity_limit = 1.0
acceleration_limit = 2.0
torque_limit = 100.0
mass = 5.01
com = [0.0, -0.1054, 0.0]
inertia = [0.0523431084, 0.018, 0.0443431084, 0.0, 0.0, 0.0]
"""
WIDTH, INTERVAL, DIVISOR = 18, 8, 4


def test_flash_builds_openfpgaloaders_command(tmp_path, capsys, monkeypatch):
    bitstream = tmp_path / "robohw_board.bit"
    bitstream.write_bytes(b"\xff\x00")
    monkeypatch.setenv("OPENFPGALOADER", "/opt/loader")
    assert main(["board", "flash", "--bit", str(bitstream), "--dry-run"]) == 0
    assert capsys.readouterr().out == f"/opt/loader -b ulx3s {bitstream}\n"
    assert main(["board", "flash", "--bit", str(bitstream), "--flash", "--dry-run"]) == 0
    assert capsys.readouterr().out == f"/opt/loader -b ulx3s -f {bitstream}\n"
    # Run: the loader's exit status is the command's.
    monkeypatch.setenv("OPENFPGALOADER", "false")
    assert main(["board", "flash", "--bit", str(bitstream)]) == 1
    monkeypatch.setenv("OPENFPGALOADER", "true")
    assert main(["board", "flash", "--bit", str(bitstream)]) == 0


def test_flash_without_a_bitstream_is_one_line(tmp_path, capsys):
    assert main(["board", "flash", "--bit", str(tmp_path / "none.bit"), "--dry-run"]) == 2
    assert capsys.readouterr().err == \
        f"robohw board flash: --bit {tmp_path / 'none.bit'}: no such file\n"


@pytest.mark.parametrize("args, message", [
    (["--clock-mhz", "80"], "3000000 baud from a 80 MHz clock is 2962963 baud (-1.23%)"),
    (["--seeds", "1,1"], "--seeds must be distinct, not 1,1"),
    (["--design", "dynamics-array", "--ii", "8"], "interval is the engine's: it needs design "
                                                  "'engine'"),
    (["--robot", "nowhere.toml"], "nowhere.toml"),
])
def test_build_refuses_before_any_work(args, message, tmp_path, capsys):
    out = tmp_path / "build"
    assert main(["board", "build", "--out", str(out), *args]) == 2
    error = capsys.readouterr().err
    assert error.startswith("robohw board build: ") and message in error
    assert error.count("\n") == 1
    assert not any(out.glob("*")) if out.exists() else True


def test_run_names_a_port_it_cannot_open_in_one_line(tmp_path, capsys):
    states = tmp_path / "states.csv"
    states.write_text("q1,q2,q3,q4,q5,q6,qd1,qd2,qd3,qd4,qd5,qd6,qdd1,qdd2,qdd3,qdd4,qdd5,qdd6\n"
                      + ",".join(["0"] * 18) + "\n")
    assert main(["board", "run", "--states", str(states), "--out", str(tmp_path / "t.csv"),
                 "--port", str(tmp_path / "no-such-port"), "--robot", "ur5"]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"robohw board run: {tmp_path / 'no-such-port'}: ")
    assert error.count("\n") == 1 and not (tmp_path / "t.csv").exists()


def test_run_computes_on_the_board_what_the_model_computes(tmp_path, capsys, monkeypatch):
    robot_file = tmp_path / "two.toml"
    robot_file.write_text(TWO_LINKS)
    robot = load_robot(str(robot_file))
    q, qd, qdd = sample_states(robot, 4, np.random.default_rng(5))
    qd[2] *= 40.0                                   # beyond the velocity limits
    states = tmp_path / "states.csv"
    header = ",".join(f"{k}{j}" for k in ("q", "qd", "qdd") for j in (1, 2))
    np.savetxt(states, np.hstack([q, qd, qdd]), delimiter=",", header=header, comments="")
    dut, digest = board_design(robot, width=WIDTH, interval=INTERVAL)
    opened = []

    def open_serial(path, baudrate, timeout):
        opened.append((path, baudrate, timeout))
        return SimulatedPort(BoardCore(dut, DIVISOR, digest), timeout_cycles=600 * DIVISOR)
    monkeypatch.setattr("robohw.board.driver.open_serial", open_serial)
    options = ["--robot", str(robot_file), "--width", str(WIDTH), "--ii", str(INTERVAL)]
    assert main(["board", "run", "--states", str(states), "--out", str(tmp_path / "b.csv"),
                 "--port", "/dev/ttyUSB7", "--reasons", "--quiet", *options]) == 0
    assert opened == [("/dev/ttyUSB7", 3_000_000, 1.0)]
    assert main(["dynamics", "--states", str(states), "--out", str(tmp_path / "m.csv"),
                 "--backend", "model", "--design", "engine", "--reasons", "--quiet",
                 *options]) == 0
    board, model = ((tmp_path / name).read_text() for name in ("b.csv", "m.csv"))
    assert board == model
    assert ",0,outside_limits" in board.splitlines()[3]
    assert "4 states, 3 valid:" in capsys.readouterr().err


def test_forward_dynamics_on_the_board_is_the_models_file(tmp_path, capsys, monkeypatch):
    # --design forward-dynamics: states and torques in, accelerations out, each row certified
    # on the host as robohw forward-dynamics --backend model certifies it.
    from robohw.dynamics.forward.board import forward_board_design
    from robohw.dynamics.forward.files import certified_plan
    from robohw.dynamics.inverse.reference import inverse_dynamics
    robot_file = tmp_path / "two.toml"
    robot_file.write_text(TWO_LINKS)
    robot = load_robot(str(robot_file))
    q, qd, qdd = sample_states(robot, 4, np.random.default_rng(6))
    tau = inverse_dynamics(robot, q, qd, 0.9 * qdd)
    tau[1] *= 50.0                                  # accelerations beyond their limits
    qd[2] *= 40.0                                   # beyond the velocity limits
    states = tmp_path / "states.csv"
    header = ",".join(f"{k}{j}" for k in ("q", "qd", "tau") for j in (1, 2))
    np.savetxt(states, np.hstack([q, qd, tau]), delimiter=",", header=header, comments="")
    width, interval = 28, 8
    dut, digest = forward_board_design(certified_plan(robot, width), interval)
    monkeypatch.setattr("robohw.board.driver.open_serial", lambda path, baudrate, timeout:
                        SimulatedPort(BoardCore(dut, DIVISOR, digest),
                                      timeout_cycles=600 * DIVISOR))
    options = ["--robot", str(robot_file), "--width", str(width), "--reasons", "--bounds",
               "--quiet"]
    on_board = ["board", "run", "--design", "forward-dynamics", "--states", str(states),
                "--port", "/dev/ttyUSB7", "--ii", str(interval), *options]
    assert main([*on_board, "--out", str(tmp_path / "b.csv")]) == 0
    assert main(["forward-dynamics", "--states", str(states), "--out", str(tmp_path / "m.csv"),
                 "--backend", "model", *options]) == 0
    board, model = ((tmp_path / name).read_text() for name in ("b.csv", "m.csv"))
    assert board == model
    lines = board.splitlines()
    assert lines[0].startswith("qdd1,qdd2,bound1,bound2,valid,reason")
    assert lines[2].endswith(",0,beyond_acceleration_limits")
    assert lines[3].endswith(",0,outside_limits") and lines[1].endswith(",1,ok")
    # A board holding another design is named, not read.
    other, other_digest = forward_board_design(certified_plan(robot, width), interval + 1)
    assert other_digest != digest
    monkeypatch.setattr("robohw.board.driver.open_serial", lambda path, baudrate, timeout:
                        SimulatedPort(BoardCore(other, DIVISOR, other_digest),
                                      timeout_cycles=600 * DIVISOR))
    assert main([*on_board, "--out", str(tmp_path / "c.csv")]) == 2
    assert not (tmp_path / "c.csv").exists()
    assert f"the board holds design {other_digest}, not {digest}" in capsys.readouterr().err
