"""A design on a board: its serial protocol (:mod:`robohw.board.frames`), the UART
(:mod:`robohw.board.uart`) and the gateware that takes requests from bytes and gives replies as
bytes (:mod:`robohw.board.frame_decoder`, :mod:`robohw.board.frame_encoder`), and a design
behind them (:mod:`robohw.board.core`); the host's driver (:mod:`robohw.board.driver`) and a
port onto a simulated board (:mod:`robohw.board.sim_port`)."""

from robohw.board.core import BoardCore, frame_format_of
from robohw.board.driver import Board, BoardError, open_serial
from robohw.board.frame_decoder import FrameDecoder
from robohw.board.frame_encoder import FrameEncoder
from robohw.board.frames import FrameError, FrameFormat, Reply
from robohw.board.sim_port import SimulatedPort
from robohw.board.uart import UARTReceiver, UARTTransmitter

__all__ = ["Board", "BoardError", "open_serial", "SimulatedPort", "BoardCore", "frame_format_of",
           "FrameDecoder", "FrameEncoder", "FrameError", "FrameFormat", "Reply",
           "UARTReceiver", "UARTTransmitter"]
