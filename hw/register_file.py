"""Register files of processors that run a planned program: which value holds which register
(:func:`left_edge`), a read (:func:`read_port`) and the write enables (:func:`one_hot`).

Shared by the Newton-Euler processor array (:mod:`robohw.dynamics.array`) and Gosselin's
machine (:mod:`robohw.legs.leg_machine`): both know every value's life at elaboration.
"""

from amaranth.hdl import Cat, Const, Mux, Signal

__all__ = ["left_edge", "read_port", "read_copies", "one_hot", "READ_SLICE_BITS"]

# Data bits each copy of a read port's address selects: one address register driving all 18
# bits' trees (576 LUT inputs from its lowest bit) routed in 21.8 ns, the array's first limit.
READ_SLICE_BITS = 3


def left_edge(lives):
    """``{key: register}`` for ``lives`` (``{key: (first, last)}``: the value is readable from
    cycle ``first`` and read last in cycle ``last``; a write lands at the end of the cycle
    before ``first``, after that cycle's reads). In order of ``first`` (ties in the order of
    ``lives``), each value takes the lowest register whose last value's ``last`` is before its
    ``first``: as many registers as values are alive at once (interval graphs colour
    optimally by their left edges). A value never read holds its register in its ``first``
    cycle."""
    order = sorted(enumerate(lives.items()), key=lambda item: (item[1][1][0], item[0]))
    registers, free_from = {}, []
    for _, (key, (first, last)) in order:
        index = next((r for r, free in enumerate(free_from) if free <= first), len(free_from))
        if index == len(free_from):
            free_from.append(0)
        free_from[index] = max(first, last) + 1
        registers[key] = index
    return registers


def read_copies(width):
    """Copies of a read port's address for ``width``-bit registers (:data:`READ_SLICE_BITS`
    bits each)."""
    return -(-width // READ_SLICE_BITS)


def read_port(registers, addresses):
    """``registers[address]``, signed, the registers' bits split into as many slices as there
    are ``addresses`` (equal copies of the address, so that no address register drives every
    bit's tree), each slice a tree of 2 x 1 multiplexers on its copy's bits, most significant
    at the root: log2 levels that the ECP5 packs into its wide multiplexers (LUT4, PFUMX,
    L6MUX21). An index into an ``Array`` became a parallel case with one comparator per
    register, three times the LUTs. No registers read as 0 (an element without work)."""
    if not registers:
        return Const(0)
    for address in addresses:
        if len(registers) > 1 << len(address):
            raise ValueError(f"a {len(address)}-bit address reaches {1 << len(address)} of "
                             f"{len(registers)} registers")
    width = max(len(r) for r in registers)
    values = [Cat(r, r.as_signed()[-1].replicate(width - len(r))) for r in registers]

    def tree(values, address, bit):
        if len(values) == 1:
            return values[0]
        half = 1 << bit
        if len(values) <= half:
            return tree(values, address, bit - 1)
        return Mux(address[bit], tree(values[half:], address, bit - 1),
                   tree(values[:half], address, bit - 1))
    bounds = [round(k * width / len(addresses)) for k in range(len(addresses) + 1)]
    return Cat(*(tree([v[low:high] for v in values], address, len(address) - 1)
                 for address, low, high in zip(addresses, bounds, bounds[1:]))).as_signed()


def one_hot(m, valid, target, size, name):
    """A register of ``size`` bits, in the next cycle bit ``target`` high if ``valid`` (a
    register file's write enables, decoded a cycle before the write)."""
    enables = Signal(max(size, 1), name=name)
    m.d.sync += enables.eq(Mux(valid, Const(1, len(enables)) << target, 0))
    return enables
