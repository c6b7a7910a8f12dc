"""Fully pipelined CORDIC processor: one register stage per program step."""

from amaranth.hdl import Module, Signal, signed

from cordic.component import CordicComponent
from cordic.datapath import finish, micro_step, prerotate

__all__ = ["PipelinedCordic"]


class PipelinedCordic(CordicComponent):
    """CORDIC processor with one pipeline stage per iteration: one result per clock.

    Stage 0 registers the pre-rotated input, stages 1 .. S run the S steps of
    :attr:`CordicConfig.steps <cordic.config.CordicConfig.steps>` (iterations, with normalization
    interleaved or appended), and the last stage registers the rounded, saturated outputs.

    Latency is ``S + 2`` cycles from an input transfer to the output becoming valid; throughput
    is one result per clock while ``o.ready`` is high. When ``o.valid`` is high and ``o.ready``
    low the whole pipeline holds (``i.ready`` falls in the same cycle), so no sample is lost,
    duplicated or reordered. Only valid bits are reset.

    Parameters and members: see :class:`~cordic.component.CordicComponent`.
    """
    @property
    def latency(self):
        """Cycles from an input transfer to its result being valid: ``len(steps) + 2``."""
        return len(self._config.steps) + 2

    @property
    def interval(self):
        """Cycles between results under continuous input: 1."""
        return 1

    def elaborate(self, platform):
        m = Module()
        config = self._config

        # All stages move together; they hold while the output waits.
        advance = ~self.o.valid | self.o.ready
        m.d.comb += self.i.ready.eq(advance)

        def stage(name, values, tag, valid):
            xr = Signal(signed(config.xy_width), name=f"{name}_x", reset_less=True)
            yr = Signal(signed(config.xy_width), name=f"{name}_y", reset_less=True)
            zr = Signal(signed(config.z_width), name=f"{name}_z", reset_less=True)
            tr = Signal(self.tag_width, name=f"{name}_tag", reset_less=True)
            vr = Signal(name=f"{name}_valid")
            with m.If(advance):
                m.d.sync += [xr.eq(values[0]), yr.eq(values[1]), zr.eq(values[2]),
                             tr.eq(tag), vr.eq(valid)]
            return (xr, yr, zr), tr, vr

        values, tag, valid = stage(
            "pre", prerotate(config, self.i.payload.x, self.i.payload.y, self.i.payload.z),
            self.i.payload.tag, self.i.valid)
        for index, step in enumerate(config.steps):
            values, tag, valid = stage(
                f"step{index}",
                micro_step(config, *values, shift=step.shift, angle=step.angle,
                           rotate=step.shift is not None, norm_shift=step.norm_shift,
                           gamma=step.gamma, expanded=step.expanded),
                tag, valid)

        out_valid = Signal()
        out = Signal(self.o.payload.shape(), reset_less=True)
        with m.If(advance):
            fields = finish(config, *values)
            m.d.sync += [getattr(out, name).eq(value) for name, value in fields.items()]
            m.d.sync += [out.tag.eq(tag), out_valid.eq(valid)]
        m.d.comb += [self.o.payload.eq(out), self.o.valid.eq(out_valid)]
        return m
