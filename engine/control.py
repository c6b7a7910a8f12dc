"""The engine's control (:mod:`robohw.engine.component`): what tells each part of the machine
which cycle of the interval it is in.

- **The phase counter**, the cycle of the interval, and its copies one and two cycles ahead;
  :attr:`EngineControl.first` is the interval's first cycle, registered (none in the first
  interval after reset: the micro-programs' ROM words are read two cycles ahead).
- **Micro-programs** (:meth:`EngineControl.micro_program`), one for each unit, loader, CORDIC
  and the outputs, each read from its own copies of the phase counters ahead: one pair for
  every ROM and every valid decode of the machine would be a net of thousands of LUT inputs
  across the chip.
- **Iteration counters**, one for each micro-program and depth of the files it addresses,
  modulo that depth, moved at the end of every interval (registered a cycle ahead, beside its
  files: no machine-wide net), and the **rotating addresses** they give
  (:meth:`EngineControl.address`): an access's address is its program's constant plus the
  iteration counter, modulo the depth (a power of two: the sum's low bits), computed into a
  register in the cycle before.

Counters and valid bits reset; addresses are datapath, reset-less. Files whose accesses share a
schedule have equal address registers, which synthesis merges into one unless they are kept
(``kept``: each marked ``keep``, :mod:`robohw.flows.synth` keeps such flip-flops).
"""

from amaranth.hdl import Mux, Signal

from robohw.hw.micro_program import MicroProgram

__all__ = ["EngineControl", "power_of_two"]


def power_of_two(depth):
    """Whether ``depth`` is a power of two (its rotating addresses wrap by themselves)."""
    return depth & (depth - 1) == 0


class EngineControl:
    """The control of ``program`` (an :class:`~robohw.engine.program.EngineProgram`) in module
    ``m``: the phase counters and :attr:`first` made at construction; micro-programs,
    iteration counters and addresses as the parts ask for them; :meth:`build` makes every
    micro-program's ROM once the parts have declared their fields. With ``kept``, every
    address register is marked ``keep``."""

    def __init__(self, m, program, kept=False):
        self.m, self.program = m, program
        self._attrs = {"keep": 1} if kept else {}
        ii = self.interval = program.interval
        phase = Signal(range(ii), name="phase")
        ahead = Signal(range(ii), name="phase_ahead", init=1 % ii)
        ahead2 = Signal(range(ii), name="phase_ahead2", init=2 % ii)
        m.d.sync += [phase.eq(ahead), ahead.eq(ahead2),
                     ahead2.eq(Mux(ahead2 == ii - 1, 0, ahead2 + 1))]
        # The interval's first cycle, registered; none in the first interval after reset.
        self.first = Signal(name="first_cycle")
        m.d.sync += self.first.eq(phase == ii - 1)      # the next cycle is phase 0
        self._phases, self._counters, self._programs = {}, {}, []

    def micro_program(self, name):
        """``name``'s :class:`~robohw.hw.micro_program.MicroProgram` (a unit, a loader, a CORDIC
        or ``"outputs"``), read from its own copies of the phase counters ahead."""
        m, ii = self.m, self.interval
        own = Signal(range(ii), name=f"{name}_phase_ahead", init=1 % ii)
        own2 = Signal(range(ii), name=f"{name}_phase_ahead2", init=2 % ii)
        m.d.sync += [own.eq(own2), own2.eq(Mux(own2 == ii - 1, 0, own2 + 1))]
        self._phases[name] = own
        micro = MicroProgram(m, own, own2, name, wrap=ii)
        self._programs.append(micro)
        return micro

    def counter(self, owner, depth):
        """``owner``'s iteration counter modulo ``depth``, as it will be in the next cycle: a
        register moved when the next cycle ends an interval (from the owner's own phase
        ahead), one for each micro-program and depth, beside the files it addresses."""
        if (owner, depth) not in self._counters:
            upcoming = Signal(range(depth), name=f"{owner}_iteration{depth}")
            # A power of two wraps by itself (padded_depth).
            following = upcoming + 1 if power_of_two(depth) else \
                Mux(upcoming == depth - 1, 0, upcoming + 1)
            self.m.d.sync += upcoming.eq(Mux(self._phases[owner] == self.interval - 1,
                                             following, upcoming))
            self._counters[(owner, depth)] = upcoming
        return self._counters[(owner, depth)]

    def address(self, name, file, offset):
        """A register named ``name``: the rotating address of ``offset`` (the program's
        constant, given in the cycle before the access) in ``file``, for the access's
        cycle."""
        depth = self.program.files[file].depth
        held = Signal(range(max(depth, 2)), name=f"{name}_address", reset_less=True,
                      attrs=self._attrs)
        if depth > 1:
            reader = self.program.files[file].reader
            total = offset + self.counter("outputs" if reader[0] == "out" else reader[0], depth)
            self.m.d.sync += held.eq(total if power_of_two(depth) else
                                     Mux(total >= depth, total - depth, total))
        return held

    def build(self):
        """Make every micro-program's ROM (after the parts have declared their fields)."""
        for micro in self._programs:
            micro.build(self.interval)
