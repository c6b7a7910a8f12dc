"""The packages robohw installs, found from ``pyproject.toml``'s ``[tool.robohw.layers]``: a layer's
package ``robohw.NAME`` is the folder ``NAME`` beside ``robohw/`` where there is one (the shared
machinery and the families), else ``robohw/NAME`` (the application); each with the subpackages
below it. A new family is its folder and its line in the layers; nothing else here to edit."""

import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent
ROOT_PACKAGE = "robohw"


def package_layout(root=ROOT):
    """``(packages, package_dir)`` as setuptools takes them."""
    layers = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["robohw"]["layers"]
    named = [p for layer in layers["shared"] for p in layer] + list(layers["families"]) + \
        [p for layer in layers["application"] for p in layer]
    package_dir, folders = {}, {ROOT_PACKAGE: root / ROOT_PACKAGE}
    for name in named:
        short = name.removeprefix(ROOT_PACKAGE + ".")
        if (root / short / "__init__.py").exists():
            package_dir[name] = short
            folders[name] = root / short
    for folder in (root / ROOT_PACKAGE).iterdir():        # the application's packages
        if (folder / "__init__.py").exists():
            folders[f"{ROOT_PACKAGE}.{folder.name}"] = folder
    packages = []
    for name, folder in folders.items():
        packages.append(name)
        packages += [f"{name}.{'.'.join(sub.parent.relative_to(folder).parts)}"
                     for sub in sorted(folder.rglob("*/__init__.py"))]
    return sorted(set(packages)), package_dir


if __name__ == "__main__":
    from setuptools import setup
    packages, package_dir = package_layout()
    setup(packages=packages, package_dir=package_dir)
