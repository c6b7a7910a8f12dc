import re

from amaranth.back import rtlil

from robohw.designs import DESIGNS
from robohw.sim.resources import register_bits


def test_register_bits_equal_the_flip_flops_of_the_exported_design():
    for name in ("cordic-pipelined", "cordic-word-serial", "inertia-logdepth"):
        dut = DESIGNS[name].build()
        text = rtlil.convert(DESIGNS[name].build(), name="top")
        widths = re.findall(r"cell \$a?dff\w* \S+\n(?:\s+parameter (?!\\WIDTH).*\n)*"
                            r"\s+parameter \\WIDTH (\d+)", text)
        assert widths and register_bits(dut) == sum(map(int, widths)), name
    # The inertia plan's own count of its registers agrees too.
    dut = DESIGNS["inertia-logdepth"].build()
    assert register_bits(dut) == dut.resources()["register_bits"]
