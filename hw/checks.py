"""Eager argument checks shared by the designs and their plans, with the messages tests match."""

__all__ = ["check_positive_integer"]


def check_positive_integer(name, value):
    """Return ``value`` if it is an integer of at least 1 (not a bool); raise ``ValueError``
    naming ``name`` otherwise."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, not {value!r}")
    return value
