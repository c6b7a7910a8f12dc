"""A command's input and output paths, declared on its parser and checked before any work: an
output folder that cannot be made, an output that is one of the inputs, two outputs on one
path (docs/conventions.md, "Four rules")."""

import pathlib

__all__ = ["bad_folder", "bad_outputs", "declare_inputs", "declare_file_outputs", "FILE_OUTPUTS",
           "output_files", "input_files"]


def bad_folder(path):
    """The one-line reason an output folder cannot be made, or ``None``."""
    path = pathlib.Path(path)
    if path.exists() and not path.is_dir():
        return f"cannot write into {path}: it is not a directory"
    if not path.resolve().parent.is_dir():
        return f"cannot write into {path}: directory {path.parent} does not exist"
    return None


def bad_outputs(outputs, inputs=()):
    """The one-line reason an output path cannot be written, or ``None``: checked before any
    work (a missing directory, an output that is one of the ``inputs``, two outputs at one
    path). ``-`` is standard output, once at most. ``outputs``: paths, or ``{option: path}``
    (the options named when two share a path); ``inputs``: ``[(name, path)]``
    (:func:`input_files`). An output is an input when both name one file, whichever path
    names it (a symbolic or a hard link: :func:`os.path.samefile`)."""
    from robohw.support.atomic import STANDARD_STREAM, same_file
    if not isinstance(outputs, dict):
        outputs = {f"output {k + 1}": path for k, path in enumerate(outputs)}
    seen = {}
    for option, path in outputs.items():
        if path is None:
            continue
        key = STANDARD_STREAM if str(path) == STANDARD_STREAM else pathlib.Path(path).resolve()
        if key in seen:
            where = "standard output" if key == STANDARD_STREAM else path
            return f"{seen[key]} and {option} name one file ({where}): give each its own"
        seen[key] = option
        if key == STANDARD_STREAM:
            continue
        path = pathlib.Path(path)
        parent = key.parent
        for name, source in inputs:
            if str(source) != STANDARD_STREAM and same_file(path, source):
                return (f"{option} and {name} name one file ({source}): an output never "
                        f"replaces an input; give {option} a path of its own")
        if not parent.is_dir():
            return f"cannot write {path}: directory {path.parent} does not exist"
        if path.is_dir():
            return f"cannot write {path}: it is a directory"
    return None


def declare_inputs(command, *options):
    """Name ``options`` (``--robot``, ``--states``, ...) as ``command``'s input files:
    :func:`input_files` reads them, and no output of the command may be one of them."""
    known = command.get_default("input_options") or ()
    command.set_defaults(input_options=(*known, *options))


def declare_file_outputs(command, *options):
    """Name ``options`` (``--out``) as ``command``'s output files (:data:`FILE_OUTPUTS`
    always are): a folder option is not."""
    known = command.get_default("file_output_options") or ()
    command.set_defaults(file_output_options=(*known, *options))


# The options that name an output file in every command that has them.
FILE_OUTPUTS = ("--json", "--vcd", "--markdown", "--gantt")


def output_files(args):
    """``{option: path}``: the output files the command's arguments name."""
    options = (*FILE_OUTPUTS, *getattr(args, "file_output_options", ()))
    return {option: getattr(args, option[2:].replace("-", "_"), None) for option in options}


def input_files(args):
    """``[(name, path)]``: every file the command's arguments make it read, ``name`` the
    option (and for ``--robot``, the part: its sidecar, a xacro include)."""
    files = []
    for option in getattr(args, "input_options", ()):
        value = getattr(args, option[2:].replace("-", "_"), None)
        if value is None:
            continue
        if option == "--robot":
            from robohw.robots.loading import robot_files
            files += [(option if what == "file" else f"{option}'s {what}", path)
                      for what, path in robot_files(value)]
        elif option == "--platform":
            from robohw.robots.platform import platform_file
            files.append((option, platform_file(value)))
        else:
            files.append((option, value))
    return files
