"""Stream payloads as plain integers, for simulators that see a flattened port
(exported Verilog under cocotb) and for the sidecars that document exported ports."""

from amaranth.hdl import Shape

__all__ = ["layout_fields", "pack", "unpack"]


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
