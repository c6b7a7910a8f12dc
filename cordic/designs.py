"""The CORDIC family's top-level designs for the flows (:class:`~robohw.sim.design.Design`):
``cordic-pipelined`` (:class:`~robohw.cordic.pipelined.PipelinedCordic`) and
``cordic-word-serial`` (:class:`~robohw.cordic.word_serial.WordSerialCordic`), circular
rotation."""

from types import SimpleNamespace

import numpy as np

from robohw.cordic.accuracy import MEANINGFUL_OUTPUTS, error_bound_lsb, output_errors, sample_inputs
from robohw.cordic.architectures import ARCHITECTURES
from robohw.cordic.config import MAX_WIDTH, MIN_WIDTH, CordicConfig
from robohw.cordic.model import cordic_model
from robohw.sim.design import TAG_WIDTH, Design, Workload, tagged_payloads

__all__ = ["CordicDesign", "PipelinedCordicDesign", "WordSerialCordicDesign", "DESIGNS"]

class CordicDesign(Design):
    family = "cordic"
    error_unit = "LSB"

    architecture = None     # a subclass's: its name in robohw.cordic.architectures

    def __init__(self, name):
        super().__init__(name, f"CORDIC processor, {self.architecture.replace('_', '-')}, "
                               f"circular rotation", 16, (16, 24, 32), (MIN_WIDTH, MAX_WIDTH))

    def _config(self, width):
        return CordicConfig("circular", "rotation", width=width)

    def build(self, width=None, fold=None):
        return ARCHITECTURES[self.architecture](self._config(width or self.default_width),
                                                tag_width=TAG_WIDTH)

    def width_of(self, dut):
        return dut.config.width

    def configuration(self, dut):
        c = dut.config
        return (f"circular rotation, {c.width} bits ({c.frac_bits} fraction), "
                f"{c.iterations} iterations, {c.normalization.value} normalization")

    def workload(self, dut, count, seed=0):
        x, y, z = sample_inputs(dut.config, count, np.random.default_rng(seed))
        return Workload(tagged_payloads({"x": x, "y": y, "z": z}, len(x)),
                        {"x": x, "y": y, "z": z})

    def check(self, dut, workload, outputs):
        c = workload.context
        want = cordic_model(dut.config, c["x"], c["y"], c["z"])
        equal = all([o[n] for o in outputs] == getattr(want, n).tolist() for n in "xyz")
        got = {n: np.array([o[n] for o in outputs]) for n in "xyz"}
        errors = output_errors(dut.config, c["x"], c["y"], c["z"], SimpleNamespace(**got))
        return equal, np.max(np.stack(list(errors.values())), axis=0)

    def accuracy(self, dut):
        # The stated bound of each meaningful output (measured, not proven:
        # robohw.cordic.accuracy), in the output's units: x and y as fixed point.
        c = dut.config
        return {name: error_bound_lsb(c, name) * 2.0 ** -c.frac_bits
                for name in MEANINGFUL_OUTPUTS[c.system, c.direction]}

    def error_bound(self, dut, workload):
        c = dut.config
        return max(error_bound_lsb(c, name) for name in MEANINGFUL_OUTPUTS[c.system, c.direction])

    def model_outputs(self, dut, workload):
        c = workload.context
        want = cordic_model(dut.config, c["x"], c["y"], c["z"])
        return [{n: int(getattr(want, n)[k]) for n in "xyz"} for k in range(len(c["x"]))]

    def structure(self, dut):
        return "pipeline stages", dut.latency

    def formats(self, dut):
        c = dut.config
        fixed = f"fixed({c.width}, {c.frac_bits})"
        return {"x": fixed, "y": fixed, "z": f"angle({c.width})", "tag": "tag",
                "domain_error": "bit", "overflow": "bit"}


class PipelinedCordicDesign(CordicDesign):
    """The pipelined CORDIC (:class:`~robohw.cordic.pipelined.PipelinedCordic`): a vector a
    clock."""
    architecture = "pipelined"


class WordSerialCordicDesign(CordicDesign):
    """The word-serial CORDIC (:class:`~robohw.cordic.word_serial.WordSerialCordic`): one
    stage, a vector every iterations' cycles."""
    architecture = "word_serial"
    word_serial = True


DESIGNS = (
    PipelinedCordicDesign("cordic-pipelined"),
    WordSerialCordicDesign("cordic-word-serial"),
)
