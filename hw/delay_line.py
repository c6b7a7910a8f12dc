"""Delay lines built inside an elaborating module: shift registers or block-RAM circular
buffers, with a shared enable."""

from amaranth.hdl import Mux, Shape, Signal
from amaranth.lib.memory import Memory

from robohw.hw.checks import check_integer

__all__ = ["tapped_delay_line", "memory_delay", "check_memory_above", "MIN_MEMORY_STAGES"]

# The shortest delay a memory line makes: one row, the read port's register and the register
# behind it.
MIN_MEMORY_STAGES = 3


def check_memory_above(memory_above):
    """Return ``memory_above`` if it is ``None`` or an integer a memory can follow; raise
    ``ValueError`` otherwise."""
    if memory_above is None:
        return None
    return check_integer("memory_above", memory_above, minimum=MIN_MEMORY_STAGES - 1)


def tapped_delay_line(m, value, taps, enable, name, *, reset_less=True, memory_above=None):
    """Delay ``value`` by every count in ``taps`` (stages, ``0`` = the value itself).

    Builds one line of ``max(taps)`` stages that move when ``enable`` is high (the whole
    pipeline stalls together) and returns ``{tap: signal}``. One line serves every tap: a
    tapped delay line (Lee & Chang, Figure 3). Between two taps the line is a shift register,
    or, when ``memory_above`` is given and the two taps are more than ``memory_above`` stages
    apart, a :func:`memory_delay` (block RAM on an FPGA). Data lines are reset-less; pass
    ``reset_less=False`` for valid bits (which never go into memory).
    """
    taps = sorted(set(taps))
    if not taps or taps[0] < 0:
        raise ValueError(f"{name}: taps must be non-negative, not {taps}")
    if check_memory_above(memory_above) is not None and not reset_less:
        raise ValueError(f"{name}: a line that resets cannot be a memory")
    shape = Shape.cast(value.shape())
    out, last, at = {}, value, 0
    for tap in taps:
        stages = tap - at
        if memory_above is not None and stages > memory_above:
            last = memory_delay(m, last, stages, enable, f"{name}_m{at}")
        else:
            for k in range(at + 1, tap + 1):
                register = Signal(shape, name=f"{name}_d{k}", reset_less=reset_less)
                with m.If(enable):
                    m.d.sync += register.eq(last)
                last = register
        out[tap], at = last, tap
    return out


def memory_delay(m, value, stages, enable, name):
    """``value`` delayed by ``stages`` enabled cycles (at least :data:`MIN_MEMORY_STAGES`)
    through a memory: a circular buffer of ``stages - 2`` rows that each enabled cycle writes
    ``value`` into the row it reads, a synchronous read port that returns the row's old
    contents (not transparent), and a register behind it, the last stage. The register keeps
    the memory's read out of the consumer's path: Yosys may build a short memory from LUT RAM,
    whose read is asynchronous, and then registers the address instead of the data. While
    ``enable`` is low nothing moves and the output holds. Returns the last register."""
    check_integer(f"{name}: stages", stages, minimum=MIN_MEMORY_STAGES)
    rows = stages - 2
    shape = Shape.cast(value.shape())
    memory = Memory(shape=shape, depth=rows, init=[])
    m.submodules[name] = memory
    write, read = memory.write_port(), memory.read_port(transparent_for=())
    pointer = Signal(range(rows), name=f"{name}_row")
    with m.If(enable):
        m.d.sync += pointer.eq(Mux(pointer == rows - 1, 0, pointer + 1))
    m.d.comb += [write.addr.eq(pointer), write.data.eq(value), write.en.eq(enable),
                 read.addr.eq(pointer), read.en.eq(enable)]
    last = Signal(shape, name=f"{name}_out", reset_less=True)
    with m.If(enable):
        m.d.sync += last.eq(read.data)
    return last
