"""Word-serial CORDIC processor: one shift-and-add unit iterated over the program."""

from dataclasses import dataclass

from amaranth.hdl import Array, Module, Signal, Value, signed

from robohw.cordic.component import CordicComponent
from robohw.cordic.datapath import (PAYLOAD_FIELDS, finish, micro_step, output_registers,
                                    prerotate)

__all__ = ["WordSerialCordic", "WordSerialUnit", "serial_step", "word_serial_datapath",
           "word_serial_period"]


class WordSerialCordic(CordicComponent):
    """CORDIC processor with one shift-and-add unit used once per step, as in the CORDIC chip
    of Haviland & Tuszynski that Lee & Chang assume: one result per ``S`` clocks.

    ``S = len(config.steps)``: the iterations (with interleaved normalization, Eq. 11, in the
    same step) plus any normalization steps appended after them (Eq. 10). The step's shift
    amounts, angle constant and normalization factor come from a small table indexed by the
    step counter; the shifters are barrel shifters.

    An input is accepted when the unit is idle, or in the cycle its previous operand runs its
    last step and the output register is free. Latency is ``S + 1`` cycles from an input
    transfer to its result being valid; the interval between results is ``S`` cycles under
    continuous input. A result waits in the output register while ``o.ready`` is low, and the
    unit then stalls on its last step: nothing is lost, duplicated or reordered. Only the
    control state resets.

    Parameters and members: see :class:`~robohw.cordic.component.CordicComponent`.
    """
    @property
    def latency(self):
        """Cycles from an input transfer to its result being valid: ``len(steps) + 1``."""
        return len(self._config.steps) + 1

    @property
    def interval(self):
        """Cycles between results under continuous input: ``len(steps)``."""
        return len(self._config.steps)

    def elaborate(self, platform):
        m = Module()
        out_valid = Signal()
        out_free = ~out_valid | self.o.ready
        start = Signal()
        unit = word_serial_datapath(m, self._config, self.i.payload.x, self.i.payload.y,
                                    self.i.payload.z, start, sideband=self.i.payload.tag,
                                    hold=~out_free, fields=PAYLOAD_FIELDS)
        m.d.comb += [
            self.i.ready.eq(~unit.busy | (unit.last & out_free)),
            start.eq(self.i.valid & self.i.ready),
            self.o.valid.eq(out_valid),
            self.o.payload.tag.eq(unit.outputs["sideband"]),
        ]
        m.d.comb += [getattr(self.o.payload, name).eq(unit.outputs[name])
                     for name in PAYLOAD_FIELDS]
        with m.If(self.o.ready):
            m.d.sync += out_valid.eq(0)
        with m.If(unit.last & out_free):
            m.d.sync += out_valid.eq(1)
        return m


def serial_step(config, x, y, z, index):
    """The shift-and-add unit: step ``index`` (a signal) of the program applied to ``x``, ``y``,
    ``z``, its parameters read from a table indexed by ``index``."""
    def table(field):
        return Array(int(field(step)) for step in config.steps)[index]

    return micro_step(
        config, x, y, z,
        shift=table(lambda s: s.shift or 0), angle=table(lambda s: s.angle),
        rotate=table(lambda s: s.shift is not None),
        norm_shift=table(lambda s: s.norm_shift), gamma=table(lambda s: s.gamma != 0),
        norm_subtract=table(lambda s: s.gamma < 0), expanded=table(lambda s: s.expanded))


def _wire(m, value, name):
    value = Value.cast(value)
    wire = Signal(value.shape(), name=name)
    m.d.comb += wire.eq(value)
    return wire


def word_serial_period(config):
    """Cycles :func:`word_serial_datapath` needs between starts: load, then one per step."""
    return len(config.steps) + 1


@dataclass(frozen=True)
class WordSerialUnit:
    """What :func:`word_serial_datapath` built: the registered ``outputs`` by field, ``busy``
    (an operand is in the unit) and ``last`` (it runs its last step in this cycle)."""
    outputs: dict
    busy: Value
    last: Value


def word_serial_datapath(m, config, x, y, z, start, name="cordic", sideband=None, hold=0,
                         fields=None):
    """A word-serial CORDIC inside module ``m``, started by its owner: when ``start`` is high the
    operands (port codes) are loaded; ``len(config.steps)`` cycles later the output fields
    (``x``, ``y``, ``z``, ``domain_error``, ``overflow`` and per-port overflows, or only
    ``fields``) are registered and held until the next result. A ``sideband`` value, if given,
    is taken at the start and comes out with the result as ``"sideband"``. While ``hold`` is
    high the unit waits on its last step (its result register is still in use).

    Start it when the unit is idle (``busy`` low), at most every :func:`word_serial_period`
    cycles, or in the cycle it runs its ``last`` step without ``hold``: the new operand then
    follows the old one directly. Returns a :class:`WordSerialUnit`.
    """
    count = len(config.steps)
    xr = Signal(signed(config.xy_width), name=f"{name}_x", reset_less=True)
    yr = Signal(signed(config.xy_width), name=f"{name}_y", reset_less=True)
    zr = Signal(signed(config.z_width), name=f"{name}_z", reset_less=True)
    index = Signal(range(count), name=f"{name}_index")
    busy = Signal(name=f"{name}_busy")
    last = Signal(name=f"{name}_last")
    # The step's results as wires: the registers and the output logic share one copy (the
    # simulator compiles an expression once per use).
    x1, y1, z1 = (_wire(m, value, f"{name}_next_{port}")
                  for value, port in zip(serial_step(config, xr, yr, zr, index), "xyz"))
    results = dict(finish(config, x1, y1, z1))
    if fields is not None:
        results = {field: results[field] for field in fields}
    held = None
    if sideband is not None:
        held = Signal(sideband.shape(), name=f"{name}_sideband_in", reset_less=True)
        results["sideband"] = held
    outputs = output_registers(config, results, name, sideband)
    m.d.comb += last.eq(busy & (index == count - 1))
    with m.If(busy & ~(last & hold)):
        m.d.sync += [xr.eq(x1), yr.eq(y1), zr.eq(z1), index.eq(index + 1)]
        with m.If(last):
            m.d.sync += [outputs[f].eq(v) for f, v in results.items()]
            m.d.sync += [busy.eq(0), index.eq(0)]
    with m.If(start):
        m.d.sync += [r.eq(v) for r, v in zip((xr, yr, zr), prerotate(config, x, y, z))]
        m.d.sync += [busy.eq(1), index.eq(0)]
        if held is not None:
            m.d.sync += held.eq(sideband)
    return WordSerialUnit(outputs, busy, last)
