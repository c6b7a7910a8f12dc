"""The board's protocol (robohw.board.frames) and its gateware (robohw.board.frame_decoder,
robohw.board.frame_encoder): the CRC against its published check value, the host's frames,
and the gateware taking the host's requests (good ones to the design, bad ones to error
replies, under a stalling design and gaps between bytes) and giving replies the host reads."""

import numpy as np
import pytest
from amaranth.sim import Simulator

from robohw.board.frame_decoder import FrameDecoder
from robohw.board.frame_encoder import FrameEncoder
from robohw.board.frames import (
    ERROR,
    IDENTITY,
    PROTOCOL_VERSION,
    REPLY_SYNC,
    RESULT,
    FrameError,
    FrameFormat,
    crc16,
)

FORMAT = FrameFormat(inputs={"q1": (18, True), "qd1": (20, True), "mode": (3, False)},
                     outputs={"tau1": (20, True), "in_bounds": (1, False)}, timeout_bits=20)
DIVISOR = 4
DIGEST = "0123456789abcdef"


def test_the_crc_is_crc16_ccitt_false():
    # The catalogue's check value of CRC-16/CCITT-FALSE (CRC-16/IBM-3740) over "123456789".
    assert crc16(b"123456789") == 0x29B1


def test_a_state_request_holds_its_codes_little_endian_in_whole_bytes():
    frame = FORMAT.state_request(7, {"q1": -2, "qd1": 0x12345, "mode": 5})
    assert frame[:3] == bytes([0xA5, 0x01, 7])
    assert frame[3:6] == (-2 & 0x3FFFF).to_bytes(3, "little")
    assert frame[6:9] == (0x12345).to_bytes(3, "little") and frame[9] == 5
    assert int.from_bytes(frame[-2:], "big") == crc16(frame[1:-2])
    assert len(frame) == FORMAT.request_bytes == 12
    with pytest.raises(ValueError, match="q1: code 131072 is beyond its 18 bits"):
        FORMAT.state_request(0, {"q1": 1 << 17, "qd1": 0, "mode": 0})
    with pytest.raises(ValueError, match=r"a state has the fields \['q1', 'qd1', 'mode'\]"):
        FORMAT.state_request(0, {"q1": 0})
    with pytest.raises(ValueError, match="tag must be an integer in \\[0, 255\\], not 256"):
        FORMAT.state_request(256, {"q1": 0, "qd1": 0, "mode": 0})


def _reply(kind, tag, body):
    content = bytes([kind, tag]) + body
    return bytes([REPLY_SYNC]) + content + crc16(content).to_bytes(2, "big")


def test_the_host_reads_replies_and_refuses_bad_ones():
    result = FORMAT.read_reply(_reply(RESULT, 9, (-3 & 0xFFFFF).to_bytes(3, "little") + b"\1"))
    assert (result.kind, result.tag, result.values) == (RESULT, 9, {"tau1": -3, "in_bounds": 1})
    assert FORMAT.read_reply(_reply(ERROR, 4, b"\2")).values == {"error": "truncated"}
    identity = FORMAT.read_reply(_reply(IDENTITY, 0, bytes([1]) + bytes.fromhex(DIGEST)))
    assert identity.values == {"version": 1, "digest": DIGEST}
    good = _reply(ERROR, 4, b"\1")
    with pytest.raises(FrameError, match="its CRC-16 is 0x[0-9a-f]{4}, the frame says"):
        FORMAT.read_reply(good[:-1] + bytes([good[-1] ^ 1]))
    with pytest.raises(FrameError, match="a reply starts with 0x5a, not a5"):
        FORMAT.read_reply(b"\xa5" + good[1:])
    with pytest.raises(FrameError, match="a reply of kind 0xe0 has 6 bytes, not 5"):
        FORMAT.read_reply(good[:-1])
    with pytest.raises(FrameError, match="unknown reply kind 0x33"):
        FORMAT.read_reply(_reply(0x33, 0, b""))


def _states(count, rng):
    return [{"q1": int(rng.integers(-(1 << 17), 1 << 17)),
             "qd1": int(rng.integers(-(1 << 19), 1 << 19)), "mode": int(rng.integers(0, 8))}
            for _ in range(count)]


def _decode(stream, ready_share, seed):
    """Run the decoder over ``stream`` (``(byte, error)`` or ``("gap", cycles)``): the states
    it gave the design and the replies it asked for, the design ready in ``ready_share`` of
    the cycles and the replies taken at once."""
    dut = FrameDecoder(FORMAT, DIVISOR)
    rng = np.random.default_rng(seed)
    states, replies = [], []

    async def feed(ctx):
        for item in stream:
            if item[0] == "gap":
                await ctx.tick().repeat(item[1])
                continue
            ctx.set(dut.i.payload.data, item[0])
            ctx.set(dut.i.payload.error, item[1])
            ctx.set(dut.i.valid, 1)
            await ctx.tick().until(dut.i.ready)
            ctx.set(dut.i.valid, 0)
            # A byte every cycle or two: faster than any line, so the gaps are the test's.
            if rng.random() < 0.5:
                await ctx.tick()
        await ctx.tick().repeat(200)

    async def take(ctx):
        while True:
            ready = rng.random() < ready_share
            ctx.set(dut.o.ready, int(ready))
            ctx.set(dut.replies.ready, 1)
            if ctx.get(dut.o.valid) and ready:
                payload = ctx.get(dut.o.payload)
                states.append(({f: int(payload[f]) for f in FORMAT.inputs}, payload.tag))
            if ctx.get(dut.replies.valid):
                reply = ctx.get(dut.replies.payload)
                replies.append((reply.kind, reply.tag, reply.code))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(feed)
    sim.add_testbench(take, background=True)
    sim.run()
    return states, replies


def _bytes(frame, error_at=None):
    return [(b, int(k == error_at)) for k, b in enumerate(frame)]


@pytest.mark.parametrize("ready_share", [1.0, 0.2])
def test_the_decoder_gives_good_requests_to_the_design_and_answers_bad_ones(ready_share):
    rng = np.random.default_rng(1)
    good = _states(6, rng)
    frames = [FORMAT.state_request(10 + k, state) for k, state in enumerate(good)]
    bad_crc = bytearray(FORMAT.state_request(50, good[0]))
    bad_crc[5] ^= 0x10
    timeout = FORMAT.timeout_bits * DIVISOR
    stream = (
        [(0x00, 0), (0x13, 0)] + _bytes(frames[0])           # garbage before a frame: skipped
        + _bytes(FORMAT.identify_request(33)) + _bytes(frames[1])
        + _bytes(bytes(bad_crc)) + _bytes(frames[2])          # a CRC error, then back to back
        + _bytes(frames[3][:7]) + [("gap", timeout + 5)]       # truncated
        + _bytes(frames[3]) + [(0xA5, 0), (0x07, 0)]           # an unknown kind
        + _bytes(frames[4], error_at=6) + _bytes(frames[5])   # a byte in error
        + [(0xA5, 1)] + _bytes(frames[0]))                    # a sync byte in error: skipped
    states, replies = _decode(stream, ready_share, seed=2)
    expected = [(good[k], 10 + k) for k in (0, 1, 2, 3, 5, 0)]
    assert states == expected
    assert replies == [(IDENTITY, 33, 0), (ERROR, 50, 1), (ERROR, 13, 2), (ERROR, 0, 3),
                       (ERROR, 14, 4)]


def _encode(results, replies, ready_share, seed):
    """The encoder's bytes for ``results`` (``({field: code}, tag)``) and ``replies``
    (``(kind, tag, code)``) offered together, the line ready in ``ready_share`` of the
    cycles."""
    dut = FrameEncoder(FORMAT, DIGEST)
    rng = np.random.default_rng(seed)
    out = []

    async def offer_results(ctx):
        for values, tag in results:
            for field, code in values.items():
                ctx.set(dut.results.payload[field], code)
            ctx.set(dut.results.payload.tag, tag)
            ctx.set(dut.results.valid, 1)
            await ctx.tick().until(dut.results.ready)
            ctx.set(dut.results.valid, 0)

    async def offer_replies(ctx):
        for kind, tag, code in replies:
            ctx.set(dut.replies.payload.kind, kind)
            ctx.set(dut.replies.payload.tag, tag)
            ctx.set(dut.replies.payload.code, code)
            ctx.set(dut.replies.valid, 1)
            await ctx.tick().until(dut.replies.ready)
            ctx.set(dut.replies.valid, 0)
            await ctx.tick().repeat(int(rng.integers(1, 30)))

    async def line(ctx):
        while True:
            ready = rng.random() < ready_share
            ctx.set(dut.o.ready, int(ready))
            if ctx.get(dut.o.valid) and ready:
                out.append(ctx.get(dut.o.payload))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(offer_results)
    sim.add_testbench(offer_replies)
    sim.add_testbench(line, background=True)
    sim.run_until(1e-6 * 3000)
    return bytes(out)


def _split(stream):
    """The replies in ``stream``, each by its kind's length."""
    frames = []
    while stream:
        size = FORMAT.reply_bytes(stream[1])
        frames.append(FORMAT.read_reply(stream[:size]))
        stream = stream[size:]
    return frames


@pytest.mark.parametrize("ready_share", [1.0, 0.3])
def test_the_encoder_gives_every_result_and_reply_as_frames_the_host_reads(ready_share):
    rng = np.random.default_rng(5)
    results = [({"tau1": int(rng.integers(-(1 << 19), 1 << 19)), "in_bounds": k % 2}, k)
               for k in range(12)]
    replies = [(IDENTITY, 200, 0), (ERROR, 201, 2), (ERROR, 0, 3)]
    frames = _split(_encode(results, replies, ready_share, seed=6))
    got = [(f.values, f.tag) for f in frames if f.kind == RESULT]
    assert got == results
    others = [(f.kind, f.tag, f.values) for f in frames if f.kind != RESULT]
    assert others == [(IDENTITY, 200, {"version": PROTOCOL_VERSION, "digest": DIGEST}),
                      (ERROR, 201, {"error": "truncated"}),
                      (ERROR, 0, {"error": "unknown kind"})]


def test_the_gateware_refuses_bad_arguments():
    with pytest.raises(TypeError, match="frame_format must be a FrameFormat"):
        FrameDecoder({"q": (8, True)}, 4)
    with pytest.raises(ValueError, match="digest must be 16 hex digits, not 'abc'"):
        FrameEncoder(FORMAT, "abc")
    with pytest.raises(ValueError, match="inputs must be a non-empty dict of fields"):
        FrameFormat(inputs={}, outputs={"t": (8, True)})


def test_the_gateware_crc_update_is_the_hosts():
    from amaranth.hdl import Module, Signal

    from robohw.board.crc import crc16_next
    m = Module()
    crc, byte, out = Signal(16), Signal(8), Signal(16)
    m.d.comb += out.eq(crc16_next(crc, byte))
    rng = np.random.default_rng(0)
    cases = [(0xFFFF, 0), (0, 0xFF), (0x8000, 0x80)] + \
        [(int(c), int(b)) for c, b in zip(rng.integers(0, 1 << 16, 60), rng.integers(0, 256, 60))]

    async def bench(ctx):
        for c, b in cases:
            ctx.set(crc, c)
            ctx.set(byte, b)
            assert ctx.get(out) == crc16(bytes([b]), c), (c, b)

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
