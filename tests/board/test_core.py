"""A design behind the UART (robohw.board.core): a small stream pipeline driven through its
serial line bit by bit from the host's frames, back to back, with an identify request, a
corrupted request and a truncated one among good ones; every good request's result comes back
under its tag, equal to the design's function, every bad one an error, nothing else."""

import numpy as np
import pytest
from affine_design import AffineDesign
from amaranth.hdl import signed
from amaranth.sim import Simulator

from robohw.board.core import BoardCore, frame_format_of
from robohw.board.frames import ERROR, IDENTITY, REPLY_SYNC, RESULT
from robohw.board.uart import BITS_PER_BYTE
from robohw.hw.stream import StreamPipeline

DIVISOR = 4
DIGEST = "00112233445566ff"


def _line(frames, gaps):
    """The line's bits, a bit a ``DIVISOR`` cycles: idle, then each frame's bytes (8N1) back to
    back, ``gaps[k]`` idle bits after frame ``k``."""
    bits = [1] * 4
    for frame, gap in zip(frames, gaps):
        for byte in frame:
            bits += [0] + [(byte >> k) & 1 for k in range(8)] + [1]
        bits += [1] * gap
    return bits


def _run(core, bits, extra_cycles):
    """The bytes the core sends back while ``bits`` drive its line."""
    got = []

    async def drive(ctx):
        for bit in bits:
            ctx.set(core.rx, bit)
            await ctx.tick().repeat(DIVISOR)
        await ctx.tick().repeat(extra_cycles)

    async def listen(ctx):
        while True:                        # a byte: its start bit's middle, then each bit's
            while ctx.get(core.tx):
                await ctx.tick()
            await ctx.tick().repeat(DIVISOR // 2)
            byte = 0
            for k in range(8):
                await ctx.tick().repeat(DIVISOR)
                byte |= ctx.get(core.tx) << k
            await ctx.tick().repeat(DIVISOR)
            assert ctx.get(core.tx) == 1, "a stop bit is low"
            got.append(byte)

    sim = Simulator(core)
    sim.add_clock(1e-6)
    sim.add_testbench(drive)
    sim.add_testbench(listen, background=True)
    sim.run()
    return bytes(got)


def test_the_core_answers_every_request_from_the_line():
    core = BoardCore(AffineDesign(), DIVISOR, DIGEST)
    fmt = core.frame_format
    assert fmt.inputs == {"x": (12, True), "z": (20, True)}
    assert fmt.outputs == {"y": (22, True), "negative": (1, False)}
    rng = np.random.default_rng(0)
    states = [{"x": int(rng.integers(-2048, 2048)), "z": int(rng.integers(-(1 << 19), 1 << 19))}
              for _ in range(5)]
    frames = [fmt.state_request(k, s) for k, s in enumerate(states)]
    corrupted = bytearray(frames[2])
    corrupted[4] ^= 0x01
    sent = [frames[0], fmt.identify_request(77), frames[1], bytes(corrupted), frames[3][:6],
            frames[4], frames[2]]
    # The truncated request pauses for longer than the timeout before the next.
    gaps = [0, 0, 0, 0, fmt.timeout_bits + 2, 0, 0]
    bits = _line(sent, gaps)
    reply_bits = sum(fmt.result_bytes for _ in states) * BITS_PER_BYTE + 80
    stream = _run(core, bits, reply_bits * DIVISOR)
    replies = []
    while stream:
        assert stream[0] == REPLY_SYNC
        size = fmt.reply_bytes(stream[1])
        replies.append(fmt.read_reply(stream[:size]))
        stream = stream[size:]
    results = {r.tag: r.values for r in replies if r.kind == RESULT}
    assert results == {k: {"y": 3 * s["x"] - s["z"], "negative": int(s["z"] < 0)}
                       for k, s in enumerate(states) if k != 3}
    others = [(r.kind, r.tag, r.values) for r in replies if r.kind != RESULT]
    assert others == [(IDENTITY, 77, {"version": 1, "digest": DIGEST}),
                      (ERROR, 2, {"error": "checksum"}), (ERROR, 3, {"error": "truncated"})]
    # In the order of their requests.
    assert [r.tag for r in replies] == [0, 77, 1, 2, 3, 4, 2]


def test_the_core_refuses_a_design_whose_tag_is_not_a_byte():
    class _Narrow(AffineDesign):
        def __init__(self):
            StreamPipeline.__init__(self, {"x": signed(8)}, {"y": signed(8)}, tag_width=4)

    with pytest.raises(ValueError, match="a board's design carries a tag of 8 bits, not 4"):
        frame_format_of(_Narrow())
    # A request of x (2 bytes) and z (3): 10 bytes with sync, kind, tag and CRC.
    core = BoardCore(AffineDesign(), 8, DIGEST)
    assert core.frame_format.request_bytes == 10 and core.outstanding() == 25
