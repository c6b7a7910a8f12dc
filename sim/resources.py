"""Resources of an elaborated design, counted from the design itself."""

from amaranth.hdl import Shape
from amaranth.hdl._ir import Fragment
from amaranth.hdl._mem import MemoryInstance

__all__ = ["register_bits", "memory_bits", "read_port_bits"]


def _fragments(component, platform=None):
    """Every fragment elaborated from ``component`` for ``platform``, depth first."""
    stack = [Fragment.get(component, platform)]
    while stack:
        fragment = stack.pop()
        yield fragment
        stack.extend(sub for sub, *_ in fragment.subfragments)


def _memories(component):
    """Every memory of ``component``'s generic netlist."""
    return (fragment for fragment in _fragments(component)
            if isinstance(fragment, MemoryInstance))


def register_bits(component, platform=None):
    """Bits of every signal driven in a clocked domain (flip-flops before synthesis) of
    ``component``, or of a fragment elaborated from one, for ``platform`` (default none: the
    generic netlist; an FPGA's tiles hold some registers of their own).

    Walks the elaborated fragments' statements (Amaranth 0.5 internals: the count is checked
    against the flip-flop cells of the exported RTLIL by the tests)."""
    widths = {}
    for fragment in _fragments(component, platform):
        for domain, statements in fragment.statements.items():
            if domain == "comb":
                continue
            for statement in statements:
                for signal in statement._lhs_signals():
                    widths[id(signal)] = len(signal)
    return sum(widths.values())


def memory_bits(component):
    """Bits of every memory (rows times width; block RAM on an FPGA), and so of the delay
    lines that are memories (:func:`robohw.hw.delay_line.memory_delay`)."""
    return sum(memory._data.depth * Shape.cast(memory._data.shape).width
               for memory in _memories(component))


def read_port_bits(component):
    """Data bits of the memories' synchronous read ports: registers of the memory, not counted
    by :func:`register_bits`; Yosys builds them as flip-flops when it maps a memory to LUT RAM,
    whose reads are asynchronous (a stream's output queue)."""
    return sum(len(port._data) for memory in _memories(component)
               for port in memory._read_ports if port._domain != "comb")
