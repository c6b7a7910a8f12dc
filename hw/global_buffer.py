"""A control net on one of an FPGA's clock networks: the phase enables of a folded datapath.

A datapath folded by ``k`` enables each register in one of ``k`` phases, so each phase's enable
reaches thousands of flip-flops spread over the chip (the folded Newton-Euler pipeline: 41,369
flip-flops at 18 bits, fold 6). Through the fabric those nets, even split over copies of the phase
ring, crowd the routing every value needs. nextpnr-ecp5 routes a net driven by a DCCA clock buffer
onto one of the primary clock networks even when the net drives clock enables rather than clocks,
and those networks reach the enable pins of the slices (measured: a DCCA's output enabling 1,024
flip-flops went on global 1, no fabric routing and no delay on it in nextpnr's timing). Elaborated
for an ECP5 (:func:`robohw.hw.devices.is_ecp5`), :func:`global_buffer` puts a signal through a
DCCA; for any other platform, or none (simulation, Verilator's generic netlist), it returns the
signal itself. ``robohw.sim``'s behavioural model of the DCCA lets Verilator run the ECP5
netlist against the model.
"""

from amaranth.hdl import Const, Instance, Signal

from robohw.hw.devices import is_ecp5

__all__ = ["global_buffers", "global_buffer", "ECP5_FABRIC_GLOBALS"]

# nextpnr-ecp5 (0.11, ecp5/globals.cc, route_globals) routes a DCCA that drives anything but
# clock pins on primary networks 0-7 only, and a design's clock, which it promotes itself, may
# take one of them first: seven are left for enables whatever the order.
ECP5_FABRIC_GLOBALS = 7


def global_buffers(platform, count):
    """Whether :func:`global_buffer` puts ``count`` signals on ``platform``'s clock networks:
    an ECP5, with a network free for each."""
    return is_ecp5(platform) and count <= ECP5_FABRIC_GLOBALS


def global_buffer(m, signal, name, platform):
    """``signal`` on a clock network of ``platform``: the output ``{name}`` of a DCCA
    ``{name}_dcca`` (its enable held high: the output follows the input) when ``platform``
    is an ECP5, otherwise ``signal`` itself. Combinational: the value is ``signal``'s in the
    same cycle."""
    if not is_ecp5(platform):
        return signal
    buffered = Signal(name=name)
    m.submodules[f"{name}_dcca"] = Instance("DCCA", i_CLKI=signal, i_CE=Const(1),
                                            o_CLKO=buffered)
    return buffered
