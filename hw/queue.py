"""One lane of a stream pipeline's output queue: a circular buffer that never refuses a write.

A stream pipeline that never stops (:meth:`robohw.hw.stream.StreamPipeline.pipeline_control`)
writes each result into its output queue, one lane per payload field, and takes an input only
while the queue has room for every result on its way, so a lane needs no full flag: the
writer's credits are its flow control. Each lane has its own pointers and valid bit, so no
control net spans a wide payload (a 386-bit queue with one set of pointers was the folded
inertia array's limiting path: 10.5 ns, 9.5 of it routing, on an ECP5-85F).
"""

from amaranth.hdl import Module, Mux, Shape, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from robohw.hw.checks import check_integer

__all__ = ["QueueLane", "QUEUE_LATENCY"]

# Cycles from a write into an empty lane to its value at r_data with r_valid: the memory write,
# then the read into the read port's register.
QUEUE_LATENCY = 2


class QueueLane(wiring.Component):
    """A first-in, first-out lane of ``depth`` entries of ``shape``, its output registered.

    Parameters
    ----------
    shape : shape
        Width of an entry.
    depth : int
        Entries it holds, the one at ``r_data`` included (at least 2). The writer guarantees
        that no more are ever in it (a write into a full lane is lost).

    Members
    -------
    w_data : ``In(shape)``
    w_en : ``In(1)``
        Write ``w_data`` in this cycle.
    r_data : ``Out(shape)``
        The oldest entry, while ``r_valid`` is high: the read port's register.
    r_valid : ``Out(1)``
    r_ready : ``In(1)``
        The entry at ``r_data`` is taken in a cycle where ``r_valid`` and ``r_ready`` are high.

    Latency :data:`QUEUE_LATENCY` cycles from a write into an empty lane to ``r_valid``; one
    entry in and one out per cycle. Only the pointers and ``r_valid`` reset.
    """
    def __init__(self, shape, depth):
        check_integer("depth", depth, minimum=2)
        self._shape, self._depth = Shape.cast(shape), depth
        super().__init__({"w_data": In(shape), "w_en": In(1), "r_data": Out(shape),
                          "r_valid": Out(1), "r_ready": In(1)})

    @property
    def depth(self):
        return self._depth

    @property
    def register_bits(self):
        """Flip-flops besides the memory and its read register: two pointers and ``r_valid``
        (:meth:`pointer_bits`)."""
        return self.pointer_bits(self._depth)

    @staticmethod
    def pointer_bits(depth):
        """Flip-flops of a lane of ``depth`` entries besides its memory and read register."""
        return 2 * Shape.cast(range(depth)).width + 1

    def elaborate(self, platform):
        m = Module()
        m.submodules.memory = memory = Memory(shape=self._shape, depth=self._depth, init=[])
        write, read = memory.write_port(), memory.read_port(domain="sync")
        head = Signal(range(self._depth))    # next entry to write
        tail = Signal(range(self._depth))    # next entry to read into the register
        # The memory's entries between tail and head are unread (head == tail: none); at most
        # depth - 1 of them, as one more is at r_data whenever the lane holds that many.
        refill = (~self.r_valid | self.r_ready) & (head != tail)
        m.d.comb += [write.addr.eq(head), write.data.eq(self.w_data), write.en.eq(self.w_en),
                     read.addr.eq(tail), read.en.eq(refill), self.r_data.eq(read.data)]
        with m.If(self.w_en):
            m.d.sync += head.eq(_next(head, self._depth))
        with m.If(refill):
            m.d.sync += [tail.eq(_next(tail, self._depth)), self.r_valid.eq(1)]
        with m.Elif(self.r_ready):
            m.d.sync += self.r_valid.eq(0)
        return m


def _next(pointer, depth):
    return Mux(pointer == depth - 1, 0, pointer + 1)
