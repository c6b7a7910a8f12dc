"""The house's layering, read from the source with ``ast``: one import root, every in-house
import running downward, no circle between files. Imports inside functions count too (the
command line's lazy dispatch included)."""

import ast
import pathlib
import re
import runpy
import tomllib

import networkx as nx
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

# The layers, lowest first, as pyproject.toml states them (its [tool.robohw.layers]): the shared
# machinery, then each family in its own layer, then the application.
_STATED = PYPROJECT["tool"]["robohw"]["layers"]
FAMILIES = tuple(_STATED["families"])
LAYERS = tuple(tuple(layer) for layer in _STATED["shared"]) + \
    tuple((family,) for family in FAMILIES) + \
    tuple(tuple(layer) for layer in _STATED["application"])
# Families whose folder holds its whole vertical; the CORDIC family stands among the shared
# layers, since everything computes with it.
VERTICALS = ("robohw.cordic",) + FAMILIES
APPLICATION = tuple(p for layer in _STATED["application"] for p in layer)
ROOT_PACKAGE = "robohw"
# What setup.py installs, from the layers: the packages and the folders of those beside robohw/.
PACKAGES, PACKAGE_DIR = runpy.run_path(str(ROOT / "setup.py"), run_name="layout")[
    "package_layout"]()
# The layer packages' own folders: imports of these names without the root are forbidden.
BARE = {pathlib.PurePath(folder).name for folder in PACKAGE_DIR.values()}


def _package_dirs():
    """``{package: folder}`` exactly as setup.py installs them."""
    def folder(name):
        # A subpackage lies in its parent's folder (robohw.dynamics.inverse: dynamics/inverse).
        parent, _, child = name.rpartition(".")
        if name in PACKAGE_DIR or not parent or parent == ROOT_PACKAGE:
            return ROOT / PACKAGE_DIR.get(name, name.replace(".", "/"))
        return folder(parent) / child
    return {name: folder(name) for name in PACKAGES}


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
    raise AssertionError(f"{module} has no layer: add it to pyproject.toml's "
                         f"[tool.robohw.layers] (and to docs/architecture.md)")


def test_every_installed_module_has_a_layer():
    for module in MODULES:
        _layer(module)
    entries = [p for packages in LAYERS for p in packages]
    assert len(entries) == len(set(entries))
    assert all(any(m == p or m.startswith(p + ".") for m in MODULES) for p in entries)


def test_one_import_root_no_bare_or_relative_imports():
    sources = list(MODULES.values()) + sorted((ROOT / "tests").rglob("*.py"))
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


def test_a_familys_computations_run_downward():
    # pyproject.toml's [tool.robohw.layers.inside]: a family's subpackages import their own
    # modules and lower subpackages' only, never the family's gathering modules above them.
    offences = []
    for family, stated in _STATED.get("inside", {}).items():
        inside = [tuple(layer) for layer in stated]
        assert {p for layer in inside for p in layer} == \
            {m for m in _package_dirs() if m.startswith(family + ".")}, family

        def level(name):
            return next(((k, p) for k, layer in enumerate(inside) for p in layer
                         if name == p or name.startswith(p + ".")), (len(inside), family))
        for module, path in MODULES.items():
            if not module.startswith(family + "."):
                continue
            own, package = level(module)
            if package == family:
                continue
            for line, name in _imports(path):
                if name == family or name.startswith(family + "."):
                    target, target_package = level(name)
                    if target > own or (target == own and target_package != package):
                        offences.append(f"{module}:{line} imports {name}")
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


def _exports(package):
    """The names of ``package``'s ``__all__``, read from its ``__init__.py``."""
    tree = ast.parse(MODULES[package].read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__"
                                                for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def test_the_application_reaches_a_family_through_its_public_names():
    offences = []
    for module, path in MODULES.items():
        if _layer(module)[1] not in APPLICATION:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module:
                targets = [(node.module, [a.name for a in node.names])]
            elif isinstance(node, ast.Import):
                targets = [(a.name, []) for a in node.names]
            else:
                continue
            for target, names in targets:
                family = next((f for f in VERTICALS
                               if target == f or target.startswith(f + ".")), None)
                if family is None:
                    continue
                if target != family:
                    offences.append(f"{module}:{node.lineno} imports {target}: import from "
                                    f"{family} itself")
                offences += [f"{module}:{node.lineno} imports {name}, not in {family}'s "
                             f"__all__" for name in names if name not in _exports(family)]
    assert not offences, "\n".join(offences)


def test_every_exported_name_is_defined():
    import importlib
    for family in VERTICALS:
        package = importlib.import_module(family)
        missing = [name for name in _exports(family) if not hasattr(package, name)]
        assert not missing, (family, missing)


@pytest.mark.parametrize("package", [p for layer in LAYERS for p in layer])
def test_the_architecture_page_names_every_layer(package):
    # docs/architecture.md, "What is where", names each package's folder.
    folder = _package_dirs()[package] if package in _package_dirs() else \
        MODULES[package].with_suffix("")
    relative = folder.relative_to(ROOT).as_posix()
    page = (ROOT / "docs" / "architecture.md").read_text()
    assert f"`{relative}/`" in page or f"`{relative}.py`" in page, relative


def _where_rows():
    """``[(folders, named)]`` of docs/architecture.md's "What is where" table: each row's
    folders (``x/``) and the module files it names (``name.py`` and ``x/name.py``)."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    table = page[page.index("| layer |"):]
    table = table[:table.index("\n\n")]
    rows = []
    for row in table.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        text = " ".join(cells[1:])
        rows.append((re.findall(r"`([\w/]+)/`", cells[1]),
                     set(re.findall(r"`([\w/]+\.py)`", text))))
    return rows


def test_the_architecture_page_names_every_module_with_its_row():
    # Every module of a folder the page's table names stands in that folder's row: a module
    # added without its line in the map fails here.
    for folders, named in _where_rows():
        for folder in folders:
            modules = {p.name for p in (ROOT / folder).glob("*.py") if p.name != "__init__.py"}
            missing = modules - {name.rpartition("/")[2] for name in named}
            assert not missing, (folder, sorted(missing))


def test_every_module_the_architecture_page_names_exists():
    # Both ways: a name on the page is a file in its row's folders (or a path from the root).
    page = (ROOT / "docs" / "architecture.md").read_text()
    for path in re.findall(r"`((?:[\w]+/)+[\w]+\.py)`", page):
        assert (ROOT / path).exists(), path
    for folders, named in _where_rows():
        for name in named:
            places = [ROOT / name] if "/" in name else [ROOT / f / name for f in folders]
            assert any(place.exists() for place in places), (folders, name)


def test_the_root_packages_table_names_every_layer():
    # robohw/__init__.py's docstring table: every shared package in its row, each family by
    # name.
    import robohw
    rows = re.findall(r"^``(robohw[\w.]*)``", robohw.__doc__, re.M)
    shared = [p for layer in _STATED["shared"] for p in layer]
    assert [r for r in rows if r in shared] == shared, rows
    families = robohw.__doc__[robohw.__doc__.index("the families, in order"):]
    for family in FAMILIES:
        assert f"``{family.removeprefix('robohw.')}``" in families, family


def test_the_registrys_table_names_every_design_in_order():
    import robohw.registry
    table = robohw.registry.__doc__
    assert re.findall(r"^``([\w-]+)``", table, re.M) == list(robohw.registry.DESIGNS)


# The house's sizes: a module is one idea (about 600 lines at most), and an elaborate method
# that grows past about 100 lines becomes parts with their own inputs and outputs.
MAX_MODULE_LINES = 600
MAX_ELABORATE_LINES = 100


def test_no_module_is_over_the_size_of_one_idea():
    long = {name: n for name, path in MODULES.items()
            if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES}
    assert not long, long


def test_no_elaborate_is_over_its_size():
    long = {}
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef) and node.name == "elaborate" and \
                    node.end_lineno - node.lineno + 1 > MAX_ELABORATE_LINES:
                long[f"{name}:{node.lineno}"] = node.end_lineno - node.lineno + 1
    assert not long, long


# A flow (the flows, the commands, the URDF loader) reads in named steps: none of its functions
# is over 80 lines (the physics' recursions, elsewhere, may read as the textbook's do).
MAX_FLOW_LINES = 80
FLOWS = ("robohw.flows", "robohw.commands", "robohw.robots.urdf")


def test_no_function_of_a_flow_is_over_its_size():
    long = {}
    for name, path in MODULES.items():
        if not any(name == flow or name.startswith(flow + ".") for flow in FLOWS):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    node.end_lineno - node.lineno + 1 > MAX_FLOW_LINES:
                long[f"{name}:{node.lineno} {node.name}"] = node.end_lineno - node.lineno + 1
    assert not long, long


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
