"""The stream-pipeline base every streaming design builds on.

A :class:`StreamPipeline` is a :class:`~amaranth.lib.wiring.Component` with one input stream
``i`` and one output stream ``o`` (:class:`amaranth.lib.stream.Signature`, payloads as
:class:`~amaranth.lib.data.StructLayout`), a user ``tag`` as the last field of both payloads,
carried from ``i`` to ``o`` unchanged, and its timing stated as properties: :attr:`latency`,
:attr:`interval`, :attr:`throughput`. It checks ``tag_width`` eagerly.

For a pipeline that moves as a whole (every register stage on one enable),
:meth:`StreamPipeline.pipeline_control` writes the handshake once: the enable, the valid bits
(the only registers that reset) and the tag, delayed by the pipeline's depth. The pipeline
holds while a result waits at ``o`` (``o.valid`` high, ``o.ready`` low): nothing is lost,
duplicated or reordered under any stall pattern.
"""

from fractions import Fraction

from amaranth.hdl import Signal, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from robohw.hw.delay_line import tapped_delay_line

__all__ = ["StreamPipeline", "check_tag_width"]


def check_tag_width(tag_width):
    """Return ``tag_width`` if it is a non-negative integer; raise ``ValueError`` otherwise."""
    if not isinstance(tag_width, int) or isinstance(tag_width, bool) or tag_width < 0:
        raise ValueError(f"tag_width must be a non-negative integer, not {tag_width!r}")
    return tag_width


class StreamPipeline(wiring.Component):
    """Base of every streaming design.

    Parameters
    ----------
    inputs, outputs : dict of str to shape
        Payload fields of ``i`` and of ``o``, in order, without the tag.
    tag_width : int
        Width of the user tag carried from ``i`` to ``o`` unchanged (0: none).

    Members
    -------
    i : ``In(stream.Signature(StructLayout({**inputs, "tag": unsigned(tag_width)})))``
    o : ``Out(stream.Signature(StructLayout({**outputs, "tag": unsigned(tag_width)})))``

    Subclasses state :attr:`latency` and :attr:`interval`.
    """
    def __init__(self, inputs, outputs, *, tag_width=0):
        self._tag_width = check_tag_width(tag_width)
        for name, fields in (("inputs", inputs), ("outputs", outputs)):
            if "tag" in fields:
                raise ValueError(f"{name}: the field name 'tag' is reserved for the user tag")
        tag = {"tag": unsigned(tag_width)}
        super().__init__({
            "i": In(stream.Signature(data.StructLayout({**inputs, **tag}))),
            "o": Out(stream.Signature(data.StructLayout({**outputs, **tag}))),
        })

    @property
    def tag_width(self):
        return self._tag_width

    @property
    def latency(self):
        """Cycles from an input transfer to its result being valid."""
        raise NotImplementedError

    @property
    def interval(self):
        """Cycles between results under continuous input."""
        raise NotImplementedError

    @property
    def throughput(self):
        """Results per cycle, ``1 / interval``."""
        return Fraction(1, self.interval)

    def pipeline_control(self, m, stages, *, period=1):
        """The handshake of a pipeline of ``stages`` register stages that move together.

        Drives ``i.ready``, ``o.valid`` and ``o.payload.tag`` and returns ``advance``, the
        enable of every stage: the valid bit and the tag of each input travel ``stages``
        advances, beside its data. With ``period > 1`` the pipeline advances at most once every
        ``period`` cycles (a stage of word-serial units), and ``o.valid`` shows in the last
        cycle of a period. The latency is then ``stages * period`` cycles.
        """
        valid_out = Signal()
        if period == 1:
            advance = ~valid_out | self.o.ready
            m.d.comb += self.o.valid.eq(valid_out)
        else:
            # One stage every period cycles; the boundary waits while a result is not taken.
            phase = Signal(range(period))
            last = phase == period - 1
            advance = last & (~valid_out | self.o.ready)
            with m.If(advance):
                m.d.sync += phase.eq(0)
            with m.Elif(~last):
                m.d.sync += phase.eq(phase + 1)
            m.d.comb += self.o.valid.eq(valid_out & last)
        m.d.comb += self.i.ready.eq(advance)
        valid = tapped_delay_line(m, self.i.valid, [stages], advance, "valid",
                                  reset_less=False)[stages]
        tag = tapped_delay_line(m, self.i.payload.tag, [stages], advance, "tag")[stages]
        m.d.comb += [valid_out.eq(valid), self.o.payload.tag.eq(tag)]
        return advance
