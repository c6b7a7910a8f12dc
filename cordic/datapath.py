"""Combinational pieces of a CORDIC processor, shared by both architectures.

Each function builds Amaranth expressions for one part of the program of a
:class:`~robohw.cordic.config.CordicConfig`: :func:`prerotate` (port codes to internal units, into
the convergence domain), :func:`micro_step` (one step, with constant or run-time parameters) and
:func:`finish` (domain check, gain correction, rounding and saturation to the port formats). They
mirror :mod:`robohw.cordic.model` operation for operation.
"""

from amaranth.hdl import Mux, Signal, Value, signed

from robohw.cordic.config import Direction, System
from robohw.hw.fixed import hdl_round_shift, hdl_saturate

__all__ = ["input_fields", "output_fields", "PAYLOAD_FIELDS", "prerotate", "micro_step", "finish",
           "output_registers"]


def input_fields(config):
    """Payload fields of the input stream: ``x``, ``y``, ``z`` port codes (the user tag is
    added by :class:`robohw.hw.stream.StreamPipeline`)."""
    w = config.width
    return {"x": signed(w), "y": signed(w), "z": signed(w)}


def output_fields(config):
    """Payload fields of the output stream: results and the ``domain_error`` and ``overflow``
    flags."""
    w = config.width
    return {"x": signed(w), "y": signed(w), "z": signed(w), "domain_error": 1, "overflow": 1}


PAYLOAD_FIELDS = ("x", "y", "z", "domain_error", "overflow")


def prerotate(config, x, y, z):
    """Internal ``(x, y, z)`` from port codes: scaled by ``2**guard_bits`` and, where the mode
    needs it, turned by half a turn (see :func:`robohw.cordic.model.prerotate`)."""
    g = config.guard_bits
    x, y, z = (Value.cast(v).as_signed() << g for v in (x, y, z))
    zw = config.z_width
    if config.system is System.CIRCULAR and config.direction is Direction.ROTATION:
        flip = z[zw - 1] ^ z[zw - 2]
    elif config.direction is Direction.VECTORING:
        flip = x < 0
    else:
        return x, y, z
    x, y = Mux(flip, -x, x), Mux(flip, -y, y)
    if config.system is System.CIRCULAR:
        z = Mux(flip, z + (1 << (zw - 1)), z)  # wraps when assigned to signed(z_width)
    return x, y, z


def _select(enable, new, old):
    if isinstance(enable, bool):
        return new if enable else old
    return Mux(enable, new, old)


def micro_step(config, x, y, z, *, shift, angle, rotate=True, norm_shift=0, gamma=0,
               norm_subtract=False, expanded=False):
    """One program step: a micro-rotation by ``shift``/``angle`` (when ``rotate``; by the
    factor ``1 - 2**-shift`` when ``expanded``), then the normalization factor
    ``(1 + gamma 2**-norm_shift)``.

    Parameters are Python constants (pipelined stages: logic is generated only for what the
    step does) or Amaranth values (the word-serial unit: ``gamma`` is then an enable and
    ``norm_subtract`` selects ``-1``).
    """
    if rotate is not False:
        up = (z >= 0) if config.direction is Direction.ROTATION else (y < 0)
        xs, ys = x >> shift, y >> shift
        if expanded is True:
            xs, ys = x - xs, y - ys
        elif expanded is not False:
            xs, ys = Mux(expanded, x - xs, xs), Mux(expanded, y - ys, ys)
        if config.system is System.CIRCULAR:
            x1 = Mux(up, x - ys, x + ys)
        elif config.system is System.HYPERBOLIC:
            x1 = Mux(up, x + ys, x - ys)
        else:
            x1 = x
        y1 = Mux(up, y + xs, y - xs)
        z1 = Mux(up, z - angle, z + angle)
        x, y, z = _select(rotate, x1, x), _select(rotate, y1, y), _select(rotate, z1, z)
    if isinstance(gamma, int):
        if gamma > 0:
            x, y = x + (x >> norm_shift), y + (y >> norm_shift)
        elif gamma < 0:
            x, y = x - (x >> norm_shift), y - (y >> norm_shift)
    else:
        xs, ys = x >> norm_shift, y >> norm_shift
        x = Mux(gamma, Mux(norm_subtract, x - xs, x + xs), x)
        y = Mux(gamma, Mux(norm_subtract, y - ys, y + ys), y)
    return x, y, z


def finish(config, x, y, z):
    """Output fields from internal ``(x, y, z)``: a dict with ``x``, ``y``, ``z``,
    ``domain_error`` and ``overflow`` expressions (see :func:`robohw.cordic.model.cordic_model`),
    and the per-port ``x_overflow``, ``y_overflow``, ``z_overflow`` (not in the payload)."""
    x, y, z = Value.cast(x), Value.cast(y), Value.cast(z)
    if not config.checks_domain:
        domain_error = 0
    elif config.direction is Direction.ROTATION:
        domain_error = abs(z) > config.residual_z_limit
    else:
        domain_error = abs(y) > ((abs(x) << 2) >> config.shifts[-1]) + config.residual_y_slack
    if config.multiplier is not None:
        constant, shift = config.multiplier
        x, y = (x * constant) >> shift, (y * constant) >> shift
    g, w, rounding = config.guard_bits, config.width, config.rounding
    x, x_over = hdl_saturate(hdl_round_shift(x, config.output_shift, rounding), w)
    y, y_over = hdl_saturate(hdl_round_shift(y, config.output_shift, rounding), w)
    z = hdl_round_shift(z, g, rounding)
    if config.system is System.CIRCULAR:
        z, z_over = z[:w].as_signed(), 0
    else:
        z, z_over = hdl_saturate(z, w)
    return {"x": x, "y": y, "z": z, "domain_error": domain_error,
            "overflow": x_over | y_over | z_over,
            "x_overflow": x_over, "y_overflow": y_over, "z_overflow": z_over}


def output_registers(config, fields, name, sideband=None):
    """Reset-less registers for the fields of :func:`finish` (and a ``"sideband"``), named
    ``{name}_out_{field}``: ``signed(width)`` for ``x``, ``y``, ``z``, one bit for flags."""
    registers = {}
    for field in fields:
        if field == "sideband":
            shape = sideband.shape()
        else:
            shape = signed(config.width) if field in "xyz" else 1
        registers[field] = Signal(shape, name=f"{name}_out_{field}", reset_less=True)
    return registers
