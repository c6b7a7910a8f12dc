"""Forward kinematics in a servo loop: the Newton iterations of :func:`robohw.legs.fk_graph.
fk_graph` on the task-graph pipeline, each row of measured lengths starting from the previous
row's pose (the first from the platform's home pose), as a controller sampling its leg
sensors does.

One row at a time: a row's guess is the answer before it, so the pipeline holds one row and a
new row is taken in the cycle after the previous result leaves (:attr:`FkServo.interval`). A
row the iterations cannot solve (``unreachable``: a step beyond the linear CCMs' range, a
pivot below its minimum, a value beyond the format) leaves the estimate where it was. After
the iterations the legs' lengths of the pose found are computed once more: a row whose legs
are more than :data:`SERVO_RESIDUAL_LSB` LSBs from the measured lengths did not converge
(``unconverged``); its answer is no result, but it is the next row's start (a loop that
starts away from home converges over its first rows). :func:`servo_model` is the bit-exact
model.
"""

import numpy as np
from amaranth.hdl import Cat, Module, Signal, signed

from robohw.hw.checks import check_choice
from robohw.hw.fixed import FixedFormat
from robohw.hw.stream import StreamPipeline
from robohw.legs.fk_graph import fk_format, fk_graph
from robohw.legs.ik_graph import angle_fields
from robohw.legs.leg_machine import LegMachine
from robohw.taskgraph.model import evaluate_model, output_codes
from robohw.taskgraph.pipeline import TaskGraphPipeline

__all__ = ["FkServo", "servo_model", "servo_graph", "converged", "home_codes",
           "SERVO_ITERATIONS", "SERVO_TIMINGS", "SERVO_RESIDUAL_LSB"]

# Newton steps a row by default. Along a 1 kHz trajectory (moves of up to 1 mm a row) at 24
# bits, one left the hexapod within 1.05 um and the planar platform within 1.37 um (Newton's
# error of the move), two within 1 um and 1e-5 rad (tests/legs/test_platform_fk.py).
SERVO_ITERATIONS = 2

# A row is solved when the legs of its pose come within this many port LSBs of the measured
# lengths (the graph computes them once more: robohw.legs.fk_graph). Measured at 24 bits with
# two iterations, 300 rows each: along 1 kHz trajectories every residual stayed within 0.3 LSB
# on both platforms; on random workspace poses every row more than 10 um off had one of 19
# LSBs (hexapod) or 51 (planar) or more.
SERVO_RESIDUAL_LSB = 4

# The designs a servo loop runs its iterations on: the task-graph pipeline's two timings and
# Gosselin's machine.
SERVO_TIMINGS = ("pipelined", "word_serial", "machine")



def servo_graph(platform, iterations):
    """The servo loop's graph: :func:`~robohw.legs.fk_graph.fk_graph` with the legs' residuals
    at the pose found."""
    return fk_graph(platform, iterations, residuals=True)


def converged(residuals):
    """Whether every leg's residual code (``{residual{i}: codes}`` or signals) is within
    :data:`SERVO_RESIDUAL_LSB`: numpy booleans for codes, an Amaranth value for signals."""
    values = list(residuals.values())
    if isinstance(values[0], np.ndarray) or np.isscalar(values[0]):
        return np.logical_and.reduce([np.abs(v) <= SERVO_RESIDUAL_LSB for v in values])
    return Cat(*[(v <= SERVO_RESIDUAL_LSB) & (v >= -SERVO_RESIDUAL_LSB) for v in values]).all()


def home_codes(platform, width):
    """``{field: code}`` of the platform's home pose at ``width``-bit ports of
    :func:`~robohw.legs.fk_graph.fk_format`: the position in metres, the angles in turns."""
    real = FixedFormat(width, fk_format(platform, width)["frac_bits"])
    angles = angle_fields(platform)
    return {f: int(real.from_float(v / (2 * np.pi) if f in angles else v))
            for f, v in zip(platform.pose_fields, platform.home)}


class FkServo(StreamPipeline):
    """Forward kinematics of ``platform`` by ``iterations`` Newton steps a row, each row from
    the previous answer.

    Parameters
    ----------
    platform : :class:`~robohw.robots.platform.Platform`
    iterations : int
        Newton steps a row (:func:`~robohw.legs.fk_graph.fk_graph`).
    width : int
        Port width; formats of :func:`~robohw.legs.fk_graph.fk_format`.
    timing : ``"pipelined"``, ``"word_serial"`` or ``"machine"``
        The iterations on pipelined CCMs (default), on word-serial ones (the pipeline takes
        a row only in the last two cycles of its stage period: see :attr:`interval`) or on
        Gosselin's machine (:class:`~robohw.legs.leg_machine.LegMachine`: the legs'
        kinematics on their processors, the solve and the pose update on the platform
        processor).
    tag_width : int
        See :class:`~robohw.hw.stream.StreamPipeline`.

    Members
    -------
    i : stream of ``rho_m1 .. rho_mN`` (m, ``signed(width)`` codes) and ``tag``
    o : stream of the pose fields (metres; the angles in turns), ``unreachable``,
        ``unconverged`` (see the module docstring) and ``tag``

    Latency is the inner design's, and a row is taken in the cycle after the previous result
    leaves (word-serial: in the first cycle after it that the pipeline takes a row in), so
    the interval is the latency plus one (:attr:`interval`).
    """
    def __init__(self, platform, iterations=1, *, width=24, timing="pipelined", tag_width=0):
        check_choice("timing", timing, SERVO_TIMINGS)
        graph = servo_graph(platform, iterations)
        if timing == "machine":
            self._inner = LegMachine(graph, **fk_format(platform, width), tag_width=tag_width)
        else:
            self._inner = TaskGraphPipeline(graph, **fk_format(platform, width),
                                            tag_width=tag_width, timing=timing)
        self._home = home_codes(platform, width)
        lengths = [n for n in graph.inputs if n.startswith("rho_m")]
        self._residuals = [n for n in graph.outputs if n.startswith("residual")]
        outputs = {n: signed(width) for n in graph.outputs if n not in self._residuals}
        outputs["unreachable"] = 1
        outputs["unconverged"] = 1
        super().__init__({n: signed(width) for n in lengths}, outputs, tag_width=tag_width)

    @property
    def pipeline(self):
        """The design of the iterations: a :class:`~robohw.taskgraph.pipeline.TaskGraphPipeline` or
        a :class:`~robohw.legs.leg_machine.LegMachine`."""
        return self._inner

    @property
    def latency(self):
        """The pipeline's: cycles from a row's input transfer to its pose at ``o``."""
        return self._inner.latency

    @property
    def interval(self):
        """Cycles a row with the sink always ready: the latency and the cycle in which the
        loop closes (the result leaves, the estimate takes it). Word-serial, the next row then
        waits for a cycle the pipeline takes rows in, the last ``S`` of every period ``P``;
        with ``a = (latency + 1) mod P`` and ``S <= 2``, the rows settle into taking
        ``latency + 1 + (P - a) mod P`` cycles each, except for ``a = 1`` with ``S = 2``
        (alternately ``latency + 1`` and ``latency + P - 1``, whose mean is given). That closed
        form fails for larger ``S``, so the phases are followed, which holds for any ``S``."""
        latency = self._inner.latency
        if not isinstance(self._inner, TaskGraphPipeline) or self._inner.plan.period == 1:
            return latency + 1
        period, slots = self._inner.plan.period, self._inner.plan.slots
        accepts = range(period - slots, period)
        # The phases rows are taken in, from each possible first one: the longest mean of two
        # consecutive rows once settled (as robohw.sim.measure.measure_timing measures).
        worst = 0
        for first in accepts:
            phase, gaps = first, []
            for _ in range(2 * period + 4):
                ready = (phase + latency + 1) % period
                wait = next(w for w in range(period) if (ready + w) % period in accepts)
                gaps.append(latency + 1 + wait)
                phase = (ready + wait) % period
            settled = gaps[-4:]
            worst = max(worst, *((a + b) / 2 for a, b in zip(settled, settled[1:])))
        return int(worst) if worst == int(worst) else worst

    def elaborate(self, platform):
        m = Module()
        m.submodules.iterations = inner = self._inner
        busy = Signal()           # a row is inside: the next one waits for its answer
        estimate = {f: Signal(signed(self._inner.width), init=code, name=f"estimate_{f}")
                    for f, code in self._home.items()}
        m.d.comb += [
            inner.i.valid.eq(self.i.valid & ~busy),
            self.i.ready.eq(inner.i.ready & ~busy),
            inner.i.payload.tag.eq(self.i.payload.tag),
            self.o.valid.eq(inner.o.valid),
            inner.o.ready.eq(self.o.ready),
            self.o.payload.unconverged.eq(~converged(
                {n: getattr(inner.o.payload, n) for n in self._residuals})),
        ]
        for name, _ in self.o.payload.shape():
            if name != "unconverged":
                m.d.comb += getattr(self.o.payload, name).eq(getattr(inner.o.payload, name))
        for name, _ in self.i.payload.shape():
            if name != "tag":
                m.d.comb += getattr(inner.i.payload, name).eq(getattr(self.i.payload, name))
        for field, value in estimate.items():
            m.d.comb += getattr(inner.i.payload, field).eq(value)
        with m.If(self.i.valid & self.i.ready):
            m.d.sync += busy.eq(1)
        with m.If(inner.o.valid & inner.o.ready):
            m.d.sync += busy.eq(0)
        # The answer is the estimate from the cycle it is offered (it holds until it leaves,
        # and the next row waits for that): no path from the sink's ready to the estimate.
        with m.If(inner.o.valid & ~inner.o.payload.unreachable):
            m.d.sync += [value.eq(getattr(inner.o.payload, field))
                         for field, value in estimate.items()]
        return m


def servo_model(platform, iterations, lengths, *, width=24, on_row=None):
    """The bit-exact model of :class:`FkServo`: ``(codes, valid)`` for the rows of
    ``lengths`` ``(N, legs)`` (m, rounded to the port format; ``OverflowError`` outside it),
    ``codes`` ``{field: int64 (N,)}`` of the answers (an invalid row's too, as the hardware
    gives them) and ``valid`` ``(N,)``: neither unreachable nor unconverged. Row by row: each
    starts from the previous answer that was not unreachable, the first from home.
    ``lengths`` ``(K, N, legs)`` runs ``K`` servo loops side by side (``(K, N)`` results), at
    the cost of one: a row of all of them is one evaluation.
    ``on_row``: called with the rows done after each (a hexapod's row takes about 0.35 s an
    iteration)."""
    graph = servo_graph(platform, iterations)
    formats = fk_format(platform, width)
    real = FixedFormat(width, formats["frac_bits"])
    lengths = np.asarray(lengths, dtype=np.float64)
    loops = lengths if lengths.ndim == 3 else lengths[None]
    count, rows = loops.shape[:2]
    estimate = {f: np.full(count, code, dtype=np.int64)
                for f, code in home_codes(platform, width).items()}
    fields = list(platform.pose_fields)
    codes = {f: np.zeros((count, rows), dtype=np.int64) for f in fields}
    valid = np.zeros((count, rows), dtype=bool)
    for row in range(rows):
        inputs = {f"rho_m{i + 1}": loops[:, row, i] for i in range(loops.shape[2])}
        inputs.update({f: real.to_float(c) for f, c in estimate.items()})
        _, ok, values = evaluate_model(graph, inputs, **formats)
        answer = output_codes(graph, values, width, formats["guard_bits"])
        valid[:, row] = ok & converged({n: answer[n] for n in graph.outputs
                                        if n.startswith("residual")})
        for f in fields:
            codes[f][:, row] = answer[f]
            estimate[f] = np.where(ok, answer[f], estimate[f])
        if on_row is not None:
            on_row(row + 1)
    if lengths.ndim == 3:
        return codes, valid
    return {f: c[0] for f, c in codes.items()}, valid[0]
