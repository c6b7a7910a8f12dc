"""The house's layering, read from the source with ``ast``: one import root, every in-house
import running downward, no circle between files. Imports inside functions count too (the
command line's lazy dispatch included)."""

import ast
import pathlib
import tomllib

import networkx as nx
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Lowest first. A module may import from its own package and from lower layers only; the
# packages of one layer do not import each other. Everything of robohw not named here is the
# application, the top layer.
LAYERS = (
    ("robohw.hw", "robohw.buffers", "robohw.robots"),   # primitives, the optimizer, robots
    ("robohw.sim", "robohw.cordic"),                    # harnesses; the CORDIC family
    ("robohw.reference",),                              # float64 references
    ("robohw.ik", "robohw.systolic"),                   # the IK and inertia families
)
APPLICATION = "robohw"
# The layer packages' own folders: imports of these names without the root are forbidden.
BARE = {"hw", "buffers", "robots", "sim", "cordic", "reference", "ik", "systolic"}


def _package_dirs():
    """``{package: folder}`` exactly as pyproject.toml installs them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = config.get("package-dir", {})
    return {name: ROOT / mapped.get(name, name.replace(".", "/"))
            for name in config["packages"]}


def _modules():
    """``{module name: path}`` of every installed module."""
    modules = {}
    for package, folder in _package_dirs().items():
        for path in folder.glob("*.py"):
            name = package if path.name == "__init__.py" else f"{package}.{path.stem}"
            modules[name] = path
    return modules


MODULES = _modules()


def _imports(path):
    """``[(line, imported module)]`` of every import statement in the file, at any depth;
    ``from package import name`` counts as the submodule when ``name`` is one."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                found.append((node.lineno, "." * node.level + (node.module or "")))
                continue
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.append((node.lineno, sub if sub in MODULES else node.module))
    return found


def _layer(module):
    for index, packages in enumerate(LAYERS):
        for package in packages:
            if module == package or module.startswith(package + "."):
                return index, package
    return len(LAYERS), APPLICATION


def test_every_installed_package_has_a_layer_or_is_the_application():
    layered = {p for packages in LAYERS for p in packages}
    for package in _package_dirs():
        if package not in layered:
            assert package == APPLICATION or package.startswith(APPLICATION + "."), package
    assert layered <= set(_package_dirs())


def test_one_import_root_no_bare_or_relative_imports():
    sources = list(MODULES.values()) + sorted((ROOT / "tests").glob("*.py"))
    offences = [f"{path.relative_to(ROOT)}:{line}: {name}" for path in sources
                for line, name in _imports(path)
                if name.startswith(".") or name.split(".")[0] in BARE]
    assert not offences, "\n".join(offences)


def test_every_import_runs_downward():
    offences = []
    for module, path in MODULES.items():
        level, package = _layer(module)
        for line, name in _imports(path):
            if not name.startswith(APPLICATION + ".") and name != APPLICATION:
                continue
            target_level, target_package = _layer(name)
            if module == APPLICATION:
                offences.append(f"{module}:{line} imports {name}: the root imports nothing")
            elif target_level > level or (target_level == level and target_package != package):
                offences.append(f"{module}:{line} (layer {level}) imports {name} "
                                f"(layer {target_level})")
    assert not offences, "\n".join(offences)


def test_no_circle_between_files():
    graph = nx.DiGraph()
    for module, path in MODULES.items():
        graph.add_node(module)
        for _, name in _imports(path):
            if name in MODULES and name != module:
                graph.add_edge(module, name)
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, cycles


@pytest.mark.parametrize("module", ["robohw.cordic.model", "robohw.ik.model",
                                    "robohw.systolic.model", "robohw.reference.cordic",
                                    "robohw.reference.kinematics", "robohw.reference.inertia"])
def test_each_family_keeps_its_model_and_reference_in_one_place(module):
    # The README's "what is where" table names these files.
    assert module in MODULES
    assert f"`{MODULES[module].relative_to(ROOT)}`" in (ROOT / "README.md").read_text()
