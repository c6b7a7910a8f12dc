"""The micro-program of a processor that runs a planned program under a program counter:
fields that hold, in each cycle of the program, the value the program gives that cycle.

Shared by the Newton-Euler processor array (:mod:`robohw.dynamics.inverse.array`), the thesis's
link computers (:mod:`robohw.distributed.machine`) and the modulo-scheduled engine
(:mod:`robohw.engine.component`), whose program repeats every initiation interval.
"""

from amaranth.hdl import Cat, Const, Signal, unsigned
from amaranth.lib.memory import Memory

__all__ = ["MicroProgram"]


class MicroProgram:
    """One element's micro-program (or the controller's): fields that hold, in each cycle
    ``c`` of the program, the value the program gives cycle ``c``.

    :meth:`fetch` declares fields. A ``valid`` field (an issue, a write, a send) is a register
    decoded from ``ahead`` (the program counter of the next cycle), 0 in the cycles the
    program does not name; it resets to cycle 0's value, so counters count from reset. Every
    other field is datapath: all of them are one word of a ROM read at ``ahead2`` (two cycles
    on), registered in the memory and once more in the fabric (a block RAM's read is slow),
    so a field needs no logic of its own; a bit the same in every word is a constant instead.
    :meth:`build` makes the ROM once every field is declared.

    With ``wrap`` (a modulo-scheduled program of ``wrap`` words, its counters counting modulo
    ``wrap``), every cycle a field is given names word ``cycle % wrap``; two cycles that give
    one field values in the same word raise ``ValueError`` (the schedule gave one resource
    two uses in one slot).

    A field fetched ``hopped`` is registered once more, from the word of the cycle before (its
    values a word earlier: the program counter runs on, period after period), so its register
    can sit beside its consumer, a hop from the ROM's: the ROM's word register beside a block
    RAM feeding a DSP tile's operand register was the Newton-Euler array's limiting path.
    """

    def __init__(self, m, ahead, ahead2, name, wrap=None):
        self._m, self._ahead, self._ahead2, self._name = m, ahead, ahead2, name
        self._wrap = wrap
        self._fields = []                     # (signal, {cycle: value})

    def _words(self, words, key, name):
        """``{word: value}`` of field ``key`` from ``words`` (``{cycle: {field: value}}``)."""
        if self._wrap is None:
            return {c: w[key] for c, w in words.items()}
        out = {}
        for cycle, word in words.items():
            slot = cycle % self._wrap
            if slot in out:
                raise ValueError(f"{name}_{key}: two values in word {slot} of a "
                                 f"{self._wrap}-word program")
            out[slot] = word[key]
        return out

    def fetch(self, shapes, words, name, copies=None, hopped=False):
        """``{field: signal}`` for ``shapes``; ``words[cycle]`` gives ``{field: value}`` in
        the cycles the program uses the fields. ``copies[field]``, if given, makes that field
        a list of as many equal signals, each from its own bits of the ROM (equal registers
        fed by one net would be merged by synthesis). ``hopped``: every field but ``valid``
        a register a hop from the ROM's word (see the class)."""
        m, fields = self._m, {}
        copies = copies or {}
        for key, shape in shapes.items():
            if key in copies:
                fields[key] = [Signal(shape, name=f"{name}_{key}{k}")
                               for k in range(copies[key])]
                for signal in fields[key]:
                    self._fields.append((signal, self._words(words, key, name), hopped))
                continue
            values = self._words(words, key, name)
            if key == "valid":
                flag = fields[key] = Signal(name=f"{name}_valid", init=int(0 in values))
                m.d.sync += flag.eq(0)
                if values:
                    with m.Switch(self._ahead):
                        with m.Case(*sorted(values)):
                            m.d.sync += flag.eq(1)
            else:
                fields[key] = Signal(shape, name=f"{name}_{key}")
                self._fields.append((fields[key], values, hopped))
        return fields

    def build(self, period):
        """The ROM of the datapath fields, ``period`` words. A bit the same in every word is
        a constant, not a column of the ROM: its registers, equal in every micro-program of
        a design (a 1 in every word of a unit issuing each cycle), would be merged by
        synthesis into one register driving fields across the chip."""
        fields = []                           # (signal, hopped, its words, its varying bits)
        for signal, values, hopped in self._fields:
            mask = (1 << len(signal)) - 1
            column = [0] * period
            for cycle, value in values.items():
                column[(cycle - hopped) % period] = int(value) & mask
            varying = [bit for bit in range(len(signal))
                       if len({word >> bit & 1 for word in column}) > 1]
            fields.append((signal, hopped, column, varying))
        total = sum(len(varying) for *_, varying in fields)
        if total:
            words = [0] * period
            low = 0
            for _, _, column, varying in fields:
                for k, bit in enumerate(varying):
                    for w in range(period):
                        words[w] |= (column[w] >> bit & 1) << (low + k)
                low += len(varying)
            memory = self._m.submodules[f"{self._name}_rom"] = Memory(
                shape=unsigned(total), depth=period, init=words)
            port = memory.read_port()
            word = Signal(total, name=f"{self._name}_word", reset_less=True)
            self._m.d.comb += port.addr.eq(self._ahead2)
            self._m.d.sync += word.eq(port.data)
        low = 0
        for signal, hopped, column, varying in fields:
            fetched = word[low:low + len(varying)] if varying else None
            low += len(varying)
            if varying and hopped:
                # A register a hop from the word, beside the field's consumer.
                held = Signal(len(varying), name=f"{signal.name}_hop", reset_less=True)
                self._m.d.sync += held.eq(fetched)
                fetched = held
            bits = [fetched[varying.index(bit)] if bit in varying else
                    Const(column[0] >> bit & 1, 1) for bit in range(len(signal))]
            self._m.d.comb += signal.eq(Cat(*bits))
