"""CORDIC processors: configuration, shared datapath, pipelined and word-serial architectures,
and the named elementary functions."""

from cordic.config import CordicConfig, Direction, Normalization, System
from cordic.functions import FUNCTIONS
from cordic.pipelined import PipelinedCordic
from cordic.word_serial import WordSerialCordic

__all__ = ["CordicConfig", "Direction", "Normalization", "System", "FUNCTIONS",
           "PipelinedCordic", "WordSerialCordic"]
