"""A small stream pipeline for the board's tests: ``y = 3 x - z`` and ``z``'s sign after two
stages, a tag of a byte (a board's)."""

from amaranth.hdl import Module, Signal, signed, unsigned

from robohw.hw.stream import StreamPipeline


def affine(state):
    """What :class:`AffineDesign` gives for ``state`` (``{"x", "z"}`` codes)."""
    return {"y": 3 * state["x"] - state["z"], "negative": int(state["z"] < 0)}


class AffineDesign(StreamPipeline):
    """``y = 3 x - z`` and ``z``'s sign after two stages, a tag of 8 bits."""

    def __init__(self):
        super().__init__({"x": signed(12), "z": signed(20)},
                         {"y": signed(22), "negative": unsigned(1)}, tag_width=8)

    @property
    def latency(self):
        return self.control_latency(2)

    @property
    def interval(self):
        return 1

    def elaborate(self, platform):
        m = Module()
        _, result = self.pipeline_control(m, 2)
        first = Signal(signed(22))
        negative = Signal()
        m.d.sync += [first.eq(3 * self.i.payload.x - self.i.payload.z),
                     negative.eq(self.i.payload.z < 0)]
        y, n = Signal(signed(22)), Signal()
        m.d.sync += [y.eq(first), n.eq(negative)]
        m.d.comb += [result.y.eq(y), result.negative.eq(n)]
        return m
