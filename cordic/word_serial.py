"""Word-serial CORDIC processor: one shift-and-add unit iterated over the program."""

from dataclasses import dataclass

from amaranth.hdl import Array, Module, Signal, Value, signed

from robohw.cordic.component import CordicComponent
from robohw.cordic.datapath import (PAYLOAD_FIELDS, finish_stages, micro_step,
                                    output_registers, prerotate, register_steps, register_values,
                                    state_shapes)

__all__ = ["WordSerialCordic", "WordSerialUnit", "serial_step", "word_serial_datapath",
           "word_serial_period"]


class WordSerialCordic(CordicComponent):
    """CORDIC processor with one shift-and-add unit used once per step, as in the CORDIC chip
    of Haviland & Tuszynski that Lee & Chang assume: one result per ``S`` clocks.

    The unit runs the ``R`` register steps (:func:`~robohw.cordic.datapath.register_steps`: the
    iterations, and each normalization factor, interleaved (Eq. 11) or appended (Eq. 10), in a
    cycle of its own), one a cycle: one barrel shifter and one adder per value in the loop. The
    step's shift amounts, angle constant and normalization factor come from a small table
    indexed by the step counter. The result then moves through the ``F`` finish stages
    (:func:`~robohw.cordic.datapath.finish_stages`) to the output registers.

    An input is accepted when the unit is idle, or in the cycle its previous operand runs its
    last step and the result stages can move. Latency is ``1 + R + F`` cycles from an input
    transfer to its result being valid; the interval between results is ``R`` cycles under
    continuous input. A result waits in the output registers while ``o.ready`` is low, the
    finish stages hold and the unit stalls on its last step: nothing is lost, duplicated or
    reordered. Only the control state and valid bits reset.

    Parameters and members: see :class:`~robohw.cordic.component.CordicComponent`.
    """
    @property
    def latency(self):
        """Cycles from an input transfer to its result being valid: ``1 + R + F``
        (:func:`word_serial_period`)."""
        return word_serial_period(self._config)

    @property
    def interval(self):
        """Cycles between results under continuous input: ``R``, one per register step."""
        return len(register_steps(self._config))

    def elaborate(self, platform):
        m = Module()
        hold = Signal()
        start = Signal()
        unit = word_serial_datapath(m, self._config, self.i.payload.x, self.i.payload.y,
                                    self.i.payload.z, start, sideband=self.i.payload.tag,
                                    hold=hold, fields=PAYLOAD_FIELDS)
        m.d.comb += [
            hold.eq(unit.valid & ~self.o.ready),
            self.i.ready.eq(~unit.busy | (unit.last & ~hold)),
            start.eq(self.i.valid & self.i.ready),
            self.o.valid.eq(unit.valid),
            self.o.payload.tag.eq(unit.outputs["sideband"]),
        ]
        m.d.comb += [getattr(self.o.payload, name).eq(unit.outputs[name])
                     for name in PAYLOAD_FIELDS]
        return m


def serial_step(config, x, y, z, index):
    """The shift-and-add unit: register step ``index`` (a signal) of the program
    (:func:`~robohw.cordic.datapath.register_steps`) applied to ``x``, ``y``, ``z``, its
    parameters read from a table indexed by ``index``."""
    steps = register_steps(config)

    def table(field):
        return Array(int(field(step)) for step in steps)[index]

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
    """Cycles from a start of :func:`word_serial_datapath` to its result: the load, one per
    register step (the last also fills the result register), one per finish stage."""
    return 1 + len(register_steps(config)) + len(finish_stages(config))


@dataclass(frozen=True)
class WordSerialUnit:
    """What :func:`word_serial_datapath` built: the registered ``outputs`` by field, ``valid``
    (the outputs hold a result), ``busy`` (an operand is in the unit) and ``last`` (it runs its
    last step in this cycle)."""
    outputs: dict
    valid: Value
    busy: Value
    last: Value


def word_serial_datapath(m, config, x, y, z, start, name="cordic", sideband=None, hold=0,
                         fields=None):
    """A word-serial CORDIC inside module ``m``, started by its owner: when ``start`` is high the
    operands (port codes) are loaded; the unit then runs one register step a cycle
    (:func:`~robohw.cordic.datapath.register_steps`: no cycle chains two adders), the last
    into a result register, and the result moves through the finish stages
    (:func:`~robohw.cordic.datapath.finish_stages`) to the output registers:
    :func:`word_serial_period` cycles from the start. Outputs are ``x``, ``y``, ``z``,
    ``domain_error``, ``overflow`` and per-port overflows, or only ``fields``; they are held
    until the next result. A ``sideband`` value, if given, is taken at the start and comes out
    with the result as ``"sideband"``. While ``hold`` is high the result stages do not move and
    the unit waits on its last step.

    Start it when the unit is idle (``busy`` low), or in the cycle it runs its ``last`` step
    without ``hold``: the new operand then follows the old one directly. Returns a
    :class:`WordSerialUnit`.
    """
    steps = register_steps(config)
    count = len(steps)
    xr = Signal(signed(config.xy_width), name=f"{name}_x", reset_less=True)
    yr = Signal(signed(config.xy_width), name=f"{name}_y", reset_less=True)
    zr = Signal(signed(config.z_width), name=f"{name}_z", reset_less=True)
    index = Signal(range(count), name=f"{name}_index")
    busy = Signal(name=f"{name}_busy")
    last = Signal(name=f"{name}_last")
    moves = ~Value.cast(hold)
    # The step's results as wires: the registers and the result register share one copy (the
    # simulator compiles an expression once per use).
    x1, y1, z1 = (_wire(m, value, f"{name}_next_{port}")
                  for value, port in zip(serial_step(config, xr, yr, zr, index), "xyz"))
    held = None
    if sideband is not None:
        held = Signal(sideband.shape(), name=f"{name}_sideband_in", reset_less=True)
    carried = {} if held is None else {"sideband": held}
    result = register_values(m, {"x": x1, "y": y1, "z": z1, **carried}, last & moves,
                             f"{name}_result", state_shapes(config))
    valid = Signal(name=f"{name}_result_valid")
    with m.If(moves):
        m.d.sync += valid.eq(last)
    stages = finish_stages(config)
    for number, stage in enumerate(stages):
        carried = {} if held is None else {"sideband": result["sideband"]}
        values = {**stage(result), **carried}
        if number == len(stages) - 1:
            if fields is not None:
                values = {f: values[f] for f in (*fields, *carried)}
            result = output_registers(config, values, name, sideband)
            with m.If(moves):
                m.d.sync += [result[f].eq(v) for f, v in values.items()]
        else:
            result = register_values(m, values, moves, f"{name}_finish{number}")
        stage_valid = Signal(name=f"{name}_finish{number}_valid")
        with m.If(moves):
            m.d.sync += stage_valid.eq(valid)
        valid = stage_valid
    m.d.comb += last.eq(busy & (index == count - 1))
    with m.If(busy & ~(last & ~moves)):
        m.d.sync += [xr.eq(x1), yr.eq(y1), zr.eq(z1), index.eq(index + 1)]
        with m.If(last):
            m.d.sync += [busy.eq(0), index.eq(0)]
    with m.If(start):
        m.d.sync += [r.eq(v) for r, v in zip((xr, yr, zr), prerotate(config, x, y, z))]
        m.d.sync += [busy.eq(1), index.eq(0)]
        if held is not None:
            m.d.sync += held.eq(sideband)
    return WordSerialUnit(result, valid, busy, last)
