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
# packages of one layer do not import each other. The root package (``robohw/__init__.py``)
# imports nothing and stands under everything.
LAYERS = (
    ("robohw.hw", "robohw.buffers", "robohw.robots"),   # primitives, the optimizer, robots
    ("robohw.sim", "robohw.cordic"),                    # harnesses; the CORDIC family
    ("robohw.reference",),                              # float64 references
    ("robohw.dataflow",),                               # traced graphs as pipelines
    # IK, inertia, inverse dynamics; the transputer network's Lagrange-Euler; the thesis's
    # distributed Newton-Euler
    ("robohw.ik", "robohw.systolic", "robohw.dynamics", "robohw.transputer",
     "robohw.distributed"),
    ("robohw.legs",),       # parallel manipulators' legs, on the IK's CCM task graphs
    # The application: what it measures and reads, the design registry, the flows, the CLI.
    ("robohw.progress",),
    ("robohw.accuracy", "robohw.io", "robohw.measure", "robohw.ik_graph"),
    ("robohw.designs", "robohw.bench"),
    ("robohw.flows", "robohw.report"),
    ("robohw.sweep",),      # design-space sweeps over the flows' measurements
    ("robohw.cli",),
)
ROOT_PACKAGE = "robohw"
# The layer packages' own folders: imports of these names without the root are forbidden.
BARE = {"hw", "buffers", "robots", "sim", "cordic", "reference", "dataflow", "ik",
        "systolic", "dynamics", "legs", "transputer", "distributed"}


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
    """``(index, entry)`` of the :data:`LAYERS` entry holding ``module`` (the root: -1)."""
    if module == ROOT_PACKAGE:
        return -1, ROOT_PACKAGE
    for index, packages in enumerate(LAYERS):
        for package in packages:
            if module == package or module.startswith(package + "."):
                return index, package
    raise AssertionError(f"{module} has no layer: add it to LAYERS (and to the README)")


def test_every_installed_module_has_a_layer():
    for module in MODULES:
        _layer(module)
    entries = [p for packages in LAYERS for p in packages]
    assert len(entries) == len(set(entries))
    assert all(any(m == p or m.startswith(p + ".") for m in MODULES) for p in entries)


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
            if not name.startswith(ROOT_PACKAGE + ".") and name != ROOT_PACKAGE:
                continue
            target_level, target_package = _layer(name)
            if module == ROOT_PACKAGE:
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
                                    "robohw.systolic.model", "robohw.dynamics.model",
                                    "robohw.reference.cordic", "robohw.reference.kinematics",
                                    "robohw.reference.inertia", "robohw.reference.dynamics"])
def test_each_family_keeps_its_model_and_reference_in_one_place(module):
    # The README's "what is where" table names these files.
    assert module in MODULES
    assert f"`{MODULES[module].relative_to(ROOT)}`" in (ROOT / "README.md").read_text()


def test_the_picture_is_drawn(tmp_path):
    draw(tmp_path / "layers.png")
    assert (tmp_path / "layers.png").read_bytes().startswith(b"\x89PNG")


def draw(path):
    """The import graph between the :data:`LAYERS` entries as a PNG, one row per layer: every
    arrow points down (grey); an arrow up or sideways would be red. ``make layers`` writes it."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arrows = {}
    for module, source in MODULES.items():
        for _, name in _imports(source):
            if name in MODULES and module != ROOT_PACKAGE and name != ROOT_PACKAGE:
                (a_level, a), (b_level, b) = _layer(module), _layer(name)
                if a != b:
                    arrows[a, b] = b_level >= a_level
    where = {name: ((k + 0.5) / len(names), level) for level, names in enumerate(LAYERS)
             for k, name in enumerate(names)}
    figure, axis = plt.subplots(figsize=(12, 9))
    for (a, b), wrong in sorted(arrows.items(), key=lambda item: item[1]):
        axis.annotate("", xy=where[b], xytext=where[a], arrowprops=dict(
            arrowstyle="->", color="red" if wrong else "0.65", lw=1.0, shrinkA=12, shrinkB=12))
    for name, (x, y) in where.items():
        axis.text(x, y, name.removeprefix("robohw."), ha="center", va="center", fontsize=9,
                  bbox=dict(boxstyle="round", fc="white", ec="black"))
    axis.set(xlim=(0, 1), ylim=(-0.5, len(LAYERS) - 0.5), yticks=range(len(LAYERS)),
             yticklabels=[f"layer {k + 1}" for k in range(len(LAYERS))], xticks=[],
             title=f"robohw: imports between packages ({len(arrows)} arrows, "
                   f"{sum(arrows.values())} upward or sideways)")
    figure.tight_layout()
    figure.savefig(path, dpi=100)


if __name__ == "__main__":
    import sys
    draw(sys.argv[1] if len(sys.argv) > 1 else "layers.png")
