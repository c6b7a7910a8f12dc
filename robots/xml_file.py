"""A URDF file read as XML, defused (no entities, no external references), and a xacro file
expanded to URDF by the ``xacro`` package first; every failure one :class:`RobotFileError`
line naming the file."""

import pathlib
import xml.etree.ElementTree

from robohw.robots.description import RobotFileError

__all__ = ["read_xml", "xacro_includes"]


def read_xml(path):
    """The root element of the URDF at ``path`` (xacro expanded), parsed defused."""
    import defusedxml.ElementTree
    from defusedxml import DefusedXmlException
    try:
        if path.suffix.lower() == ".xacro":
            text = _expand_xacro(path)[0]
        else:
            text = path.read_bytes()
    except FileNotFoundError:
        raise RobotFileError(f"{path}: no such file") from None
    except OSError as failure:
        raise RobotFileError(f"{path}: cannot be read: {failure.strerror}") from None
    try:
        root = defusedxml.ElementTree.fromstring(text)
    except DefusedXmlException as failure:
        raise RobotFileError(f"{path}: refused: {_forbidden(failure)} (a URDF needs no "
                             f"entities or external references)") from None
    except xml.etree.ElementTree.ParseError as failure:
        raise RobotFileError(f"{path}: not well-formed XML: {failure}") from None
    if root.tag != "robot":
        raise RobotFileError(f"{path}: not a URDF: its root element is <{root.tag}>, not "
                             f"<robot>")
    return root


def _forbidden(failure):
    """What defusedxml refused, in words (its own text is a Python repr)."""
    from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
    if isinstance(failure, EntitiesForbidden):
        return f"it declares the entity {failure.name!r}"
    if isinstance(failure, ExternalReferenceForbidden):
        return f"it refers to the external file {failure.sysid!r}"
    if isinstance(failure, DTDForbidden):
        return f"it has a document type declaration ({failure.name!r})"
    return "an XML feature defusedxml forbids"


def xacro_includes(path):
    """The files the xacro file ``path`` includes (``[]`` when it is not a xacro file or
    cannot be expanded)."""
    path = pathlib.Path(path)
    if path.suffix.lower() != ".xacro":
        return []
    try:
        return _expand_xacro(path)[1]
    except (OSError, RobotFileError):
        return []


def _expand_xacro(path):
    """``(text, includes)``: the URDF text of a xacro file, by the ``xacro`` package, and the
    files it included."""
    import contextlib
    import io

    import xacro
    messages = io.StringIO()
    try:
        with contextlib.redirect_stdout(messages), contextlib.redirect_stderr(messages):
            xacro.all_includes.clear()      # the package's own record, one file at a time
            document = xacro.process_file(str(path))
            includes = [pathlib.Path(name) for name in dict.fromkeys(xacro.all_includes)]
    except FileNotFoundError:
        raise
    except Exception as failure:     # xacro raises its own and the XML parser's errors
        reason = " ".join(str(failure).split()) or type(failure).__name__
        raise RobotFileError(f"{path}: xacro: {reason}") from None
    return document.toxml().encode(), includes
