import re

import pytest

from amaranth.back import rtlil

from robohw.registry import DESIGNS
from robohw.sim.resources import register_bits


@pytest.mark.heavy
def test_register_bits_equal_the_flip_flops_of_the_exported_design():
    for name in ("cordic-pipelined", "cordic-word-serial", "inertia-logdepth",
                 "dynamics-pipelined"):
        dut = DESIGNS[name].build()
        text = rtlil.convert(DESIGNS[name].build(), name="top")
        widths = re.findall(r"cell \$a?dff\w* \S+\n(?:\s+parameter (?!\\WIDTH).*\n)*"
                            r"\s+parameter \\WIDTH (\d+)", text)
        assert widths and register_bits(dut) == sum(map(int, widths)), name
    # The traced plans' own counts of their registers agree too, folded and not.
    for name, fold in (("inertia-logdepth", None), ("dynamics-pipelined", None),
                       ("dynamics-pipelined", 1)):
        dut = DESIGNS[name].build(fold=fold)
        assert register_bits(dut) == dut.resources()["register_bits"], (name, fold)
