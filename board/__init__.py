"""A design on a board: its serial protocol (:mod:`robohw.board.frames`), the UART
(:mod:`robohw.board.uart`) and the gateware that takes requests from bytes and gives replies as
bytes (:mod:`robohw.board.frame_decoder`, :mod:`robohw.board.frame_encoder`), and a design
behind them (:mod:`robohw.board.core`)."""

from robohw.board.core import BoardCore, frame_format_of
from robohw.board.frame_decoder import FrameDecoder
from robohw.board.frame_encoder import FrameEncoder
from robohw.board.frames import FrameError, FrameFormat, Reply
from robohw.board.uart import UARTReceiver, UARTTransmitter

__all__ = ["BoardCore", "frame_format_of", "FrameDecoder", "FrameEncoder", "FrameError", "FrameFormat", "Reply",
           "UARTReceiver", "UARTTransmitter"]
