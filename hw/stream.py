"""The stream-pipeline base every streaming design builds on.

A :class:`StreamPipeline` is a :class:`~amaranth.lib.wiring.Component` with one input stream
``i`` and one output stream ``o`` (:class:`amaranth.lib.stream.Signature`, payloads as
:class:`~amaranth.lib.data.StructLayout`), a user ``tag`` as the last field of both payloads,
carried from ``i`` to ``o`` unchanged, and its timing stated as properties: :attr:`latency`,
:attr:`interval`, :attr:`throughput`. It checks ``tag_width`` eagerly.

:meth:`StreamPipeline.pipeline_control` writes the handshake once. A pipeline that takes an
input every cycle (or every ``fold`` cycles, :meth:`StreamPipeline.fold_control`) never stops:
its results go into an output queue (:class:`~robohw.hw.queue.QueueLane`, one lane per
field), and an input is taken only while the queue has room for every result on its way
(credits), so backpressure never reaches the datapath. Each lane writes with its own copy of
the valid line's last :data:`LANE_VALID_STAGES` positions (and of ``advance``), so no control
net spans the queue. There is no
enable to distribute: on an FPGA one enable driving every register of a large pipeline was the
limiting path (the pipelined IK's, then the inertia arrays'). Only valid bits (and the queue's
pointers and credits) reset; nothing is lost, duplicated or reordered under any stall pattern.
A pipeline of word-serial stages (``period > 1``) advances in ``slots`` consecutive cycles
of every ``period`` (one input may be taken in each) and never stops either: its results go
into the same output queue.
"""

from fractions import Fraction
from math import ceil

from amaranth.hdl import Const, Mux, Shape, Signal, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from robohw.hw.checks import check_integer, check_positive_integer
from robohw.hw.delay_line import tapped_delay_line
from robohw.hw.queue import QUEUE_LATENCY, QueueLane

__all__ = ["StreamPipeline", "check_tag_width", "check_fold", "LANE_VALID_STAGES"]

# The last positions of the valid line each output-queue lane holds a copy of: a valid bit
# wired to every lane across the chip was the limiting path of the pipelined paper IK and of
# the gradient engine's 73 lanes (docs/notes/2026-12-every-design-at-100-mhz.md); two copies
# give the placer two hops to put between the shared line and each lane.
LANE_VALID_STAGES = 2


def check_tag_width(tag_width):
    """Return ``tag_width`` as an ``int`` if it is a non-negative integer
    (:func:`~robohw.hw.checks.check_integer`: ``TypeError`` or ``ValueError`` otherwise)."""
    return check_integer("tag_width", tag_width, minimum=0)


def check_fold(fold):
    """Return ``fold`` as an ``int`` if it is a positive integer
    (:func:`~robohw.hw.checks.check_integer`: ``TypeError`` or ``ValueError`` otherwise)."""
    return check_positive_integer("fold", fold)


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
        self._fold = None            # set by fold_control, for phase_copy
        self._period = None          # (period, slots), set by pipeline_control, for advance_copy
        for name, fields in (("inputs", inputs), ("outputs", outputs)):
            if "tag" in fields:
                raise ValueError(f"{name}: the field name 'tag' is reserved for the user tag")
        tag = {"tag": unsigned(self._tag_width)}
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
        of ``stages`` register stages of ``period`` cycles each: ``stages * period`` and the
        output queue's :data:`~robohw.hw.queue.QUEUE_LATENCY`."""
        return stages * period + QUEUE_LATENCY

    @classmethod
    def queue_depth(cls, stages, interval=1, *, period=1, slots=1):
        """Entries of the output queue of :meth:`pipeline_control`: the results of the inputs
        taken within one latency and one more, so a credit is free in every cycle an input
        may be taken while ``o.ready`` stays high (a result's credit comes back in the cycle
        after it leaves): ``ceil(latency / interval) + 1``, or with ``period > 1``,
        ``slots`` inputs a period, ``slots * (ceil(latency / period) + 1)``."""
        latency = cls.control_latency(stages, period)
        if period > 1:
            return slots * (ceil(latency / period) + 1)
        return ceil(latency / interval) + 1

    def control_register_bits(self, stages, period=1, fold=1, slots=1):
        """Flip-flops :meth:`pipeline_control` adds for ``stages`` stages: the valid and tag
        delay lines (``slots`` positions a stage; the valid line's last
        :data:`LANE_VALID_STAGES` positions once for each queue lane), the credits and each
        queue lane's pointers and valid bit (its entries are a memory); with ``period > 1``
        phase counters and registered advances (the design's, the input's and each lane's,
        :meth:`advance_copy`); with ``fold > 1`` (:meth:`fold_control`) the ring of
        phases."""
        positions = stages * slots
        lanes = sum(1 for _, spec in self.o.payload.shape() if spec.width)
        own = min(LANE_VALID_STAGES, positions)
        lines = (positions - own + lanes * own + positions * self.tag_width
                 + (fold if fold > 1 else 0))
        if period > 1:
            lines += (2 + lanes) * (_bits(range(period)) + 1)
        depth = self.queue_depth(stages, fold, period=period, slots=slots)
        # the credits and the room flag; each lane's pointers and valid bit
        return (lines + _bits(range(depth + 1)) + 1
                + lanes * QueueLane.pointer_bits(depth))

    def pipeline_control(self, m, stages, *, period=1, slots=1):
        """The handshake of a pipeline of ``stages`` register stages that move together.

        Drives ``i.ready``, ``o.valid`` and ``o.payload`` and returns ``(advance, result)``:
        ``advance`` is the enable of every stage; ``result`` is a payload view the design
        drives with its last stage's outputs (every field but the tag, which travels the
        ``stages`` beside the data with each input's valid bit).

        The pipeline never stops: its results go through an output queue of
        :meth:`queue_depth` entries and an input is taken only while a credit (an entry no
        result on its way will need) is free. With ``period`` 1 it moves in every cycle
        (``advance`` is the constant 1). With ``period > 1`` (a stage of word-serial units)
        ``advance`` is a register, high in the last ``slots`` cycles of every ``period``
        (:meth:`advance_copy` gives the parts of a large design copies of it); each of those
        cycles takes an input or a bubble, so every stage holds ``slots`` positions of the
        delay lines, and ``result`` is read in them. The latency is :meth:`control_latency`.
        """
        if period == 1:
            return Const(1), self._queue_control(m, stages, Const(1), self.queue_depth(stages))
        check_integer("slots", slots, minimum=1, maximum=period - 1)
        self._period = (period, slots)
        advance = self.advance_copy(m, "advance")
        # i.ready's own copy, beside the credits (the shared one was 6.7 ns of routing away).
        accept = self.advance_copy(m, "accept")
        depth = self.queue_depth(stages, period=period, slots=slots)
        return advance, self._queue_control(
            m, stages * slots, accept, depth, advance,
            lane_advance=lambda name: self.advance_copy(m, name))

    def advance_copy(self, m, name):
        """A copy of the ``advance`` of :meth:`pipeline_control` with ``period > 1``, equal to
        it in every cycle, for one part of a large design (a word-serial unit, a delay line):
        a phase counter of its own and a register decoding it a cycle ahead, so no net
        reaches every part (see :meth:`phase_copy` on why copies stay copies)."""
        if self._period is None:
            raise ValueError("advance_copy needs pipeline_control with a period first")
        period, slots = self._period
        phase = Signal(range(period), name=f"{name}_phase")
        upcoming = Mux(phase == period - 1, 0, phase + 1)
        advance = Signal(name=name)
        m.d.sync += [phase.eq(upcoming), advance.eq(upcoming >= period - slots)]
        return advance

    def fold_control(self, m, stages, fold):
        """:meth:`pipeline_control` for a datapath folded by ``fold``: each register takes a
        new value once every ``fold`` cycles, in its own phase, so functional units can serve
        ``fold`` operations each. Returns ``(advance, result, phases)``: ``phases[p]`` is
        high in phase ``p`` (a one-hot ring of registers that turns every cycle; an input is
        taken in phase 0). The latency is :meth:`control_latency` of ``stages``; one result
        every ``fold`` cycles at most.
        """
        self._fold = check_fold(fold)
        phases = self.phase_copy(m, "phase")
        return Const(1), self.interval_control(m, stages, fold, phases[0]), phases

    def interval_control(self, m, stages, interval, accept):
        """:meth:`pipeline_control` for a datapath that never stops and takes an input only
        in the cycles ``accept`` is high, at most one every ``interval`` cycles (a
        modulo-scheduled machine's first cycle of each interval). Returns ``result``, the
        payload view the design drives with its outputs ``stages`` cycles after each input's
        transfer; the latency is :meth:`control_latency` of ``stages``."""
        check_positive_integer("interval", interval)
        return self._queue_control(m, stages, accept, self.queue_depth(stages, interval))

    def phase_copy(self, m, name):
        """A copy of the phase ring of :meth:`fold_control` for one part of a folded datapath
        (a processor, a shared multiplier), equal to the original in every cycle: one ring
        driving every multiplexer's select of a large array is a net across the chip. Each
        ring reads only its own bits, so no synthesis tool merges two of them (Yosys merges
        flip-flops only when their inputs are the same nets)."""
        if self._fold is None:
            raise ValueError("phase_copy needs fold_control first")
        phases = [Signal(init=int(p == 0), name=f"{name}{p}") for p in range(self._fold)]
        if len(phases) > 1:
            m.d.sync += [phases[p].eq(phases[p - 1]) for p in range(len(phases))]
        return phases

    def phase_index_copy(self, m, name):
        """The phase of :meth:`fold_control` as a binary count, ``Signal(range(fold))``, equal
        in every cycle to the index of the ring's high bit: the select of a multiplexer by
        phase. On a one-hot ring a ``Switch`` compares every bit of the ring in each case (two
        LUT levels and a net from the ring to every operand bit); a binary select drives the
        ECP5's wide multiplexers directly."""
        if self._fold is None:
            raise ValueError("phase_index_copy needs fold_control first")
        index = Signal(range(self._fold), name=name)
        m.d.sync += index.eq(Mux(index == self._fold - 1, 0, index + 1))
        return index

    def _queue_control(self, m, stages, accept, depth, advance=Const(1), lane_advance=None):
        # `stages` positions of the valid and tag lines, moving with `advance`; each lane
        # writes with its own copy of the valid line's last positions (and, for a word-serial
        # pipeline, `lane_advance(name)`: its own copy of `advance`).
        layout = self.o.payload.shape()
        credits = Signal(range(depth + 1), init=depth)
        room = Signal(init=1)                    # registered: credits != 0
        m.d.comb += self.i.ready.eq(room & accept)
        taken = self.i.valid & self.i.ready
        own = min(LANE_VALID_STAGES, stages)
        shared = tapped_delay_line(m, taken, [stages - own], advance, "valid",
                                   reset_less=False)[stages - own]
        tag = tapped_delay_line(m, self.i.payload.tag, [stages], advance, "tag")[stages]
        result = Signal(layout)
        m.d.comb += result.tag.eq(tag)
        # One lane per field (see robohw.hw.queue): all lanes take the same writes and reads,
        # so they hold the same entries and any one's valid bit is the stream's.
        valids = []
        for field, spec in layout:
            if not spec.width:
                continue
            lane = m.submodules[f"out_queue_{field}"] = QueueLane(spec.shape, depth)
            moves = advance if lane_advance is None else lane_advance(f"advance_{field}")
            valid = _kept_line(m, shared, own, moves, f"valid_{field}") & moves
            m.d.comb += [lane.w_data.eq(getattr(result, field)), lane.w_en.eq(valid),
                         getattr(self.o.payload, field).eq(lane.r_data),
                         lane.r_ready.eq(self.o.ready)]
            valids.append(lane.r_valid)
        m.d.comb += self.o.valid.eq(valids[0])
        pop = self.o.valid & self.o.ready
        m.d.sync += credits.eq(credits - taken + pop)
        # Whether a credit is free next cycle, from comparisons of the count with constants,
        # not from the sum (a carry chain and a comparison in one cycle: 6.5 ns, the 16-bit
        # CORDIC's limiting path): none is unless one comes back, or the last one is taken.
        m.d.sync += room.eq(pop | (credits.any() & ~((credits == 1) & taken)))
        return result


def _kept_line(m, value, stages, enable, name):
    # `value` delayed by `stages` enabled cycles through registers marked `keep`: every lane's
    # line has the same input, and Yosys would merge them into one (robohw.flows.synth keeps
    # the flip-flops of `keep` wires).
    for k in range(1, stages + 1):
        register = Signal(name=f"{name}_d{k}", attrs={"keep": 1})
        with m.If(enable):
            m.d.sync += register.eq(value)
        value = register
    return value


def _bits(values):
    return Shape.cast(values).width
