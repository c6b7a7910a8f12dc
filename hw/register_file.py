"""Register files of processors that run a planned program: which value holds which register
(:func:`left_edge`), a read among registers (:func:`read_port`), and a file of banks in LUT
RAM, one per writer (:class:`BankedFile`).

Shared by the Newton-Euler processor array (:mod:`robohw.dynamics.inverse.array`), Gosselin's
machine (:mod:`robohw.legs.leg_machine`) and the thesis's link computers
(:mod:`robohw.distributed.machine`): all know every value's life at elaboration.
"""

import functools
import operator

from amaranth.hdl import Cat, Const, Mux, Signal
from amaranth.lib.memory import Memory

__all__ = ["left_edge", "read_port", "BankedFile", "TREE_LEVELS_PER_SIGNAL"]


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


# With a module, a read's tree is a signal of its own every this many levels (16, 256, ...
# registers below it): Amaranth recomputes a multiplexer's shape from every input below it,
# each time its simulator asks, so compiling one deep tree took time quadratic in its depth.
TREE_LEVELS_PER_SIGNAL = 4


def read_port(registers, address, *, m=None, name="read"):
    """``registers[address]``, signed: a tree of 2 x 1 multiplexers on the address bits, most
    significant at the root: log2 levels that the ECP5 packs into its wide multiplexers (LUT4,
    PFUMX, L6MUX21). An index into an ``Array`` became a parallel case with one comparator per
    register, three times the LUTs. No registers read as 0 (an element without work).

    With a module ``m``, every :data:`TREE_LEVELS_PER_SIGNAL`-th level of the tree is a
    signal (``{name}_l{bit}_{first register}``) driven in ``m``'s combinational domain: the
    same netlist, but Amaranth's simulator compiles it in a fraction of the time (the thesis's
    link computers, reads among up to a few hundred values: 77 s of CPU to 5 s; the whole
    simulation of three states 91 s to 13 s)."""
    if not registers:
        return Const(0)
    if len(registers) > 1 << len(address):
        raise ValueError(f"a {len(address)}-bit address reaches {1 << len(address)} of "
                         f"{len(registers)} registers")
    width = max(len(r) for r in registers)
    values = [Cat(r, r.as_signed()[-1].replicate(width - len(r))) for r in registers]

    def tree(first, count, bit):
        if count == 1:
            return values[first]
        half = 1 << bit
        if count <= half:
            return tree(first, count, bit - 1)
        node = Mux(address[bit], tree(first + half, count - half, bit - 1),
                   tree(first, half, bit - 1))
        if m is None or bit % TREE_LEVELS_PER_SIGNAL != TREE_LEVELS_PER_SIGNAL - 1:
            return node
        wire = Signal(width, name=f"{name}_l{bit}_{first}")
        m.d.comb += wire.eq(node)
        return wire
    return tree(0, len(values), len(address) - 1).as_signed()


class BankedFile:
    """A processor's register file as banks by writer: a memory each, written only by its
    bank's writer (a unit, the network) and read asynchronously by every port that reads it
    (LUT RAM on the ECP5: 16 words a cell behind the cell's own address decoder, one copy
    per read port, where a file of registers needed a tree of multiplexers per read and a
    multiplexer per writer at every register). Registers given as ``fixed`` signals (a state
    held for the program) are read through a multiplexer tree (:func:`read_port`).

    Parameters
    ----------
    m : Module
    name : str
        Prefix of the memories' names.
    banks : dict
        ``{register: bank}`` for every register of the file. A bank's registers must be one
        run of consecutive numbers: register ``r`` is word ``r`` minus the run's first.
    shape
        The registers' shape.
    fixed : dict, optional
        ``{register: signal}``: the registers of the banks that are signals, not memories.
    """

    def __init__(self, m, name, banks, shape, fixed=None):
        self.bank = dict(banks)
        self._fixed = dict(fixed or {})
        unknown = sorted(set(self._fixed) - set(self.bank))
        if unknown:
            raise ValueError(f"fixed registers {unknown} are in no bank")
        self._first, depth = {}, {}
        for register, bank in sorted(self.bank.items()):
            first = self._first.setdefault(bank, register)
            if register - first != depth.get(bank, 0):
                raise ValueError(f"bank {bank!r}: its registers are not one run: {register} "
                                 f"follows {first + depth[bank] - 1}")
            depth[bank] = register - first + 1
        fixed_banks = {self.bank[r] for r in self._fixed}
        if any(self.bank[r] in fixed_banks for r in self.bank if r not in self._fixed):
            raise ValueError("a bank is either fixed signals or a memory, not both")
        self._signals = {bank: [self._fixed[r] for r in sorted(self.bank)
                                if self.bank[r] == bank] for bank in fixed_banks}
        self.memories = {}
        for bank in depth:
            if bank not in fixed_banks:
                # At least two words: a one-word memory's address has no bits, which the
                # exported Verilog declares as [-1:0].
                self.memories[bank] = Memory(shape=shape, depth=max(depth[bank], 2), init=[])
                m.submodules[f"{name}_{bank}_bank"] = self.memories[bank]

    def depth(self, bank):
        """The words of ``bank``."""
        return (len(self._signals[bank]) if bank in self._signals else
                self.memories[bank].depth)

    def address(self, register):
        """Register ``register``'s word in its bank."""
        return register - self._first[self.bank[register]]

    def write(self, m, bank, enable, address, data):
        """``data`` written into word ``address`` of ``bank`` at the end of a cycle with
        ``enable`` high (nothing: a bank without registers)."""
        if bank in self._signals:
            raise ValueError(f"bank {bank!r} is fixed signals: it is not written")
        if bank in self.memories:
            port = self.memories[bank].write_port()
            m.d.comb += [port.en.eq(enable), port.addr.eq(address), port.data.eq(data)]

    def banks_of(self, registers):
        """The banks holding ``registers``, in the order of their first registers."""
        held = {self.bank[r] for r in registers}
        return sorted(held, key=self._first.get)

    def fields(self, prefix, registers, register):
        """A program's fields for a read of ``register`` (``None``: none, the read gives 0) by
        a port that reads ``registers``: for each of their banks, whether it holds the
        register (``{prefix}_in_{bank}``) and the register's word in it
        (``{prefix}_at_{bank}``)."""
        fields = {}
        for bank in self.banks_of(registers):
            chosen = register is not None and self.bank[register] == bank
            fields[f"{prefix}_in_{bank}"] = int(chosen)
            fields[f"{prefix}_at_{bank}"] = self.address(register) if chosen else 0
        return fields

    def widths(self, prefix, registers):
        """The widths of :meth:`fields`."""
        widths = {}
        for bank in self.banks_of(registers):
            widths[f"{prefix}_in_{bank}"] = 1
            widths[f"{prefix}_at_{bank}"] = max(self.depth(bank) - 1, 1).bit_length()
        return widths

    def read(self, m, held, prefix, registers):
        """The register that the signals ``held[field]`` of :meth:`fields` name (registers:
        nothing is shared across the banks): the OR of the banks' reads, each kept only by
        the bank that holds it (0 if no register: a port that reads nothing)."""
        words = []
        for bank in self.banks_of(registers):
            at = held[f"{prefix}_at_{bank}"]
            if bank in self._signals:
                word = read_port(self._signals[bank], at, m=m, name=f"{prefix}_{bank}")
            else:
                port = self.memories[bank].read_port(domain="comb")
                m.d.comb += port.addr.eq(at)
                word = port.data
            words.append(Mux(held[f"{prefix}_in_{bank}"], word, 0))
        return functools.reduce(operator.or_, words) if words else Const(0)

    def peek(self, m, register):
        """Register ``register``, read continuously."""
        if register in self._fixed:
            return self._fixed[register]
        port = self.memories[self.bank[register]].read_port(domain="comb")
        m.d.comb += port.addr.eq(self.address(register))
        return port.data
