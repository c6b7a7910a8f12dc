"""Finding the external commands the flows run (Yosys, nextpnr, SymbiYosys, a solver)."""

import os
import pathlib
import shutil
import sys

__all__ = ["search_path", "find_command"]


def search_path():
    """The folder of this interpreter's commands, then the PATH: a virtual environment's
    tools are found without activating it."""
    return f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"


def find_command(name):
    """The path of command ``name`` on :func:`search_path`, or ``None``."""
    return shutil.which(name, path=search_path())
