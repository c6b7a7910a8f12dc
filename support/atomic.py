"""Output files written atomically: into a temporary file beside the target, renamed over it
when complete, so a failed run leaves nothing behind (docs/conventions.md)."""

import contextlib
import json
import os
import pathlib
import tempfile

__all__ = ["atomic_open", "write_json", "write_text"]


@contextlib.contextmanager
def atomic_open(path, newline=None, binary=False):
    """A text file (``binary``: a binary one) to write that appears at ``path`` only when the
    ``with`` block succeeds."""
    path = pathlib.Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with (os.fdopen(handle, "wb") if binary
              else os.fdopen(handle, "w", newline=newline)) as file:
            yield file
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def write_json(path, value):
    """``value`` as indented JSON at ``path``, atomically."""
    with atomic_open(path) as file:
        json.dump(value, file, indent=1)


def write_text(path, text):
    """``text`` at ``path``, atomically."""
    with atomic_open(path) as file:
        file.write(text)
