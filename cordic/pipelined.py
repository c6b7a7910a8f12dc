"""Fully pipelined CORDIC processor: one register stage per program step."""

from amaranth.hdl import Module, Signal, Value

from robohw.cordic.component import CordicComponent
from robohw.cordic.datapath import (
    PAYLOAD_FIELDS,
    finish_registers,
    finish_stages,
    micro_step,
    prerotate,
    register_steps,
    register_values,
    state_shapes,
)
from robohw.hw.carry_chain import add_sub

__all__ = ["PipelinedCordic", "pipelined_datapath", "pipelined_latency",
           "pipelined_register_bits"]


class PipelinedCordic(CordicComponent):
    """CORDIC processor with one pipeline stage per iteration: one result per clock.

    Stage 0 registers the pre-rotated input, the next ``R`` stages run the register steps
    (:func:`~robohw.cordic.datapath.register_steps`: the steps of
    :attr:`CordicConfig.steps <robohw.cordic.config.CordicConfig.steps>`, a step that rotates
    and normalizes cut in two), and the ``F`` finish stages
    (:func:`~robohw.cordic.datapath.finish_stages`: gain multiplication if any, rounding,
    saturation) end in the output registers. No stage holds more than one carry chain per value.

    Latency is ``1 + R + F`` cycles to the output registers and
    :data:`~robohw.hw.queue.QUEUE_LATENCY` more through the stream's output queue
    (:meth:`~robohw.hw.stream.StreamPipeline.pipeline_control`); throughput is one result per
    clock while ``o.ready`` is high. The datapath never stops: while ``o.ready`` is low its
    results wait in the queue, and ``i.ready`` falls once the queue could not take the results
    still on their way, so no sample is lost, duplicated or reordered. Only valid bits are
    reset.

    Parameters and members: see :class:`~robohw.cordic.component.CordicComponent`.
    """
    @property
    def latency(self):
        """Cycles from an input transfer to its result being valid: ``1 + R + F``
        (:func:`pipelined_latency`) and the output queue's."""
        return self.control_latency(pipelined_latency(self._config))

    @property
    def interval(self):
        """Cycles between results under continuous input: 1."""
        return 1

    def elaborate(self, platform):
        m = Module()
        advance, result = self.pipeline_control(m, pipelined_latency(self._config))
        fields = pipelined_datapath(m, self._config, self.i.payload.x, self.i.payload.y,
                                    self.i.payload.z, advance, platform=platform)
        m.d.comb += [getattr(result, name).eq(fields[name]) for name in PAYLOAD_FIELDS]
        return m


def pipelined_latency(config):
    """Register stages of :func:`pipelined_datapath`: pre-rotation, one per register step
    (:func:`~robohw.cordic.datapath.register_steps`), one per finish stage
    (:func:`~robohw.cordic.datapath.finish_stages`)."""
    return 1 + len(register_steps(config)) + len(finish_stages(config))


def pipelined_datapath(m, config, x, y, z, enable, name="cordic", sideband=None, platform=None):
    """The datapath of :class:`PipelinedCordic` inside module ``m``: operands ``x``, ``y``,
    ``z`` (port codes) enter the first register when ``enable`` is high; returns the dict of
    output fields (``x``, ``y``, ``z``, ``domain_error``, ``overflow`` and the per-port
    overflows), registered, :func:`pipelined_latency` enabled cycles later. Every stage holds
    one carry chain per value at most. Registers are reset-less. A ``sideband`` value, if given,
    travels through the same registers and comes out as ``"sideband"``. Elaborated for an
    ECP5 ``platform``, each rotation's add-or-subtract is a chain of CCU2C cells with the
    direction inside their LUTs (:func:`robohw.hw.carry_chain.add_sub`: the same bits)."""
    extra = {} if sideband is None else {"sideband": sideband}
    shapes = state_shapes(config)
    values = register_values(m, dict(zip("xyz", prerotate(config, x, y, z)), **extra), enable,
                             f"{name}_pre", shapes)
    for index, step in enumerate(register_steps(config)):
        def adder(a, b, sign, inverted, field, index=index):
            return add_sub(m, a, b, sign, platform, f"{name}_step{index}_{field}_sum",
                           inverted=inverted)
        moved = micro_step(config, values["x"], values["y"], values["z"], shift=step.shift,
                           angle=step.angle, rotate=step.shift is not None,
                           norm_shift=step.norm_shift, gamma=step.gamma, expanded=step.expanded,
                           adder=adder)
        values = register_values(m, {**values, **dict(zip("xyz", moved))}, enable,
                                 f"{name}_step{index}", shapes)
    return finish_registers(m, config, values, enable, name)


def pipelined_register_bits(config, sideband_width=0):
    """Flip-flops of :func:`pipelined_datapath`: the state registers of the pre-rotation and
    the register steps, every finish stage's values (their shapes read off the same stage
    functions) and the output registers, each stage also carrying ``sideband_width`` bits."""
    shapes = state_shapes(config)
    bits = (1 + len(register_steps(config))) * (sum(s.width for s in shapes.values())
                                                + sideband_width)
    values = {field: Signal(shape) for field, shape in shapes.items()}
    for stage in finish_stages(config):
        values = {field: Signal(Value.cast(v).shape()) for field, v in stage(values).items()}
        bits += sum(len(v) for v in values.values()) + sideband_width
    return bits
