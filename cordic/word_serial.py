"""Word-serial CORDIC processor: one shift-and-add unit iterated over the program."""

from dataclasses import dataclass

from amaranth.hdl import Array, Module, Mux, Signal, Value, signed

from robohw.cordic.component import CordicComponent
from robohw.cordic.config import Direction, System
from robohw.cordic.datapath import (PAYLOAD_FIELDS, finish_stages, output_registers,
                                    prerotate, register_steps, register_values, state_shapes)
from robohw.hw.fixed import hdl_add_sub

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


@dataclass(frozen=True)
class _StepTable:
    """The parameters of one register step as the unit's registers hold them: ``shift`` (the
    micro-rotation's, or the normalization factor's), ``angle``, and the flags ``rotate``,
    ``subtract`` (a factor ``1 - 2**-shift``) and ``expanded``."""
    shift: int
    angle: int
    rotate: bool
    subtract: bool
    expanded: bool


def _step_table(config):
    return [_StepTable(shift=step.shift if step.shift is not None else step.norm_shift,
                       angle=step.angle, rotate=step.shift is not None,
                       subtract=step.gamma < 0, expanded=step.expanded)
            for step in register_steps(config)]


def serial_step(config, x, y, z, shift, angle, rotate, subtract, expanded):
    """One register step of the unit on ``x``, ``y``, ``z``, its parameters (signals) from the
    step table: a micro-rotation (``rotate``) or a normalization factor, never both
    (:func:`~robohw.cordic.datapath.register_steps`). Each value passes one operand select, one
    barrel shifter and one adder (an ``expanded`` step, hyperbolic range expansion only, a
    second): ``x + t``, ``y + u`` with ``t, u`` the shifted ``y, x`` (rotation) or ``x, y``
    (normalization), signed by the direction or the factor. Equal to
    :func:`~robohw.cordic.datapath.micro_step` on every register step."""
    up = (z >= 0) if config.direction is Direction.ROTATION else (y < 0)
    into_x, into_y = Mux(rotate, y, x), Mux(rotate, x, y)
    t, u = into_x >> shift, into_y >> shift
    if any(step.expanded for step in config.steps):
        t, u = Mux(expanded, into_x - t, t), Mux(expanded, into_y - u, u)
    # Rotation: x - sigma t (circular), x + sigma t (hyperbolic), x (linear); y + sigma u, with
    # sigma = +1 when up. Normalization: x -+ t, y -+ u.
    if config.system is System.CIRCULAR:
        x_minus = Mux(rotate, up, subtract)
    elif config.system is System.HYPERBOLIC:
        x_minus = Mux(rotate, ~up, subtract)
    else:
        x_minus = subtract
    y_minus = Mux(rotate, ~up, subtract)
    x1 = hdl_add_sub(x, t, x_minus)
    if config.system is System.LINEAR:
        x1 = Mux(rotate, x, x1)
    y1 = hdl_add_sub(y, u, y_minus)
    z1 = hdl_add_sub(z, Mux(rotate, angle, 0), up)
    return x1, y1, z1


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
    # The step's parameters are registered with its index (the table read for the next index
    # a cycle ahead): no table lookup in the loop.
    table = _step_table(config)
    params = {}
    for field in ("shift", "angle", "rotate", "subtract", "expanded"):
        column = [int(getattr(row, field)) for row in table]
        params[field] = Signal(range(min(column + [0]), max(column + [1]) + 1),
                               name=f"{name}_{field}", reset_less=True)
    following = Mux(last, 0, index + 1)

    def load(position):
        return [params[f].eq(Array(int(getattr(row, f)) for row in table)[position])
                for f in params]
    # The step's results as wires: the registers and the result register share one copy (the
    # simulator compiles an expression once per use).
    x1, y1, z1 = (_wire(m, value, f"{name}_next_{port}")
                  for value, port in zip(serial_step(config, xr, yr, zr, **params), "xyz"))
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
        m.d.sync += [xr.eq(x1), yr.eq(y1), zr.eq(z1), index.eq(following), *load(following)]
        with m.If(last):
            m.d.sync += busy.eq(0)
    with m.If(start):
        m.d.sync += [r.eq(v) for r, v in zip((xr, yr, zr), prerotate(config, x, y, z))]
        m.d.sync += [busy.eq(1), index.eq(0), *load(0)]
        if held is not None:
            m.d.sync += held.eq(sideband)
    return WordSerialUnit(result, valid, busy, last)
