"""The CORDIC family: configuration (:mod:`.config`), the shared datapath (:mod:`.datapath`),
the pipelined and word-serial architectures (:mod:`.pipelined`, :mod:`.word_serial`) and the
multimode processor (:mod:`.multimode`), the named elementary functions (:mod:`.functions`); the
float64 reference (:mod:`.reference`), the bit-exact model (:mod:`.model`), its accuracy
(:mod:`.accuracy`), the designs of the flows (:mod:`.designs`), the benchmark (:mod:`.bench`)
and the report section (:mod:`.report`). Every later family computes with it."""

from robohw.cordic.architectures import ARCHITECTURES
from robohw.cordic.bench import bench_cordic, format_bench
from robohw.cordic.config import CordicConfig, Direction, Normalization, System
from robohw.cordic.designs import DESIGNS as CORDIC_DESIGNS
from robohw.cordic.functions import FUNCTIONS
from robohw.cordic.pipelined import PipelinedCordic
from robohw.cordic.report import cordic_error_panel, write_cordic_report
from robohw.cordic.word_serial import WordSerialCordic

__all__ = ["CordicConfig", "Direction", "Normalization", "System", "FUNCTIONS",
           "PipelinedCordic", "WordSerialCordic", "ARCHITECTURES", "CORDIC_DESIGNS",
           "bench_cordic", "format_bench", "cordic_error_panel", "write_cordic_report"]
