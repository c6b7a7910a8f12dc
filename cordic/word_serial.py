"""Word-serial CORDIC processor: one shift-and-add unit iterated over the program."""

from dataclasses import dataclass

from amaranth.hdl import Array, Const, Module, Mux, Signal, Value, signed

from robohw.cordic.component import CordicComponent
from robohw.cordic.config import Direction, System
from robohw.cordic.datapath import (
    PAYLOAD_FIELDS,
    finish_registers,
    finish_stages,
    prerotate,
    register_steps,
    register_values,
    state_shapes,
)
from robohw.hw.checks import check_bool
from robohw.hw.delay_line import tapped_delay_line
from robohw.hw.fixed import hdl_add_sub

__all__ = ["WordSerialCordic", "WordSerialUnit", "stream_unit", "step_table", "step_registers",
           "serial_shift", "serial_directions", "serial_add", "word_serial_datapath",
           "word_serial_period", "check_interleave", "REGISTERED_SHIFT", "INTERLEAVES"]

# Whether a step registers its barrel shifters' outputs before adding (two cycles a step, a
# shorter loop): the default, chosen by measurement (docs/cordic.md).
REGISTERED_SHIFT = True

# Operands a unit holds at once: 1, or 2 (C-slow; registered shift only).
INTERLEAVES = (1, 2)


class WordSerialCordic(CordicComponent):
    """CORDIC processor with one shift-and-add unit used once per step, as in the CORDIC chip
    of Haviland & Tuszynski that Lee & Chang assume: one result per ``S`` clocks.

    The unit runs the ``R`` register steps (:func:`~robohw.cordic.datapath.register_steps`: the
    iterations, and each normalization factor, interleaved (Eq. 11) or appended (Eq. 10), as a
    step of its own) on one barrel shifter and one adder per value: with ``registered_shift``
    (the default) in two cycles, the shifters' outputs registered before the adders, otherwise
    in one. The step's shift amounts, angle constant and normalization factor come from a small
    table indexed by the step counter, registered a step ahead. The result then moves through
    the ``F`` finish stages (:func:`~robohw.cordic.datapath.finish_stages`) to the output
    registers.

    An input is accepted when the unit is idle, or in the cycle its previous operand runs its
    last step and the result stages can move. Latency is ``1 + C R + F`` cycles from an input
    transfer to its result being valid, ``C`` the cycles per step (2 with ``registered_shift``,
    else 1); the interval between results is ``C R`` cycles under continuous input. A result
    waits in the output registers while ``o.ready`` is low, the finish stages hold and the unit
    stalls on its last step: nothing is lost, duplicated or reordered. Only the control state and
    valid bits reset.

    Parameters and members: see :class:`~robohw.cordic.component.CordicComponent`; and
    ``registered_shift`` (bool, default :data:`REGISTERED_SHIFT`).
    """
    def __init__(self, config, *, tag_width=0, registered_shift=REGISTERED_SHIFT):
        check_bool("registered_shift", registered_shift)
        self._registered_shift = registered_shift
        super().__init__(config, tag_width=tag_width)

    @property
    def registered_shift(self):
        return self._registered_shift

    @property
    def latency(self):
        """Cycles from an input transfer to its result being valid: ``1 + R + F``, or
        ``1 + 2 R + F`` with a registered shift (:func:`word_serial_period`)."""
        return word_serial_period(self._config, self._registered_shift)

    @property
    def interval(self):
        """Cycles between results under continuous input: ``R``, one per register step, or
        ``2 R`` with a registered shift."""
        return len(register_steps(self._config)) * (2 if self._registered_shift else 1)

    def elaborate(self, platform):
        m = Module()
        hold = Signal()
        start = Signal()
        unit = word_serial_datapath(m, self._config, self.i.payload.x, self.i.payload.y,
                                    self.i.payload.z, start, sideband=self.i.payload.tag,
                                    hold=hold, fields=PAYLOAD_FIELDS,
                                    registered_shift=self._registered_shift)
        stream_unit(m, self, unit, hold, start, PAYLOAD_FIELDS)
        return m


def stream_unit(m, component, unit, hold, start, fields):
    """The stream handshake of ``component`` (``i``, ``o``, a tag) around a word-serial
    ``unit`` (:class:`WordSerialUnit`, the tag its sideband) started by ``start`` and held by
    ``hold``: an input is taken when the unit is idle or runs its last step; a result waits
    in the output registers while ``o.ready`` is low; ``fields`` go to ``o``."""
    m.d.comb += [
        hold.eq(unit.valid & ~component.o.ready),
        component.i.ready.eq(~unit.busy | (unit.last & ~hold)),
        start.eq(component.i.valid & component.i.ready),
        component.o.valid.eq(unit.valid),
        component.o.payload.tag.eq(unit.outputs["sideband"]),
    ]
    m.d.comb += [getattr(component.o.payload, name).eq(unit.outputs[name]) for name in fields]


@dataclass(frozen=True)
class _StepTable:
    """The parameters of one register step as the unit's registers hold them: ``shift`` (the
    micro-rotation's, or the normalization factor's), ``angle``, the flags ``rotate``,
    ``subtract`` (a factor ``1 - 2**-shift``) and ``expanded``, and ``expansion``: an expanded
    step's position in ``config.expansion_shifts`` (0 for the other steps)."""
    shift: int
    angle: int
    rotate: bool
    subtract: bool
    expanded: bool
    expansion: int


def step_table(config):
    """The :class:`_StepTable` rows of ``config``'s register steps, in order."""
    return [_StepTable(shift=step.shift if step.shift is not None else step.norm_shift,
                       angle=step.angle, rotate=step.shift is not None,
                       subtract=step.gamma < 0, expanded=step.expanded,
                       expansion=config.expansion_shifts.index(step.shift) if step.expanded
                       else 0)
            for step in register_steps(config)]


@dataclass(frozen=True)
class _StepSequence:
    """The step state of a word-serial unit (:func:`_step_sequence`): the step's ``params``
    by table column, its ``index``, and the statements that move to the next step
    (:meth:`next`, after the ``last``, back to the first) or start the program
    (:meth:`restart`)."""
    params: dict
    index: Signal
    upcoming: Signal
    load: object

    def next(self, last):
        return [self.index.eq(Mux(last, 0, self.index + 1)), *self.load(self.upcoming),
                self.upcoming.eq(Mux(last, 1, self.upcoming + 1))]

    def restart(self):
        return [self.index.eq(0), self.upcoming.eq(1), *self.load(0)]


def step_registers(table, fields, name):
    """``(params, load)``: a register ``{name}_{field}`` for each of ``fields`` (columns of the
    :class:`_StepTable` rows ``table``), and ``load(position)``, the statements that load them
    with row ``position`` (past the last row: a copy of the first)."""
    params = {}
    for field in fields:
        column = [int(getattr(row, field)) for row in table]
        params[field] = Signal(range(min(column + [0]), max(column + [1]) + 1),
                               name=f"{name}_{field}", reset_less=True)

    def load(position):
        return [params[f].eq(Array(int(getattr(row, f)) for row in [*table, table[0]])[position])
                for f in params]
    return params, load


def _step_sequence(config, name):
    """The registers of a step's parameters (the step-table columns; ``expansion`` only with
    range expansion), registered with the step index from the table read a cycle ahead (no
    table lookup in the loop): the index of the step after this one has a register of its own
    so the read starts at a flip-flop; past the last step it reads a copy of the first row."""
    table = step_table(config)
    count = len(table)
    fields = ("shift", "angle", "rotate", "subtract", "expanded",
              *(("expansion",) if config.expansion_shifts else ()))
    params, load_fields = step_registers(table, fields, name)
    # The y shifter's shift amount: a copy of its own, stored complemented so that Yosys cannot
    # merge it with the x shifter's (a merged register drove both shifters, and its fanout was
    # the word-serial IK's limiting path); ``~complement`` is the shift.
    shift = params["shift"]
    complement = Signal(shift.shape(), name=f"{name}_shift_complement", reset_less=True)
    params = params | {"shift_y": ~complement}
    shifts = Array(int(row.shift) for row in [*table, table[0]])

    def load(position):
        return [*load_fields(position), complement.eq(~shifts[position])]
    return _StepSequence(params, Signal(range(count), name=f"{name}_index"),
                         Signal(range(count + 1), name=f"{name}_upcoming"), load)


def serial_shift(config, x, y, shift, expanded, expansion=0, y_shift=None):
    """The unit's barrel shifters: ``(sx, sy)``, ``x`` and ``y`` shifted right by ``shift``
    (``y`` by ``y_shift`` when given: the same amount from a register of its own).
    An ``expanded`` step (hyperbolic range expansion only) gives ``v - (v >> k)`` instead,
    ``k`` the ``expansion``-th of ``config.expansion_shifts``: its few constant shifts are a
    small multiplexer beside the barrel shifter, so the subtraction's carry chain never follows
    the barrel shifter. Which shifted value each adder takes is :func:`serial_add`'s choice (a
    multiplexer in front of the shifters was a long path)."""
    sx, sy = x >> shift, y >> (shift if y_shift is None else y_shift)
    if config.expansion_shifts:
        def expand(v):
            return v - Array(v >> k for k in config.expansion_shifts)[expansion]
        sx, sy = Mux(expanded, expand(x), sx), Mux(expanded, expand(y), sy)
    return sx, sy


def serial_directions(config, y, z, rotate, subtract):
    """Whether each adder of a register step subtracts: ``{"x": ..., "y": ..., "z": ...}``.
    Rotation: ``x - sigma sy`` (circular), ``x + sigma sy`` (hyperbolic), ``x`` (linear);
    ``y + sigma sx``; ``z - sigma angle``, with ``sigma = +1`` when ``z >= 0`` (rotation) or
    ``y < 0`` (vectoring). Normalization: ``x -+ sx``, ``y -+ sy`` by the factor's sign
    (``sx, sy`` from :func:`serial_shift`)."""
    up = (z >= 0) if config.direction is Direction.ROTATION else (y < 0)
    if config.system is System.CIRCULAR:
        x_minus = Mux(rotate, up, subtract)
    elif config.system is System.HYPERBOLIC:
        x_minus = Mux(rotate, ~up, subtract)
    else:
        x_minus = subtract
    return {"x": x_minus, "y": Mux(rotate, ~up, subtract), "z": up}


def serial_add(config, x, y, z, sx, sy, angle, rotate, minus):
    """The unit's adders: one register step on ``x``, ``y``, ``z`` from the shifted ``sx, sy``
    (:func:`serial_shift`; a micro-rotation adds ``sy`` to ``x`` and ``sx`` to ``y``, a
    normalization factor each its own) and the add/subtract choices ``minus``
    (:func:`serial_directions`). One carry chain per value (the choice and the add/subtract
    inversion share the chain's input logic); equal to
    :func:`~robohw.cordic.datapath.micro_step` on every register step."""
    t, u = Mux(rotate, sy, sx), Mux(rotate, sx, sy)
    x1 = hdl_add_sub(x, t, minus["x"])
    if config.system is System.LINEAR:
        x1 = Mux(rotate, x, x1)
    y1 = hdl_add_sub(y, u, minus["y"])
    z1 = hdl_add_sub(z, Mux(rotate, angle, 0), minus["z"])
    return x1, y1, z1


def _wire(m, value, name):
    value = Value.cast(value)
    wire = Signal(value.shape(), name=name)
    m.d.comb += wire.eq(value)
    return wire


def word_serial_period(config, registered_shift=REGISTERED_SHIFT, interleave=1):
    """Cycles from a start of :func:`word_serial_datapath` to its result: the load, one per
    register step (two with ``registered_shift``; the last also fills the result register),
    one per finish stage. With ``interleave`` 2, cycles from the first start until both results
    are at the outputs: one more for the operand registers ahead of the load, one for the
    second operand's result (the first's one cycle later, the first then caught in the output
    registers)."""
    check_interleave(interleave, registered_shift)
    per_step = 2 if registered_shift else 1
    return 1 + per_step * len(register_steps(config)) + len(finish_stages(config)) + \
        2 * (interleave - 1)


def check_interleave(interleave, registered_shift=True):
    """Return ``interleave`` if it is 1, or 2 with ``registered_shift``; raise otherwise."""
    if type(interleave) is not int or interleave not in INTERLEAVES:
        raise ValueError(f"interleave must be 1 or 2, not {interleave!r}")
    if interleave == 2 and not registered_shift:
        raise ValueError("interleave 2 needs registered_shift: the two operands take turns at "
                         "the shifter and the adder")
    return interleave


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
                         fields=None, registered_shift=REGISTERED_SHIFT, interleave=1):
    """A word-serial CORDIC inside module ``m``, started by its owner: when ``start`` is high the
    operands (port codes) are loaded; the unit then runs the register steps one at a time
    (:func:`~robohw.cordic.datapath.register_steps`: no cycle chains two adders), the last
    into a result register, and the result moves through the finish stages
    (:func:`~robohw.cordic.datapath.finish_stages`) to the output registers:
    :func:`word_serial_period` cycles from the start. Outputs are ``x``, ``y``, ``z``,
    ``domain_error``, ``overflow`` and per-port overflows, or only ``fields``; they are held
    until the next result. A ``sideband`` value, if given, is taken at the start and comes out
    with the result as ``"sideband"``. While ``hold`` is high the result stages do not move and
    the unit waits on its last step.

    With ``registered_shift`` a register step takes two cycles: the barrel shifters' outputs
    are registered, then added; otherwise shifter and adder share one cycle.

    Start it when the unit is idle (``busy`` low), or in the cycle it runs its ``last`` step
    without ``hold``: the new operand then follows the old one directly. Returns a
    :class:`WordSerialUnit`.

    With ``interleave`` 2 (C-slow, with ``registered_shift``) the unit holds two operands at
    once: ``start`` is high for two consecutive cycles, taking the first operand, then the
    second, into operand registers (the load follows a cycle later); in every cycle one
    operand's shift and the other's add run, so both results take the time one takes alone,
    one cycle apart. The outputs show the first result until the next ``start`` and the second
    from then until the second start cycle (:func:`word_serial_period` cycles after the first
    start); ``hold`` must be 0.
    """
    if check_interleave(interleave, registered_shift) == 2:
        return _interleaved_datapath(m, config, x, y, z, start, name, sideband, hold, fields)
    steps = register_steps(config)
    count = len(steps)
    xr = Signal(signed(config.xy_width), name=f"{name}_x", reset_less=True)
    yr = Signal(signed(config.xy_width), name=f"{name}_y", reset_less=True)
    zr = Signal(signed(config.z_width), name=f"{name}_z", reset_less=True)
    busy = Signal(name=f"{name}_busy")
    last = Signal(name=f"{name}_last")
    moves = ~Value.cast(hold)
    sequence = _step_sequence(config, name)
    params, index = sequence.params, sequence.index
    # Without registered_shift every busy cycle runs a step; with it, a step is a shift cycle
    # (phase 0: the shifters' outputs registered) and an add cycle (phase 1).
    phase = Signal(name=f"{name}_phase")
    adding = Const(1, 1)
    sx, sy = serial_shift(config, xr, yr, params["shift"], params["expanded"],
                          params.get("expansion", 0), params["shift_y"])
    angle = params["angle"]
    minus = serial_directions(config, yr, zr, params["rotate"], params["subtract"])
    if registered_shift:
        # The shift cycle registers the shifted operands and the add/subtract choices (y and
        # z do not change before the add cycle). The operands are zero outside add cycles, so
        # x, y, z may load the adders' outputs every cycle: no enable (a high-fanout net) on
        # the loop's registers.
        adding = phase
        shifting = busy & ~phase
        operands = register_values(m, {
            "sx": Mux(shifting, sx, 0), "sy": Mux(shifting, sy, 0),
            "angle": Mux(shifting & params["rotate"], angle, 0),
            **{f"{k}_minus": v for k, v in minus.items()}}, True, f"{name}_shifted")
        sx, sy, angle = operands["sx"], operands["sy"], operands["angle"]
        minus = {k: operands[f"{k}_minus"] for k in minus}
    # The step's results as wires: the registers and the result register share one copy (the
    # simulator compiles an expression once per use).
    x1, y1, z1 = (_wire(m, value, f"{name}_next_{port}") for value, port in zip(
        serial_add(config, xr, yr, zr, sx, sy, angle, params["rotate"], minus), "xyz"))
    held = None
    if sideband is not None:
        held = Signal(sideband.shape(), name=f"{name}_sideband_in", reset_less=True)
    carried = {} if held is None else {"sideband": held}
    result = register_values(m, {"x": x1, "y": y1, "z": z1, **carried}, last & moves,
                             f"{name}_result", state_shapes(config))
    valid = Signal(name=f"{name}_result_valid")
    with m.If(moves):
        m.d.sync += valid.eq(last)
    finish = len(finish_stages(config))
    outputs = finish_registers(m, config, result, moves, name, fields)
    valid = tapped_delay_line(m, valid, [finish], moves, f"{name}_finish_valid",
                              reset_less=False)[finish]
    m.d.comb += last.eq(busy & adding & (index == count - 1))
    if registered_shift:
        m.d.sync += [xr.eq(x1), yr.eq(y1), zr.eq(z1)]
    with m.If(busy & ~(last & ~moves)):
        if registered_shift:
            m.d.sync += phase.eq(~phase)
        else:
            m.d.sync += [xr.eq(x1), yr.eq(y1), zr.eq(z1)]
        with m.If(adding):
            m.d.sync += sequence.next(last)
        with m.If(last):
            m.d.sync += busy.eq(0)
    with m.If(start):
        m.d.sync += [r.eq(v) for r, v in zip((xr, yr, zr), prerotate(config, x, y, z))]
        m.d.sync += [busy.eq(1), *sequence.restart()]
        if registered_shift:
            m.d.sync += phase.eq(0)
        if held is not None:
            m.d.sync += held.eq(sideband)
    return WordSerialUnit(outputs, valid, busy, last)


def _interleaved_datapath(m, config, x, y, z, start, name, sideband, hold, fields):
    """:func:`word_serial_datapath` with ``interleave`` 2: the loop of the registered-shift unit
    (``x, y, z`` -> shifter -> shifted registers -> adders -> ``x, y, z``) holds two operands,
    one on each side of the shifted registers (C-slow retiming)."""
    if not (isinstance(hold, int) and hold == 0):
        raise ValueError("an interleaved word-serial unit cannot hold: its two operands "
                         "take turns in every cycle")
    steps = register_steps(config)
    count = len(steps)
    shapes = state_shapes(config)
    # Operands registered ahead of the load: what forms them (an IK CCM's sign, constant and
    # saturation) and the pre-rotation are not one path. The outputs still move on at start.
    operands = {"x": x, "y": y, "z": z, **({} if sideband is None else {"sideband": sideband})}
    operands = register_values(m, operands, True, f"{name}_operand")
    x, y, z, sideband = (operands.get(k) for k in ("x", "y", "z", "sideband"))
    load_now = Signal(name=f"{name}_load")
    m.d.sync += load_now.eq(start)
    # The operand at the shifter (a) and the one at the adders (b); a sideband rides along.
    a = {port: Signal(shapes[port], name=f"{name}_{port}", reset_less=True) for port in "xyz"}
    b = {port: Signal(shapes[port], name=f"{name}_{port}_b", reset_less=True) for port in "xyz"}
    if sideband is not None:
        a["sideband"] = Signal(sideband.shape(), name=f"{name}_sideband", reset_less=True)
        b["sideband"] = Signal(sideband.shape(), name=f"{name}_sideband_b", reset_less=True)
    sequence = _step_sequence(config, name)
    params, index = sequence.params, sequence.index
    busy = Signal(name=f"{name}_busy")
    # Phase 0: the first operand's shift (and the second's add); phase 1: the other way round.
    # A step's parameters hold for both phases and move on after phase 1.
    phase = Signal(name=f"{name}_phase")
    loaded_before = Signal(name=f"{name}_loaded_before")
    first = load_now & ~loaded_before           # the first operand's load
    sx, sy = serial_shift(config, a["x"], a["y"], params["shift"], params["expanded"],
                          params.get("expansion", 0), params["shift_y"])
    minus = serial_directions(config, a["y"], a["z"], params["rotate"], params["subtract"])
    # No enable on the loop: the shifted registers take the operand at the shifter in every
    # cycle, with the step parameters its add will need (the parameters move on before the
    # second operand's add).
    shifted = register_values(m, {
        "sx": sx, "sy": sy, "angle": Mux(params["rotate"], params["angle"], 0),
        "rotate": params["rotate"], **{f"{k}_minus": v for k, v in minus.items()}}, True,
        f"{name}_shifted")
    x1, y1, z1 = (_wire(m, value, f"{name}_next_{port}") for value, port in zip(
        serial_add(config, b["x"], b["y"], b["z"], shifted["sx"], shifted["sy"],
                   shifted["angle"], shifted["rotate"],
                   {k: shifted[f"{k}_minus"] for k in minus}), "xyz"))
    stepped = {"x": x1, "y": y1, "z": z1}
    if sideband is not None:
        stepped["sideband"] = b["sideband"]
    loaded = dict(zip("xyz", prerotate(config, x, y, z)))
    if sideband is not None:
        loaded["sideband"] = sideband
    m.d.sync += [b[k].eq(a[k]) for k in a]
    with m.If(load_now):
        m.d.sync += [a[k].eq(loaded[k]) for k in a]
    with m.Else():
        m.d.sync += [a[k].eq(stepped[k]) for k in a]
    # The first operand's last add runs in phase 1 of the last step, the second's a cycle
    # later; each fills the result register.
    last_first = Signal(name=f"{name}_last")
    last_second = Signal(name=f"{name}_last_second")
    m.d.comb += last_first.eq(busy & phase & (index == count - 1))
    m.d.sync += [loaded_before.eq(load_now), last_second.eq(last_first)]
    with m.If(busy):
        m.d.sync += phase.eq(~phase)
        with m.If(phase):
            m.d.sync += sequence.next(last_first)
        with m.If(last_first):
            m.d.sync += busy.eq(0)
    with m.If(first):
        m.d.sync += [busy.eq(1), phase.eq(0), *sequence.restart()]
    result = register_values(m, stepped, last_first | last_second, f"{name}_result",
                             shapes)
    finish = len(finish_stages(config))
    outputs = finish_registers(m, config, result, True, f"{name}_pair", fields)
    # The first result is caught as it leaves the finish stages; the second stays in them
    # (the result register holds it) and is caught at the next start.
    first_done = tapped_delay_line(m, last_first, [1 + finish], Const(1),
                                   f"{name}_first_valid", reset_less=False)[1 + finish]
    caught = register_values(m, outputs, first_done | start, f"{name}_caught")
    # Whether the outputs hold a first result (until the next start shows the second).
    valid = Signal(name=f"{name}_result_valid")
    with m.If(first_done):
        m.d.sync += valid.eq(1)
    with m.Elif(start):
        m.d.sync += valid.eq(0)
    return WordSerialUnit(caught, valid, busy, last_first)
