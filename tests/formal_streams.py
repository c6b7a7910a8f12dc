"""The stream-contract harness of the formal proofs (``test_proofs_streams.py``).

:func:`stream_contract` wraps a streaming design (``i`` and ``o`` streams whose payloads end
in a user ``tag``) in a module that numbers its input transfers: the solver drives ``i.valid``,
``o.ready`` and the other payload fields freely in every cycle, and is assumed to put the
transfer's number (modulo ``2 ** tag_width``) in the tag. The harness then asserts, in every
cycle, the contract of a stream (``amaranth.lib.stream``) and of the project's designs:

- every output carries the number of the transfers out so far: nothing is lost, duplicated or
  reordered (the tags are wide enough that no more than ``2 ** tag_width - 1`` transfers are
  ever inside, which the harness asserts too);
- no output without an input inside, and never more inside than ``capacity``;
- ``o.valid`` is never withdrawn without a transfer, and ``o.payload`` is stable while
  ``o.valid`` is high and ``o.ready`` low;
- optionally ``payload_ok(o.payload)``: the payload belongs to its tag (the design's inputs are
  then tied to the transfer's number through ``inputs``).

With ``always_ready`` (``o.ready`` and ``i.valid`` held high from reset) it asserts the timing
instead: each input appears at ``o`` exactly ``latency`` cycles after its transfer, and
``i.ready`` is high exactly in the cycles ``accepts`` says: ``(period, accepting)``, the
cycles counted from reset modulo ``period`` and ``accepting(phase)`` whether an input is taken
in that phase; with ``idle_first``, none is taken in the first period after reset (a design
that reads its micro-programs ahead: the engine).
"""

from amaranth.hdl import Assert, Assume, Module, Mux, Signal

__all__ = ["stream_contract"]


def stream_contract(dut, tag_width, capacity, *, inputs=None, payload_ok=None,
                    always_ready=False, latency=None, accepts=None, idle_first=False):
    """Return ``(module, ports)``: ``dut`` under the harness, and the free inputs."""
    m = Module()
    m.submodules.dut = dut
    i, o = dut.i, dut.o
    taken, popped = i.valid & i.ready, o.valid & o.ready
    sent, received = Signal(tag_width), Signal(tag_width)     # transfer numbers, modulo
    inside = Signal(range(capacity + 2))
    m.d.sync += [sent.eq(sent + taken), received.eq(received + popped),
                 inside.eq(inside + taken - popped)]
    m.d.comb += Assume(i.payload.tag == sent)
    for field, value in (inputs or {}).items():
        m.d.comb += Assume(getattr(i.payload, field) == value(sent))
    m.d.comb += [
        Assert(~o.valid | (o.payload.tag == received)),
        Assert(~o.valid | inside.any()),
        Assert(inside <= capacity),
    ]
    assert capacity < 2 ** tag_width, "the tags must tell every transfer inside apart"
    if payload_ok is not None:
        m.d.comb += Assert(~o.valid | payload_ok(o.payload))
    # The stream rules at o: a valid output waits, unchanged, until it is taken.
    waited, last = Signal(), Signal.like(o.payload)
    m.d.sync += [waited.eq(o.valid & ~o.ready), last.eq(o.payload)]
    m.d.comb += Assert(~waited | (o.valid & (o.payload.as_value() == last.as_value())))
    ports = [i.valid, o.ready, i.payload.as_value()]
    if always_ready:
        period, accepting = accepts
        phase = Signal(range(period))
        m.d.sync += phase.eq(Mux(phase == period - 1, 0, phase + 1))
        m.d.comb += [Assume(o.ready), Assume(i.valid)]
        started = Signal()          # past the first period after reset
        m.d.sync += started.eq(started | (phase == period - 1))
        m.d.comb += Assert(i.ready == (accepting(phase) & (started | (not idle_first))))
        # Follow one transfer, chosen by the solver, to its output.
        mark, following = Signal(), Signal()
        number, age = Signal(tag_width), Signal(range(latency + 2))
        with m.If(~following & mark & taken):
            m.d.sync += [following.eq(1), number.eq(sent), age.eq(1)]
        with m.Elif(following & (age <= latency)):
            m.d.sync += age.eq(age + 1)
        is_it = o.valid & (o.payload.tag == number)
        m.d.comb += [Assert(~(following & (age < latency)) | ~is_it),
                     Assert(~(following & (age == latency)) | is_it)]
        ports.append(mark)
    return m, ports
