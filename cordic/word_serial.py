"""Word-serial CORDIC processor: one shift-and-add unit iterated over the program."""

from amaranth.hdl import Array, Module, Signal, signed

from cordic.component import CordicComponent
from cordic.datapath import finish, micro_step, prerotate

__all__ = ["WordSerialCordic"]


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

    Parameters and members: see :class:`~cordic.component.CordicComponent`.
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
        config = self._config
        steps = config.steps
        count = len(steps)

        x = Signal(signed(config.xy_width), reset_less=True)
        y = Signal(signed(config.xy_width), reset_less=True)
        z = Signal(signed(config.z_width), reset_less=True)
        tag = Signal(self.tag_width, reset_less=True)
        index = Signal(range(count))
        busy = Signal()
        out = Signal(self.o.payload.shape(), reset_less=True)
        out_valid = Signal()

        def table(field):
            return Array(int(field(step)) for step in steps)[index]

        x1, y1, z1 = micro_step(
            config, x, y, z,
            shift=table(lambda s: s.shift or 0), angle=table(lambda s: s.angle),
            rotate=table(lambda s: s.shift is not None),
            norm_shift=table(lambda s: s.norm_shift), gamma=table(lambda s: s.gamma != 0),
            norm_subtract=table(lambda s: s.gamma < 0), expanded=table(lambda s: s.expanded))

        out_free = ~out_valid | self.o.ready
        on_last = busy & (index == count - 1)
        m.d.comb += [
            self.i.ready.eq(~busy | (on_last & out_free)),
            self.o.valid.eq(out_valid),
            self.o.payload.eq(out),
        ]

        with m.If(self.o.ready):
            m.d.sync += out_valid.eq(0)
        with m.If(busy & (~on_last | out_free)):
            m.d.sync += [x.eq(x1), y.eq(y1), z.eq(z1), index.eq(index + 1)]
        with m.If(on_last & out_free):
            fields = finish(config, x1, y1, z1)
            m.d.sync += [getattr(out, name).eq(fields[name])
                         for name in ("x", "y", "z", "domain_error", "overflow")]
            m.d.sync += [out.tag.eq(tag), out_valid.eq(1), busy.eq(0), index.eq(0)]
        with m.If(self.i.valid & self.i.ready):
            m.d.sync += [
                *(reg.eq(value) for reg, value in zip(
                    (x, y, z), prerotate(config, self.i.payload.x, self.i.payload.y,
                                         self.i.payload.z))),
                tag.eq(self.i.payload.tag), busy.eq(1), index.eq(0),
            ]
        return m
