"""The CORDIC family: configuration (:mod:`.config`), the shared datapath (:mod:`.datapath`),
the pipelined and word-serial architectures (:mod:`.pipelined`, :mod:`.word_serial`) and the
multimode processor (:mod:`.multimode`), the named elementary functions (:mod:`.functions`); the
float64 reference (:mod:`.reference`), the bit-exact model (:mod:`.model`), its accuracy
(:mod:`.accuracy`), the designs of the flows (:mod:`.designs`), the benchmark (:mod:`.bench`)
and the report section (:mod:`.report`). Every later family computes with it."""

from robohw.support.lazy import load_export

__all__ = ["FAMILY", "CordicConfig", "Direction", "Normalization", "System", "FUNCTIONS",
           "PipelinedCordic", "WordSerialCordic", "ARCHITECTURES", "CORDIC_DESIGNS",
           "bench_cordic", "format_bench", "cordic_error_panel", "write_cordic_report"]

# Where each name comes from: loaded on first use (robohw.support.lazy), so that a command
# imports only the modules it runs.
_SOURCES = {
    "FAMILY": "robohw.cordic.family",
    "CordicConfig": "robohw.cordic.config",
    "Direction": "robohw.cordic.config",
    "Normalization": "robohw.cordic.config",
    "System": "robohw.cordic.config",
    "FUNCTIONS": "robohw.cordic.functions",
    "PipelinedCordic": "robohw.cordic.pipelined",
    "WordSerialCordic": "robohw.cordic.word_serial",
    "ARCHITECTURES": "robohw.cordic.architectures",
    "CORDIC_DESIGNS": "robohw.cordic.designs:DESIGNS",
    "bench_cordic": "robohw.cordic.bench",
    "format_bench": "robohw.cordic.bench",
    "cordic_error_panel": "robohw.cordic.report",
    "write_cordic_report": "robohw.cordic.report",
}


def __getattr__(name):
    return load_export(__name__, _SOURCES, name)
