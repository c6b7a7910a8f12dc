"""CORDIC processors: configuration, shared datapath, pipelined and word-serial architectures,
and the named elementary functions."""

from robohw.cordic.config import CordicConfig, Direction, Normalization, System
from robohw.cordic.functions import FUNCTIONS
from robohw.cordic.pipelined import PipelinedCordic
from robohw.cordic.word_serial import WordSerialCordic

__all__ = ["CordicConfig", "Direction", "Normalization", "System", "FUNCTIONS",
           "PipelinedCordic", "WordSerialCordic", "ARCHITECTURES"]

# The two architectures by name, as the command line and the design registry call them.
ARCHITECTURES = {"pipelined": PipelinedCordic, "word_serial": WordSerialCordic}
