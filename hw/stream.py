"""The stream-pipeline base every streaming design builds on.

A :class:`StreamPipeline` is a :class:`~amaranth.lib.wiring.Component` with one input stream
``i`` and one output stream ``o`` (:class:`amaranth.lib.stream.Signature`, payloads as
:class:`~amaranth.lib.data.StructLayout`), a user ``tag`` as the last field of both payloads,
carried from ``i`` to ``o`` unchanged, and its timing stated as properties: :attr:`latency`,
:attr:`interval`, :attr:`throughput`. It checks ``tag_width`` eagerly.

For a pipeline that moves as a whole (every register stage on one enable),
:meth:`StreamPipeline.pipeline_control` writes the handshake once: the enable (a register, so
it reaches every stage straight from a flip-flop), the valid bits (the only registers that
reset), the tag delayed by the pipeline's depth and a small output buffer. The pipeline holds
while results wait at ``o`` (``o.valid`` high, ``o.ready`` low): nothing is lost, duplicated or
reordered under any stall pattern.
"""

from fractions import Fraction

from amaranth.hdl import Array, Cat, Mux, Shape, Signal, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from robohw.hw.delay_line import tapped_delay_line

__all__ = ["StreamPipeline", "check_tag_width", "check_fold", "OUTPUT_BUFFER"]

# Entries of the output buffer behind a registered enable: the pipeline may deliver a result in
# the cycle after it stops and one more is on its way (see StreamPipeline.pipeline_control).
OUTPUT_BUFFER = 3


def check_tag_width(tag_width):
    """Return ``tag_width`` if it is a non-negative integer; raise ``ValueError`` otherwise."""
    if not isinstance(tag_width, int) or isinstance(tag_width, bool) or tag_width < 0:
        raise ValueError(f"tag_width must be a non-negative integer, not {tag_width!r}")
    return tag_width


def check_fold(fold):
    """Return ``fold`` if it is a positive integer; raise ``ValueError`` otherwise."""
    if not isinstance(fold, int) or isinstance(fold, bool) or fold < 1:
        raise ValueError(f"fold must be a positive integer, not {fold!r}")
    return fold


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
        self._buffer_state = None    # the output buffer's signals, for enable_copy
        self._fold = None            # set by fold_control, for fold_copy
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

    @staticmethod
    def control_latency(stages, period=1):
        """Cycles from an input transfer to its result at ``o`` under :meth:`pipeline_control`
        of ``stages`` register stages: ``stages + 1`` (the output buffer) with ``period`` 1,
        ``stages * period`` otherwise."""
        return stages + 1 if period == 1 else stages * period

    def control_register_bits(self, stages, period=1, fold=1):
        """Flip-flops :meth:`pipeline_control` adds for ``stages`` stages: the valid and tag
        delay lines and, with ``period`` 1, the output buffer (:data:`OUTPUT_BUFFER` payloads,
        the tag included, in one lane per field) with its count, pointers, registered enable and
        moved bit and each lane's copies of them; with
        ``period > 1`` the phase counter; with ``fold > 1`` (:meth:`fold_control`) the ring of
        phases."""
        lines = stages * (1 + self.tag_width) + (fold if fold > 1 else 0)
        if period > 1:
            return lines + Shape.cast(range(period)).width
        pointer = Shape.cast(range(OUTPUT_BUFFER)).width
        layout = self.o.payload.shape()
        lanes = sum(1 for _, spec in layout if spec.width)
        # the count, the read pointer, the enable and moved bit; per lane its enable copy,
        # moved bit and write pointer
        return (lines + OUTPUT_BUFFER * layout.size + Shape.cast(range(OUTPUT_BUFFER + 1)).width
                + pointer + 2 + lanes * (2 + pointer))

    def pipeline_control(self, m, stages, *, period=1, accept=None):
        """The handshake of a pipeline of ``stages`` register stages that move together.

        Drives ``i.ready``, ``o.valid`` and ``o.payload`` and returns ``(advance, result)``:
        ``advance`` is the enable of every stage; ``result`` is a payload view the design
        drives with its last stage's outputs (every field but the tag, which travels the
        ``stages`` beside the data with each input's valid bit).

        With ``period`` 1 ``advance`` is a register, so the enable of every stage comes straight
        from a flip-flop, not from ``o.ready`` through logic: the results go through an output
        buffer of :data:`OUTPUT_BUFFER` entries (one more cycle of latency) that takes the
        result or two the pipeline still delivers after ``o.ready`` falls. With ``period > 1``
        the pipeline advances at most once every ``period`` cycles (a stage of word-serial
        units), ``o.valid`` shows in the last cycle of a period and ``result`` is ``o.payload``.
        The latency is :meth:`control_latency`.

        ``accept`` (period 1 only), when given, is a signal that says in which cycles the
        pipeline may take an input: a folded datapath (:meth:`fold_control`) takes one every
        ``fold`` cycles.
        """
        if period > 1:
            if accept is not None:
                raise ValueError("accept is for a pipeline that moves every cycle (period 1)")
            return self._period_control(m, stages, period), self.o.payload
        layout = self.o.payload.shape()
        advance = Signal(init=1)                 # registered: may the pipeline move?
        taken = self.i.valid if accept is None else self.i.valid & accept
        valid = tapped_delay_line(m, taken, [stages], advance, "valid",
                                  reset_less=False)[stages]
        tag = tapped_delay_line(m, self.i.payload.tag, [stages], advance, "tag")[stages]
        result = Signal(layout)
        m.d.comb += [self.i.ready.eq(advance if accept is None else advance & accept),
                     result.tag.eq(tag)]
        # The last stage holds a result not yet buffered when it moved in the previous cycle.
        moved = Signal()
        m.d.sync += moved.eq(advance)
        count = Signal(range(OUTPUT_BUFFER + 1))
        head = Signal(range(OUTPUT_BUFFER))
        push = moved & valid
        pop = self.o.valid & self.o.ready
        m.d.comb += self.o.valid.eq(count != 0)
        with m.If(pop):
            m.d.sync += head.eq(_next_pointer(head))
        self._buffer_state = (pop, push, count)
        _next_enable(m, advance, pop, push, count, count_next=True)
        # One lane of the buffer per payload field, each written under its own copy of the
        # enable, moved bit and write pointer: a wide payload (the inertia arrays' 21
        # entries) on one write enable was a net of a thousand loads across the chip.
        for field, spec in layout:
            if not spec.width:
                continue
            name = f"out_buffer_{field}"
            moved_here = Signal(name=f"{name}_moved")
            m.d.sync += moved_here.eq(self.enable_copy(m, f"{name}_advance"))
            tail = Signal(range(OUTPUT_BUFFER), name=f"{name}_tail")
            entries = [Signal(spec.shape, name=f"{name}{k}", reset_less=True)
                       for k in range(OUTPUT_BUFFER)]
            m.d.comb += getattr(self.o.payload, field).eq(Array(entries)[head])
            with m.If(moved_here & valid):
                m.d.sync += [Array(entries)[tail].eq(getattr(result, field)),
                             tail.eq(_next_pointer(tail))]
        return advance, result

    def enable_copy(self, m, name):
        """A copy of the enable :meth:`pipeline_control` (period 1) returned, equal to it in
        every cycle, for one part of the datapath: one flip-flop driving every stage's enable
        is a net of tens of thousands of loads (the pipelined IK's limiting path).

        The copy computes its next value from its own present value, not the original's, so
        no synthesis tool merges it with the original (Yosys merges flip-flops only when
        their inputs are the same nets); both start at 1 and follow the same function of the
        output buffer's state, so they never differ."""
        if self._buffer_state is None:
            raise ValueError("enable_copy needs pipeline_control with period 1 first")
        copy = Signal(init=1, name=name)
        _next_enable(m, copy, *self._buffer_state)
        return copy

    def fold_control(self, m, stages, fold):
        """:meth:`pipeline_control` for a datapath folded by ``fold``: its registers move on one
        enable but each takes a new value once every ``fold`` cycles, in its own phase, so
        functional units can serve ``fold`` operations each. Returns ``(advance, result,
        phases)``: ``phases[p]`` is high in phase ``p`` (a one-hot ring of registers that turns
        with ``advance``; an input is taken in phase 0). The latency is
        :meth:`control_latency` of ``stages``; one result every ``fold`` cycles at most.
        """
        self._fold = check_fold(fold)
        phases = [Signal(init=int(p == 0), name=f"phase{p}") for p in range(fold)]
        advance, result = self.pipeline_control(m, stages, accept=phases[0])
        _turn(m, phases, advance)
        return advance, result, phases

    def fold_copy(self, m, name):
        """A copy of the enable and the phase ring of :meth:`fold_control` for one part of a
        folded datapath (a processor, a shared multiplier): ``(advance, phases)``, equal to
        the originals in every cycle (see :meth:`enable_copy`; the ring turns with its own
        enable and reads its own bits, so it is not merged either)."""
        if self._fold is None:
            raise ValueError("fold_copy needs fold_control first")
        advance = self.enable_copy(m, f"{name}_advance")
        phases = [Signal(init=int(p == 0), name=f"{name}_phase{p}") for p in range(self._fold)]
        _turn(m, phases, advance)
        return advance, phases

    def _period_control(self, m, stages, period):
        valid_out = Signal()
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


def _next_enable(m, enable, pop, push, count, *, count_next=False):
    # The next count, and whether to move next cycle: moving now may deliver one result next
    # cycle and one moved last cycle may still be on its way, so stop while the buffer could
    # not take both. Written as a table of the five bits it depends on, so it is a few LUTs,
    # not small adders and a comparison.
    with m.Switch(Cat(pop, push, enable, count)):
        for code in range(1 << (3 + len(count))):
            before, moving = code >> 3, (code >> 2) & 1
            after = before + ((code >> 1) & 1) - (code & 1)
            if not 0 <= after <= OUTPUT_BUFFER:
                continue                     # cannot happen: pop needs an entry, push room
            with m.Case(code):
                m.d.sync += enable.eq(after + moving <= OUTPUT_BUFFER - 1)
                if count_next:
                    m.d.sync += count.eq(after)


def _turn(m, phases, enable):
    # The one-hot phase ring moves one place when the pipeline does.
    if len(phases) > 1:
        with m.If(enable):
            m.d.sync += [phases[p].eq(phases[p - 1]) for p in range(len(phases))]


def _next_pointer(pointer):
    return Mux(pointer == OUTPUT_BUFFER - 1, 0, pointer + 1)
