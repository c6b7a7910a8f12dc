"""Output files as a user expects them written (docs/conventions.md).

- A regular file (new or existing) is written atomically: into a temporary file beside it,
  renamed over it when complete, so a failed run leaves the old file, or nothing, behind. A
  new file has the mode the umask gives (``0666 & ~umask``); an existing one keeps its mode.
- A symbolic link stays a link: the file it names is written, atomically, beside that file.
- A FIFO, a character device (``/dev/null``, a terminal) or a link into ``/proc``
  (``/dev/stdout``) is written directly; so is ``-``, standard output.
- A place that cannot be written is :class:`OutputError`: one line naming the path as the
  user gave it. So is one of the inputs the running command reads (:func:`inputs_kept`),
  whichever path names it: no output ever replaces an input, even one written into an output
  folder.
"""

import contextlib
import json
import os
import pathlib
import secrets
import stat
import sys

__all__ = ["OutputError", "STANDARD_STREAM", "atomic_open", "write_json", "write_text",
           "same_file", "inputs_kept"]

# The path that names standard output (an output) or standard input (an input).
STANDARD_STREAM = "-"


class OutputError(OSError):
    """An output that cannot be written: ``cannot write PATH: reason``, ``PATH`` as given."""
    def __init__(self, path, error):
        reason = error.strerror or str(error) if isinstance(error, OSError) else str(error)
        super().__init__(f"cannot write {path}: {reason[:1].lower()}{reason[1:]}")
        self.path = str(path)


# The files the running command reads ({(device, inode): name}, inputs_kept): none is ever
# written.
_KEPT = {}


def same_file(one, other):
    """Whether the paths ``one`` and ``other`` name one existing file, whichever way (a
    symbolic link, a hard link: :func:`os.path.samefile`)."""
    try:
        return os.path.samefile(one, other)
    except (OSError, ValueError):
        return False


def _identity(path):
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino


@contextlib.contextmanager
def inputs_kept(inputs):
    """Within the block, :func:`atomic_open` refuses (:class:`OutputError`) to write any of
    ``inputs`` (``[(name, path)]``: the option that names each input), by whichever path."""
    kept = {identity: name for name, path in inputs if str(path) != STANDARD_STREAM
            for identity in [_identity(path)] if identity is not None}
    before = dict(_KEPT)
    _KEPT.update(kept)
    try:
        yield
    finally:
        _KEPT.clear()
        _KEPT.update(before)


def _written_directly(path):
    """Whether ``path`` is written in place: a FIFO, a device, a link into ``/proc``."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    except OSError as error:
        raise OutputError(path, error) from None
    return not stat.S_ISREG(mode) or os.path.realpath(path).startswith("/proc/")


def _temporary_beside(target, original):
    """A new file beside ``target`` (mode ``0666`` less the umask, as any new file), open for
    writing: ``(descriptor, name)``."""
    while True:
        name = target.parent / f".{target.name}.{secrets.token_hex(4)}"
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), name
        except FileExistsError:
            continue
        except OSError as error:
            raise OutputError(original, error) from None


@contextlib.contextmanager
def atomic_open(path, newline=None, binary=False):
    """A text file (``binary``: a binary one) to write at ``path``, as the module docstring
    says: a regular file appears only when the ``with`` block succeeds; ``-`` is standard
    output. Raises :class:`OutputError` for a place that cannot be written."""
    if str(path) == STANDARD_STREAM:
        stream = sys.stdout.buffer if binary else sys.stdout
        yield stream
        stream.flush()
        return
    kept = _KEPT.get(_identity(path)) if _KEPT else None
    if kept is not None:
        raise OutputError(path, f"it is an input of this command ({kept})")
    if _written_directly(path):
        try:
            file = open(path, "wb") if binary else open(path, "w", newline=newline)
        except OSError as error:
            raise OutputError(path, error) from None
        with file:
            yield file
        return
    # A link is kept: the file it names is the one replaced.
    target = pathlib.Path(os.path.realpath(path))
    try:
        kept_mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        kept_mode = None
    handle, temporary = _temporary_beside(target, path)
    try:
        with (os.fdopen(handle, "wb") if binary
              else os.fdopen(handle, "w", newline=newline)) as file:
            yield file
        if kept_mode is not None:
            os.chmod(temporary, kept_mode)
        os.replace(temporary, target)
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
