"""Resources of an elaborated design, counted from the design itself."""

from amaranth.hdl import Shape
from amaranth.hdl._ir import Fragment
from amaranth.hdl._mem import MemoryInstance

__all__ = ["register_bits", "memory_bits", "read_port_bits"]


def register_bits(component, platform=None):
    """Bits of every signal driven in a clocked domain (flip-flops before synthesis) of
    ``component``, or of a fragment elaborated from one, for ``platform`` (default none: the
    generic netlist; an FPGA's tiles hold some registers of their own).

    Walks the elaborated fragments' statements (Amaranth 0.5 internals: the count is checked
    against the flip-flop cells of the exported RTLIL by the tests)."""
    widths = {}

    def walk(fragment):
        for domain, statements in fragment.statements.items():
            if domain == "comb":
                continue
            for statement in statements:
                for signal in statement._lhs_signals():
                    widths[id(signal)] = len(signal)
        for sub, *_ in fragment.subfragments:
            walk(sub)

    walk(Fragment.get(component, platform))
    return sum(widths.values())


def memory_bits(component):
    """Bits of every memory (rows times width; block RAM on an FPGA), and so of the delay
    lines that are memories (:func:`robohw.hw.delay_line.memory_delay`)."""
    total = 0

    def walk(fragment):
        nonlocal total
        if isinstance(fragment, MemoryInstance):
            total += fragment._data.depth * Shape.cast(fragment._data.shape).width
        for sub, *_ in fragment.subfragments:
            walk(sub)

    walk(Fragment.get(component, None))
    return total


def read_port_bits(component):
    """Data bits of the memories' synchronous read ports: registers of the memory, not counted
    by :func:`register_bits`; Yosys builds them as flip-flops when it maps a memory to LUT RAM,
    whose reads are asynchronous (a stream's output queue)."""
    total = 0

    def walk(fragment):
        nonlocal total
        if isinstance(fragment, MemoryInstance):
            total += sum(len(port._data) for port in fragment._read_ports
                         if port._domain != "comb")
        for sub, *_ in fragment.subfragments:
            walk(sub)

    walk(Fragment.get(component, None))
    return total
