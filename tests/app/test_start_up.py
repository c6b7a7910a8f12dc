"""A fast start: a float command imports the references alone, never the hardware stack
(Amaranth), and the families' names load on first use (robohw.support.lazy) without a
submodule's name ever shadowing one of them."""

import importlib
import pathlib
import subprocess
import sys

import pytest

LAZY = ("robohw.cordic", "robohw.dynamics", "robohw.systolic", "robohw.ik")


@pytest.mark.parametrize("package", LAZY)
def test_no_exported_name_is_also_a_submodule(package):
    # The import system sets a package's attribute to a submodule once it loads, which would
    # hide a lazily loaded name of the same spelling.
    module = importlib.import_module(package)
    folder = pathlib.Path(module.__file__).parent
    submodules = {path.stem for path in folder.glob("*.py")}
    assert not submodules & set(module.__all__)
    assert set(module._SOURCES) == set(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is getattr(
            importlib.import_module(module._SOURCES[name].partition(":")[0]),
            module._SOURCES[name].partition(":")[2] or name)


@pytest.mark.parametrize("command", [
    ["dynamics", "--states", "{states}", "--out", "-"],
    ["inertia", "--q", "{q}", "--out", "-"],
    ["ik", "--poses", "{poses}", "--out", "-"],
    ["--help"]])
def test_a_float_command_imports_no_hardware(tmp_path, command):
    files = {"states": ",".join(f"{k}{j}" for k in ("q", "qd", "qdd") for j in range(1, 7)) +
             "\n" + ",".join(["0"] * 18) + "\n",
             "q": "q1,q2,q3,q4,q5,q6\n0,0,0,0,0,0\n",
             "poses": "nx,ny,nz,ox,oy,oz,ax,ay,az,px,py,pz\n1,0,0,0,1,0,0,0,1,0.3,0.2,0.1\n"}
    paths = {}
    for name, text in files.items():
        paths[name] = tmp_path / f"{name}.csv"
        paths[name].write_text(text)
    argv = [a.format(**paths) for a in command]
    script = ("import sys\nfrom robohw.commands import main\ntry:\n"
              f"    code = main({argv!r})\n"
              "except SystemExit as exit:\n    code = exit.code\n"
              "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'amaranth')\n"
              "print('AMARANTH', loaded, file=sys.stderr)\nsys.exit(code)")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "AMARANTH []" in run.stderr
