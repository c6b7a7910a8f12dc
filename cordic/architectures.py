"""The two CORDIC architectures by name, as the command line and the designs call them."""

from robohw.cordic.pipelined import PipelinedCordic
from robohw.cordic.word_serial import WordSerialCordic

__all__ = ["ARCHITECTURES"]

ARCHITECTURES = {"pipelined": PipelinedCordic, "word_serial": WordSerialCordic}
