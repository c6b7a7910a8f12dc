"""Delay lines built inside an elaborating module: shift registers with a shared enable."""

from amaranth.hdl import Shape, Signal

__all__ = ["tapped_delay_line"]


def tapped_delay_line(m, value, taps, enable, name, *, reset_less=True):
    """Delay ``value`` by every count in ``taps`` (stages, ``0`` = the value itself).

    Builds one shift register of ``max(taps)`` stages that move when ``enable`` is high (the
    whole pipeline stalls together) and returns ``{tap: signal}``. One register per stage
    serves every tap: a tapped delay line (Lee & Chang, Figure 3). Data lines are reset-less;
    pass ``reset_less=False`` for valid bits.
    """
    taps = sorted(set(taps))
    if not taps or taps[0] < 0:
        raise ValueError(f"{name}: taps must be non-negative, not {taps}")
    shape = Shape.cast(value.shape())
    stages = [value]
    for k in range(1, taps[-1] + 1):
        register = Signal(shape, name=f"{name}_d{k}", reset_less=reset_less)
        with m.If(enable):
            m.d.sync += register.eq(stages[-1])
        stages.append(register)
    return {tap: stages[tap] for tap in taps}
