"""The engine's register files in hardware (:mod:`robohw.engine.component`): the program's
files (:class:`~robohw.engine.program.RegisterFile`), each a memory read by one operand port or
output (LUT RAM on an ECP5: an asynchronous read port) and written through one write port, a
multiplexer of its writers' results that the reader's micro-program steers, at the rotating
addresses of :class:`~robohw.engine.control.EngineControl`."""

from amaranth.hdl import signed, unsigned
from amaranth.lib.memory import Memory

from robohw.hw.register_file import read_port

__all__ = ["RegisterFiles"]


class RegisterFiles:
    """The memories of ``program``'s files in module ``m``, ``signed(width)`` words, made at
    construction; :meth:`read` gives a read port, :meth:`write` a file's write port."""

    def __init__(self, m, program, width):
        self.m, self.program = m, program
        self.memories = {}
        for name, file in program.files.items():
            # At least two words: a one-word memory's address has no bits. LUT RAM: Yosys's
            # own choice put some banks in flip-flops and multiplexers (PUMA, II 128, with a
            # bank of each writer's: 8 of 12, 42,791 LUT4s).
            self.memories[name] = m.submodules[f"{name}_file"] = Memory(
                shape=signed(width), depth=max(file.depth, 2), init=[],
                attrs={"ram_style": "distributed"})

    def read(self, file, at):
        """The word of ``file`` at address ``at`` (a combinational read port)."""
        port = self.memories[file].read_port(domain="comb")
        self.m.d.comb += port.addr.eq(at)
        return port.data

    def write(self, micro, name, values, control):
        """File ``name``'s write port: in each cycle it is written, the value of the writer
        the program names (``values``: ``{writer: signal}``, its writers') at its rotating
        address (``control``'s), steered by ``micro``, its reader's micro-program."""
        m, program = self.m, self.program
        file, writes = program.files[name], program.writes(name)
        enable = micro.fetch({"valid": unsigned(1)}, {c: {"valid": 1} for c in writes},
                             f"{name}_w")["valid"]
        at = micro.fetch({"at": range(max(file.depth, 2))},
                         {c - 1: {"at": program.offset(name, k, c)} for c, k in writes.items()},
                         f"{name}_wm1")["at"]
        data = values[file.writers[0]]
        if len(file.writers) > 1:
            select = micro.fetch(
                {"select": range(len(file.writers))},
                {c: {"select": file.writers.index(program.sender(k, file.home))}
                 for c, k in writes.items()}, f"{name}_w")["select"]
            data = read_port([values[w] for w in file.writers], select, m=m,
                             name=f"{name}_data")
        port = self.memories[name].write_port()
        m.d.comb += [port.en.eq(enable),
                     port.addr.eq(control.address(f"{name}_write", name, at)),
                     port.data.eq(data)]
