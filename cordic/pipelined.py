"""Fully pipelined CORDIC processor: one register stage per program step."""

from amaranth.hdl import Module, Signal, signed

from robohw.cordic.component import CordicComponent
from robohw.cordic.datapath import (PAYLOAD_FIELDS, finish, micro_step, output_registers,
                                    prerotate)

__all__ = ["PipelinedCordic", "pipelined_datapath", "pipelined_latency"]


class PipelinedCordic(CordicComponent):
    """CORDIC processor with one pipeline stage per iteration: one result per clock.

    Stage 0 registers the pre-rotated input, stages 1 .. S run the S steps of
    :attr:`CordicConfig.steps <robohw.cordic.config.CordicConfig.steps>` (iterations, with
    normalization interleaved or appended), and the last stage registers the rounded, saturated
    outputs.

    Latency is ``S + 2`` cycles from an input transfer to the output becoming valid; throughput
    is one result per clock while ``o.ready`` is high. When ``o.valid`` is high and ``o.ready``
    low the whole pipeline holds (``i.ready`` falls in the same cycle), so no sample is lost,
    duplicated or reordered. Only valid bits are reset.

    Parameters and members: see :class:`~robohw.cordic.component.CordicComponent`.
    """
    @property
    def latency(self):
        """Cycles from an input transfer to its result being valid: ``len(steps) + 2``."""
        return pipelined_latency(self._config)

    @property
    def interval(self):
        """Cycles between results under continuous input: 1."""
        return 1

    def elaborate(self, platform):
        m = Module()
        advance = self.pipeline_control(m, self.latency)
        fields = pipelined_datapath(m, self._config, self.i.payload.x, self.i.payload.y,
                                    self.i.payload.z, advance)
        m.d.comb += [getattr(self.o.payload, name).eq(fields[name]) for name in PAYLOAD_FIELDS]
        return m


def pipelined_latency(config):
    """Register stages of :func:`pipelined_datapath`: pre-rotation, one per step, output."""
    return len(config.steps) + 2


def pipelined_datapath(m, config, x, y, z, enable, name="cordic", sideband=None):
    """The datapath of :class:`PipelinedCordic` inside module ``m``: operands ``x``, ``y``,
    ``z`` (port codes) enter the first register when ``enable`` is high; returns the dict of
    output fields (``x``, ``y``, ``z``, ``domain_error``, ``overflow``), registered,
    :func:`pipelined_latency` enabled cycles later. Registers are reset-less. A ``sideband``
    value, if given, travels through the same registers and comes out as ``"sideband"``."""
    def stage(label, values):
        shapes = [signed(config.xy_width), signed(config.xy_width), signed(config.z_width)]
        if sideband is not None:
            shapes.append(sideband.shape())
        registers = tuple(Signal(shape, name=f"{name}_{label}_{field}", reset_less=True)
                          for shape, field in zip(shapes, ("x", "y", "z", "sideband")))
        with m.If(enable):
            m.d.sync += [r.eq(v) for r, v in zip(registers, values)]
        return registers

    def carry(values, previous):
        return (*values, previous[3]) if sideband is not None else values

    extra = () if sideband is None else (sideband,)
    values = stage("pre", (*prerotate(config, x, y, z), *extra))
    for index, step in enumerate(config.steps):
        values = stage(f"step{index}", carry(micro_step(
            config, *values[:3], shift=step.shift, angle=step.angle,
            rotate=step.shift is not None, norm_shift=step.norm_shift, gamma=step.gamma,
            expanded=step.expanded), values))
    results = dict(finish(config, *values[:3]))
    if sideband is not None:
        results["sideband"] = values[3]
    outputs = output_registers(config, results, name, sideband)
    with m.If(enable):
        m.d.sync += [outputs[field].eq(value) for field, value in results.items()]
    return outputs
