"""An option that does not apply to the backend or design chosen is refused, one line naming
it and what it applies to, before any work; none is silently ignored (docs/conventions.md)."""

import pytest

from robohw.commands import main

STATES = ",".join([f"q{j}" for j in range(1, 7)] + [f"qd{j}" for j in range(1, 7)] +
                  [f"qdd{j}" for j in range(1, 7)]) + "\n" + ",".join(["0"] * 18) + "\n"
POSES = "nx,ny,nz,ox,oy,oz,ax,ay,az,px,py,pz\n1,0,0,0,1,0,0,0,1,0.3,0.2,0.1\n"
HARDWARE = "the hardware backends (model, rtl, compiled)"
FOLDED = ("the folded designs (inertia-linear, inertia-logdepth, dynamics-pipelined, "
          "dynamics-engine, forward-dynamics, dynamics-gradient)")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "s.csv").write_text(STATES)
    (tmp_path / "p.csv").write_text(POSES)
    (tmp_path / "q.csv").write_text("q1,q2,q3,q4,q5,q6\n0,0,0,0,0,0\n")
    (tmp_path / "l.csv").write_text("rho1,rho2,rho3,rho4,rho5,rho6\n1,1,1,1,1,1\n")
    return tmp_path


@pytest.mark.parametrize("args, message", [
    (["dynamics", "--states", "s.csv", "--width", "20"], f"--width applies to {HARDWARE}"),
    (["dynamics", "--states", "s.csv", "--design", "array"], f"--design applies to {HARDWARE}"),
    (["dynamics", "--states", "s.csv", "--backend", "model", "--formulation", "scan"],
     "--formulation applies to the float backend: the hardware computes its --design's "
     "Newton-Euler"),
    (["dynamics", "--states", "s.csv", "--backend", "model", "--wrench", "0,0,1,0,0,0"],
     "--wrench applies to the float backend: the hardware takes no tool wrench"),
    (["dynamics", "--states", "s.csv", "--backend", "model", "--network", "shuffle"],
     "--network applies to --design array"),
    (["dynamics", "--states", "s.csv", "--bound-fraction", "0.02"],
     f"--bound-fraction applies to {HARDWARE}: the float backend has no error bound to check"),
    (["inertia", "--q", "q.csv", "--fold", "3"],
     "--fold applies to the rtl and compiled backends: the model computes the same bits at "
     "every fold"),
    (["inertia", "--q", "q.csv", "--backend", "model", "--fold", "3"],
     "--fold applies to the rtl and compiled backends: the model computes the same bits at "
     "every fold"),
    (["inertia", "--q", "q.csv", "--width", "20"], f"--width applies to {HARDWARE}"),
    (["ik", "--poses", "p.csv", "--graph", "paper"],
     f"--graph applies to {HARDWARE}: float is the closed form"),
    (["ik", "--poses", "p.csv", "--width", "20"], f"--width applies to {HARDWARE}"),
    (["platform", "ik", "--poses", "p.csv", "--timing", "word-serial"],
     f"--timing applies to {HARDWARE}"),
    (["platform", "fk", "--lengths", "l.csv", "--backend", "model", "--tolerance", "1e-9"],
     "--tolerance applies to the float backend: the hardware runs its --iterations steps on "
     "every row"),
])
def test_a_file_command_refuses_an_option_its_backend_does_not_take(files, capsys, args,
                                                                     message):
    command = " ".join(args[:2] if args[0] == "platform" else args[:1])
    args = [str(files / a) if a.endswith(".csv") else a for a in args]
    assert main([*args, "--out", str(files / "out.csv")]) == 2
    assert capsys.readouterr().err == f"robohw {command}: {message}\n"
    assert not (files / "out.csv").exists()


@pytest.mark.parametrize("args, message", [
    (["sim", "platform-ik-pipelined", "--fold", "3"],
     f"robohw sim: --fold applies to {FOLDED}, not platform-ik-pipelined"),
    (["export", "--designs", "cordic-pipelined,ik-best-word-serial", "--fold", "2",
      "--out", "{out}"],
     f"robohw export: --fold applies to {FOLDED}, not cordic-pipelined, ik-best-word-serial"),
    (["synth", "--designs", "cordic-pipelined", "--fold", "2", "--out", "{out}"],
     f"robohw synth: --fold applies to {FOLDED}, not cordic-pipelined"),
])
def test_a_fold_for_designs_without_one_is_refused(tmp_path, capsys, args, message):
    assert main([a.format(out=tmp_path / "x") for a in args]) == 2
    assert capsys.readouterr().err == message + "\n"
    assert list(tmp_path.iterdir()) == []


def test_the_options_that_apply_are_taken(files, capsys):
    out = str(files / "out.csv")
    assert main(["dynamics", "--states", str(files / "s.csv"), "--out", out, "--backend",
                 "model", "--width", "20", "--design", "array", "--network", "shuffle",
                 "--quiet"]) == 0
    assert main(["dynamics", "--states", str(files / "s.csv"), "--out", out,
                 "--formulation", "scan", "--wrench", "0,0,1,0,0,0", "--quiet"]) == 0
    assert main(["ik", "--poses", str(files / "p.csv"), "--out", out, "--backend", "model",
                 "--graph", "paper", "--width", "20", "--quiet"]) == 0


@pytest.mark.parametrize("args, message", [
    (["distributed", "--trajectory", "1", "--duration", "2", "--scheme", "zero", "--width",
      "30"], f"robohw distributed: --width applies to {HARDWARE}"),
    (["distributed", "--trajectory", "1", "--duration", "1e5", "--scheme", "zero"],
     "robohw distributed: argument --duration: --duration must be at most 3,600, not '1e5'"),
    (["sim", "cordic-pipelined", "--count", "100000000"],
     "robohw sim: argument --count: --count must be an integer [1, 1000000], not "
     "'100000000'"),
])
def test_options_refused_before_work_with_the_limit_named(capsys, args, message):
    try:
        code = main(args)
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2 and capsys.readouterr().err == message + "\n"
