"""Stream payloads as plain integers: payloads (dicts of ints) from columns of codes, and
payloads packed into one integer for simulators that see a flattened port (exported Verilog
under cocotb) and for the sidecars that document exported ports."""

import numpy as np
from amaranth.hdl import Shape

__all__ = ["payload_rows", "layout_fields", "pack", "unpack", "pack_words", "unpack_words"]


def payload_rows(codes, count=None):
    """Payloads (dicts of Python ints), one a row, from ``{field: column of codes}`` (every
    column at least ``count`` long; default: the first column's length)."""
    if count is None:
        count = len(next(iter(codes.values())))
    return [{name: int(column[k]) for name, column in codes.items()} for k in range(count)]


def layout_fields(layout):
    """``{name: (offset, width, signed)}`` of a flat :class:`amaranth.lib.data.StructLayout`."""
    fields = {}
    for name, field in layout:
        shape = Shape.cast(field.shape)
        fields[name] = (field.offset, shape.width, shape.signed)
    return fields


def pack(fields, values):
    """One integer from field values by name (missing fields are zero)."""
    word = 0
    for name, value in values.items():
        offset, width, _ = fields[name]
        word |= (int(value) & ((1 << width) - 1)) << offset
    return word


def unpack(fields, word):
    """Field values by name from one integer, signed fields sign-extended."""
    values = {}
    for name, (offset, width, is_signed) in fields.items():
        value = (word >> offset) & ((1 << width) - 1)
        if is_signed and width and value >> (width - 1):
            value -= 1 << width
        values[name] = value
    return values


def pack_words(fields, columns, count, words):
    """Payloads as a ``(count, words)`` array of 32-bit words, low word first (a compiled
    simulator's flat port): ``columns`` maps field names to sequences of ``count`` integers
    (missing fields are zero); every field is at most 64 bits wide."""
    out = np.zeros((count, words), dtype=np.uint64)
    for name, column in columns.items():
        offset, width, _ = fields[name]
        if not width:
            continue
        values = np.asarray(column, dtype=np.int64).astype(np.uint64) & _mask(width)
        for word in range(offset // 32, (offset + width - 1) // 32 + 1):
            shift = offset - 32 * word
            part = values << np.uint64(shift) if shift >= 0 else values >> np.uint64(-shift)
            out[:, word] |= part & np.uint64(0xFFFFFFFF)
    return out.astype(np.uint32)


def unpack_words(fields, array):
    """The inverse of :func:`pack_words`: ``{name: int64 array}``, signed fields
    sign-extended."""
    array = np.asarray(array, dtype=np.uint64)
    columns = {}
    for name, (offset, width, is_signed) in fields.items():
        values = np.zeros(len(array), dtype=np.uint64)
        for word in range(offset // 32, (offset + width - 1) // 32 + 1) if width else ():
            shift = offset - 32 * word
            part = array[:, word]
            values |= part >> np.uint64(shift) if shift >= 0 else part << np.uint64(-shift)
        values &= _mask(width)
        if is_signed and width:
            sign = np.uint64(1 << (width - 1))
            values = (values ^ sign) - sign  # modulo 2**64: two's complement in 64 bits
        columns[name] = values.view(np.int64)
    return columns


def _mask(width):
    if width > 64:
        raise ValueError(f"a field of {width} bits does not fit one 64-bit column")
    return np.uint64((1 << width) - 1)
