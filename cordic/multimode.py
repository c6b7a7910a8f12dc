"""A word-serial CORDIC whose coordinate system and direction change from operand to operand:
one shift-and-add unit for a processor that runs a sequence of CCMs (Gosselin's leg
processors, :mod:`robohw.legs.machine_plan`).

Every operand names its mode, an index into the unit's configurations (circular or linear,
rotation or vectoring, one number format). The unit runs that mode's register steps
(:func:`~robohw.cordic.datapath.register_steps`) from one step table holding every mode's
rows, with the mode's direction rule (``sigma`` from ``z`` or from ``y``), its ``x`` update
(none in the linear system) and its angle wrap (a circular ``z`` is a binary angle of its
mode's width), then the mode's finish stages, each stage's values chosen by the mode that
travels beside them. So each result equals :func:`robohw.cordic.model.cordic_model` of its
mode's configuration bit for bit, in :func:`~robohw.cordic.word_serial.word_serial_period`
cycles of that configuration.
"""

from amaranth.hdl import Array, Module, Mux, Signal, Value, signed

from robohw.cordic.config import CordicConfig, Direction, System
from robohw.cordic.datapath import finish_stages, prerotate, register_steps, register_values
from robohw.cordic.word_serial import (
    WordSerialUnit,
    step_registers,
    step_table,
    stream_unit,
    word_serial_period,
)
from robohw.hw.delay_line import tapped_delay_line
from robohw.hw.fixed import hdl_add_sub
from robohw.hw.stream import StreamPipeline

__all__ = ["MultiModeCordic", "multimode_datapath", "check_modes", "OUTPUT_FIELDS"]

# What a result carries: the ports, the flags and each port's overflow (a task graph counts
# only the ports it reads).
OUTPUT_FIELDS = ("x", "y", "z", "domain_error", "overflow", "x_overflow", "y_overflow",
                 "z_overflow")


def check_modes(configs):
    """``configs`` as a tuple after checking that one unit can run them all: circular and
    linear :class:`~robohw.cordic.config.CordicConfig` s of one width, fraction and guard
    bits and output shift, normalized by their steps (no gain multiplier) and with as many
    finish stages; ``ValueError`` naming what differs otherwise."""
    configs = tuple(configs)
    if not configs or not all(isinstance(c, CordicConfig) for c in configs):
        raise TypeError(f"configs must be a non-empty sequence of CordicConfig, not {configs!r}")
    for c in configs:
        if c.system is System.HYPERBOLIC:
            raise ValueError("the multi-mode unit runs circular and linear modes, not "
                             "hyperbolic ones")
        if c.multiplier is not None:
            raise ValueError("the multi-mode unit normalizes by steps, not by a multiplier")
    for attribute in ("width", "frac_bits", "guard_bits", "output_shift", "rounding"):
        values = {getattr(c, attribute) for c in configs}
        if len(values) > 1:
            raise ValueError(f"the modes' {attribute} differ: {sorted(map(str, values))}")
    if len({len(finish_stages(c)) for c in configs}) > 1:
        raise ValueError("the modes' finish stages differ in number")
    return configs


def _signed_field(value, width):
    """``value``'s low ``width`` bits as a signed value: a wrap."""
    return Value.cast(value)[:width].as_signed()


def multimode_datapath(m, configs, x, y, z, mode, start, name="cordic", sideband=None, hold=0):
    """A word-serial unit inside ``m`` running ``configs[mode]`` on each operand (see the module
    docstring; registered shift, one operand at a time): started as
    :func:`~robohw.cordic.word_serial.word_serial_datapath` is, ``mode`` taken with the
    operands. Returns a :class:`~robohw.cordic.word_serial.WordSerialUnit` whose outputs are
    :data:`OUTPUT_FIELDS` (and ``"sideband"``)."""
    configs = check_modes(configs)
    modes = len(configs)
    xy_width = max(c.xy_width for c in configs)
    z_width = max(c.z_width for c in configs)
    rows, first, final = [], [], []
    for c in configs:
        first.append(len(rows))
        rows += step_table(c)
        final.append(len(rows) - 1)
    circular = Array(int(c.system is System.CIRCULAR) for c in configs)
    rotation = Array(int(c.direction is Direction.ROTATION) for c in configs)
    z_widths = [c.z_width for c in configs]

    xr = Signal(signed(xy_width), name=f"{name}_x", reset_less=True)
    yr = Signal(signed(xy_width), name=f"{name}_y", reset_less=True)
    zr = Signal(signed(z_width), name=f"{name}_z", reset_less=True)
    mode_r = Signal(range(modes), name=f"{name}_mode", reset_less=True)
    busy, last, phase = Signal(name=f"{name}_busy"), Signal(name=f"{name}_last"), \
        Signal(name=f"{name}_phase")
    moves = ~Value.cast(hold)
    # The step's parameters, read from the table a step ahead: the read of row ``upcoming``
    # is registered (``fetched``) in the step's first cycle and loaded in its second, so no
    # path runs through the table and the step's control at once. Past a mode's last row the
    # read is of the next mode's first, never used.
    index = Signal(range(len(rows)), name=f"{name}_index")
    upcoming = Signal(range(len(rows) + 1), name=f"{name}_upcoming")
    step_fields = ("shift", "angle", "rotate", "subtract")
    params, _ = step_registers(rows, step_fields, name)
    fetched, fetch = step_registers(rows, step_fields, f"{name}_fetched")
    m.d.sync += fetch(upcoming)
    final_index = Signal(range(len(rows)), name=f"{name}_final_index", reset_less=True)

    # The mode's properties as signals: arithmetic on an Array element would be built once
    # for every element.
    is_circular, is_rotation = Signal(name=f"{name}_circular"), Signal(name=f"{name}_rotation")
    m.d.comb += [is_circular.eq(circular[mode_r]), is_rotation.eq(rotation[mode_r])]
    up = Mux(is_rotation, zr >= 0, yr < 0)
    minus = {"x": Mux(params["rotate"], up, params["subtract"]),
             "y": Mux(params["rotate"], ~up, params["subtract"]), "z": up}
    shifting = busy & ~phase
    shifted = register_values(m, {
        "sx": Mux(shifting, xr >> params["shift"], 0),
        "sy": Mux(shifting, yr >> params["shift"], 0),
        "angle": Mux(shifting & params["rotate"], params["angle"], 0),
        **{f"{k}_minus": v for k, v in minus.items()}}, True, f"{name}_shifted")
    rotate = params["rotate"]
    t = Mux(rotate, shifted["sy"], shifted["sx"])
    u = Mux(rotate, shifted["sx"], shifted["sy"])
    x1 = hdl_add_sub(xr, t, shifted["x_minus"])
    x1 = Mux(rotate & ~is_circular, xr, x1)          # the linear system keeps x
    y1 = hdl_add_sub(yr, u, shifted["y_minus"])
    z1 = _wire(m, hdl_add_sub(zr, shifted["angle"], shifted["z_minus"]), f"{name}_sum_z")
    # A circular z wraps at its mode's width (a binary angle); a linear one never does.
    wrapped = _wire(m, Array(_signed_field(z1, w) for w in z_widths)[mode_r],
                    f"{name}_wrapped_z")
    z1 = Mux(is_circular, wrapped, z1)
    x1, y1, z1 = (_wire(m, v, f"{name}_next_{p}") for v, p in zip((x1, y1, z1), "xyz"))

    held = {}
    if sideband is not None:
        held["sideband"] = Signal(sideband.shape(), name=f"{name}_sideband_in",
                                  reset_less=True)
    shapes = {"x": signed(xy_width), "y": signed(xy_width), "z": signed(z_width)}
    values = register_values(m, {"x": x1, "y": y1, "z": z1, "mode": mode_r, **held},
                             last & moves, f"{name}_result", shapes)
    valid = Signal(name=f"{name}_result_valid")
    with m.If(moves):
        m.d.sync += valid.eq(last)
    stages = [finish_stages(c) for c in configs]
    for number in range(len(stages[0])):
        chosen = values["mode"]
        results = [stage[number](values) for stage in stages]
        fields = sorted({f for r in results for f in r})
        merged = {f: Array(Value.cast(r.get(f, 0)) for r in results)[chosen] for f in fields}
        merged["mode"] = chosen
        if "sideband" in values:
            merged["sideband"] = values["sideband"]
        values = register_values(m, merged, moves, f"{name}_finish{number}")
    finish = len(stages[0])
    valid = tapped_delay_line(m, valid, [finish], moves, f"{name}_finish_valid",
                              reset_less=False)[finish]
    outputs = {f: values[f] for f in (*OUTPUT_FIELDS, *held)}

    # A step's index holds over its two cycles: compared in the first (registered), so the
    # second's ``last`` (which enables the result registers) is one gate.
    at_final = Signal(name=f"{name}_at_final")
    m.d.sync += at_final.eq(index == final_index)
    m.d.comb += last.eq(busy & phase & at_final)
    m.d.sync += [xr.eq(x1), yr.eq(y1), zr.eq(z1)]
    with m.If(busy & ~(last & ~moves)):
        m.d.sync += phase.eq(~phase)
        with m.If(phase):
            m.d.sync += [index.eq(upcoming), upcoming.eq(upcoming + 1),
                         *(params[f].eq(fetched[f]) for f in step_fields)]
        with m.If(last):
            m.d.sync += busy.eq(0)
    with m.If(start):
        begin = _wire(m, Array(first)[mode], f"{name}_first_index")
        m.d.sync += [r.eq(v) for r, v in zip((xr, yr, zr), _prerotate(configs, x, y, z, mode))]
        # The first row of each mode, chosen by the mode (no lookup through ``begin``).
        m.d.sync += [params[f].eq(Array(int(getattr(rows[k], f)) for k in first)[mode])
                     for f in step_fields]
        m.d.sync += [busy.eq(1), phase.eq(0), mode_r.eq(mode), index.eq(begin),
                     upcoming.eq(begin + 1), final_index.eq(Array(final)[mode])]
        if sideband is not None:
            m.d.sync += held["sideband"].eq(sideband)
    return WordSerialUnit(outputs, valid, busy, last)


def _prerotate(configs, x, y, z, mode):
    """:func:`~robohw.cordic.datapath.prerotate` of ``configs[mode]`` at run time; a circular
    ``z`` wrapped at its mode's width (the shared register is the widest mode's)."""
    options = []
    for c in configs:
        px, py, pz = prerotate(c, x, y, z)
        options.append((px, py, _signed_field(pz, c.z_width)
                        if c.system is System.CIRCULAR else pz))
    return tuple(Array(option[k] for option in options)[mode] for k in range(3))


def _wire(m, value, name):
    value = Value.cast(value)
    wire = Signal(value.shape(), name=name)
    m.d.comb += wire.eq(value)
    return wire


class MultiModeCordic(StreamPipeline):
    """The multi-mode unit as a stream component: ``i`` takes ``x``, ``y``, ``z`` (port codes,
    ``signed(width)``), ``mode`` (an index into ``configs``) and ``tag``; ``o`` gives
    :data:`OUTPUT_FIELDS` and ``tag``. An input is taken when the unit is idle or runs its
    last step; a result waits in the output registers while ``o.ready`` is low.

    Parameters
    ----------
    configs : sequence of :class:`~robohw.cordic.config.CordicConfig`
        The modes (:func:`check_modes`).
    tag_width : int
        Width of the user tag.
    """
    def __init__(self, configs, *, tag_width=0):
        self._configs = check_modes(configs)
        width = self._configs[0].width
        inputs = {"x": signed(width), "y": signed(width), "z": signed(width),
                  "mode": range(max(len(self._configs), 2))}
        outputs = {f: (signed(width) if f in "xyz" else 1) for f in OUTPUT_FIELDS}
        super().__init__(inputs, outputs, tag_width=tag_width)

    @property
    def configs(self):
        return self._configs

    def latency_of(self, mode):
        """Cycles from an input of ``mode`` to its result:
        :func:`~robohw.cordic.word_serial.word_serial_period` of its configuration."""
        return word_serial_period(self._configs[mode])

    def interval_of(self, mode):
        """Cycles the unit is busy with an operand of ``mode``: two a register step."""
        return 2 * len(register_steps(self._configs[mode]))

    @property
    def latency(self):
        """The slowest mode's :meth:`latency_of`."""
        return max(self.latency_of(k) for k in range(len(self._configs)))

    @property
    def interval(self):
        """The slowest mode's :meth:`interval_of`."""
        return max(self.interval_of(k) for k in range(len(self._configs)))

    def elaborate(self, platform):
        m = Module()
        hold, start = Signal(), Signal()
        unit = multimode_datapath(m, self._configs, self.i.payload.x, self.i.payload.y,
                                  self.i.payload.z, self.i.payload.mode, start,
                                  sideband=self.i.payload.tag, hold=hold)
        stream_unit(m, self, unit, hold, start, OUTPUT_FIELDS)
        return m
