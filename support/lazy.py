"""A family package's names loaded on first use (PEP 562), so that a command imports only the
modules it runs: ``robohw dynamics --backend float`` loads the references, not the hardware
stack (Amaranth, the designs), and starts in a fraction of the time."""

import importlib

__all__ = ["load_export"]


def load_export(package, sources, name):
    """The value of ``name`` for ``package``'s module ``__getattr__``: ``sources`` maps each
    exported name to ``"module"`` (the same name there) or ``"module:attribute"``; the value
    is kept in the package once loaded. Raises ``AttributeError`` for a name it does not
    export."""
    if name not in sources:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    module, _, attribute = sources[name].partition(":")
    value = getattr(importlib.import_module(module), attribute or name)
    vars(importlib.import_module(package))[name] = value
    return value
