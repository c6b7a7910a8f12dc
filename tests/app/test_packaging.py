"""What ``pip install .`` puts into site-packages: one top-level package, ``robohw``, and the
editable install ``make test`` uses imports the very same modules."""

import importlib.util
import pathlib
import runpy
import shutil
import subprocess
import sys
import zipfile

import pytest

import robohw
from robohw.commands import main

ROOT = pathlib.Path(__file__).resolve().parents[2]
_, PACKAGE_DIR = runpy.run_path(str(ROOT / "setup.py"), run_name="layout")["package_layout"]()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """A wheel built from the tracked files by the project's own build backend."""
    source = tmp_path_factory.mktemp("source")
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    for name in tracked:
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("wheel")
    # setuptools is the backend pyproject.toml names; the test extra installs it.
    subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                    "build_meta.build_wheel(sys.argv[1])", str(out)], cwd=source, check=True,
                   capture_output=True)
    (path,) = out.glob("*.whl")
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_wheel_holds_one_top_level_package(wheel):
    top = {name.split("/")[0] for name in wheel}
    assert top == {"robohw", f"robohw-{robohw.__version__}.dist-info"}
    assert "robohw/robots/puma560.toml" in wheel
    # Every module of every layer's folder, subpackages included (setup.py finds them from
    # the layers), and the measured tables read as data.
    sources = {f"robohw/{path.relative_to(ROOT / folder).as_posix()}" if folder == "robohw"
               else f"robohw/{path.relative_to(ROOT).as_posix()}"
               for folder in ["robohw", *PACKAGE_DIR.values()]
               for path in (ROOT / folder).rglob("*.py")}
    assert sources <= set(wheel), sorted(sources - set(wheel))[:5]
    assert {"robohw/dynamics/inverse/engine_defaults.toml",
            "robohw/systolic/robot_widths.toml"} <= set(wheel)
    # the compiled backend's C++ driver and its adapters
    assert {"robohw/sim/driver.cc", "robohw/sim/verilator_model.h",
            "robohw/sim/cxxrtl_model.h"} <= set(wheel)
    entry_points = wheel[f"robohw-{robohw.__version__}.dist-info/entry_points.txt"].decode()
    assert "robohw = robohw.commands:main" in entry_points


def test_editable_install_imports_the_wheels_modules(wheel):
    modules = [name for name in wheel if name.endswith(".py")]
    assert len(modules) > 40
    for name in modules:
        module = name[:-3].replace("/", ".").removesuffix(".__init__")
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin, module
        assert pathlib.Path(spec.origin).read_bytes() == wheel[name], module


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"robohw {robohw.__version__}"
