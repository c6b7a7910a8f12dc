import re

import pytest
from amaranth.back import rtlil

from robohw.registry import DESIGNS
from robohw.sim.resources import register_bits


# The dynamics pipeline's netlist, folded and not, in `make slow` (a minute to elaborate).
@pytest.mark.heavy
@pytest.mark.parametrize("names", [
    ("cordic-pipelined", "cordic-word-serial", "inertia-logdepth"),
    pytest.param(("dynamics-pipelined",), marks=pytest.mark.slow)])
def test_register_bits_equal_the_flip_flops_of_the_exported_design(names):
    for name in names:
        dut = DESIGNS[name].build()
        text = rtlil.convert(DESIGNS[name].build(), name="top")
        widths = re.findall(r"cell \$a?dff\w* \S+\n(?:\s+parameter (?!\\WIDTH).*\n)*"
                            r"\s+parameter \\WIDTH (\d+)", text)
        assert widths and register_bits(dut) == sum(map(int, widths)), name
    # The traced plans' own counts of their registers agree too, folded and not.
    for name, fold in [(name, fold) for name in names for fold in (None, 1)
                       if name != "inertia-logdepth" or fold is None
                       if name.startswith(("inertia", "dynamics"))]:
        dut = DESIGNS[name].build(fold=fold)
        assert register_bits(dut) == dut.resources()["register_bits"], (name, fold)
