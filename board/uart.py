"""A UART, 8 data bits, no parity, one stop bit (8N1), least significant bit first: a
transmitter of a byte stream (:class:`UARTTransmitter`) and a receiver into one
(:class:`UARTReceiver`), each at ``divisor`` clock cycles a bit (the clock over the baud rate:
96 MHz over 3 Mbaud is 32).

The receiver takes ``rx`` through two flip-flops (a synchronizer: the line is asynchronous),
waits half a bit after a falling edge and takes it as a start bit only if the line is still
low there, then samples each bit a bit apart, at its middle. A byte whose stop bit is low
(a framing error) or that finds the previous byte still untaken (an overrun: the consumer
takes one a byte time at least) is given with ``error`` high, never dropped silently. It
looks for the next start bit from the middle of the stop bit, so back-to-back bytes are taken
whatever the sender's clock within the half bit a frame of ten bits allows (5 % apart).
"""

from amaranth.hdl import Module, Signal, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.cdc import FFSynchronizer
from amaranth.lib.wiring import In, Out

from robohw.hw.checks import check_integer

__all__ = ["UARTTransmitter", "UARTReceiver", "MIN_DIVISOR", "BITS_PER_BYTE",
           "RECEIVED_LAYOUT"]

# Cycles a bit at least: the receiver samples half a bit after the start bit's edge, which the
# synchronizer delays by two cycles.
MIN_DIVISOR = 4
# A byte on the line: the start bit, 8 data bits, the stop bit.
BITS_PER_BYTE = 10
# What the receiver gives: the byte and whether it was received in error.
RECEIVED_LAYOUT = data.StructLayout({"data": unsigned(8), "error": unsigned(1)})


def _check_divisor(divisor):
    return check_integer("divisor", divisor, minimum=MIN_DIVISOR)


class UARTTransmitter(wiring.Component):
    """Sends each byte of ``i`` on ``tx``, one bit every ``divisor`` cycles.

    Parameters
    ----------
    divisor : int
        Clock cycles a bit, at least :data:`MIN_DIVISOR`.

    Members
    -------
    i : ``In(stream.Signature(unsigned(8)))``
        A byte is taken while the line is idle or in the last cycle of the previous byte's
        stop bit: back to back, ``BITS_PER_BYTE * divisor`` cycles a byte.
    tx : ``Out(1)``
        The line, high when idle (a register).
    """
    def __init__(self, divisor):
        self._divisor = _check_divisor(divisor)
        super().__init__({"i": In(stream.Signature(unsigned(8))), "tx": Out(1, init=1)})

    @property
    def divisor(self):
        return self._divisor

    def elaborate(self, platform):
        m = Module()
        # The frame, sent from bit 0: the start bit (0), the data, the stop bit (1).
        frame = Signal(BITS_PER_BYTE, reset_less=True)
        bits = Signal(range(BITS_PER_BYTE + 1))      # bits left to send; 0: idle
        count = Signal(range(self._divisor))          # cycles left of the bit on the line
        # Idle, or in the stop bit's last cycle: the next start bit follows it directly.
        m.d.comb += self.i.ready.eq((bits == 0) | ((bits == 1) & (count == 0)))
        with m.If(self.i.valid & self.i.ready):
            m.d.sync += [frame.eq((1 << 9) | (self.i.payload << 1)), bits.eq(BITS_PER_BYTE),
                         count.eq(self._divisor - 1), self.tx.eq(0)]
        with m.Elif(bits != 0):
            with m.If(count == 0):
                m.d.sync += [count.eq(self._divisor - 1), bits.eq(bits - 1),
                             frame.eq(frame >> 1)]
                # The next bit, or the idle line after the stop bit.
                m.d.sync += self.tx.eq((bits == 1) | frame[1])
            with m.Else():
                m.d.sync += count.eq(count - 1)
        return m


class UARTReceiver(wiring.Component):
    """Takes bytes from ``rx`` into ``o``, one bit every ``divisor`` cycles.

    Parameters
    ----------
    divisor : int
        Clock cycles a bit, at least :data:`MIN_DIVISOR`.

    Members
    -------
    rx : ``In(1, init=1)``
        The line (asynchronous to the clock).
    o : ``Out(stream.Signature(RECEIVED_LAYOUT))``
        Each byte, valid from the cycle after its stop bit's middle was sampled (plus the
        synchronizer's two) until taken; ``error`` where its stop bit was low or it found the
        byte before it still untaken (that byte is then replaced).
    """
    def __init__(self, divisor):
        self._divisor = _check_divisor(divisor)
        super().__init__({"rx": In(1, init=1), "o": Out(stream.Signature(RECEIVED_LAYOUT))})

    @property
    def divisor(self):
        return self._divisor

    def elaborate(self, platform):
        m = Module()
        line = Signal(init=1)
        m.submodules.synchronizer = FFSynchronizer(self.rx, line, init=1)
        shift = Signal(8, reset_less=True)
        bits = Signal(range(BITS_PER_BYTE + 1))      # bits left to sample; 0: idle
        count = Signal(range(self._divisor))          # cycles until the next sample
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += self.o.valid.eq(0)
        with m.If(bits == 0):
            with m.If(~line):                             # a falling edge: a start bit?
                m.d.sync += [bits.eq(BITS_PER_BYTE), count.eq(self._divisor // 2 - 1)]
        with m.Elif(count != 0):
            m.d.sync += count.eq(count - 1)
        with m.Else():
            m.d.sync += [count.eq(self._divisor - 1), bits.eq(bits - 1)]
            with m.If(bits == BITS_PER_BYTE):
                with m.If(line):                          # a glitch, not a start bit
                    m.d.sync += bits.eq(0)
            with m.Elif(bits == 1):                       # the stop bit
                m.d.sync += [self.o.payload.data.eq(shift), self.o.valid.eq(1),
                             self.o.payload.error.eq(~line |
                                                     (self.o.valid & ~self.o.ready)),
                             bits.eq(0)]
            with m.Else():
                m.d.sync += shift.eq((line << 7) | (shift >> 1))
        return m
